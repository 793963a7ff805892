/** "Send Test" (docs/protocol.md §1): one immediate, signed test delivery to a connection; no retries. */

import { randomBytes } from 'node:crypto';
import { deliveryIdFor, ulid } from '../core/ids';
import { buildPayload, serialiseBody } from '../core/payload';
import type { AttemptRecord, Connection, DeliveryMessage } from '../core/types';
import type { TestSends } from './ports';

/**
 * The body of a test delivery (docs/protocol.md §9): a sample user, obviously fake, marked
 * `metadata.test: true`; the connection's application, named as its events last named it
 * (application-name.ts), else by its id, as `webhooks publish` names it without a name.
 */
export function testPayloadBody(connection: Connection, now = new Date(), applicationName?: string): string {
  return serialiseBody(
    buildPayload({
      timestamp: now.toISOString(),
      user: {
        id: 'usr_test_0000000000',
        email: 'test.user@example.com',
        name: 'Test User',
        firstName: 'Test',
        lastName: 'User',
        phone: '+15555550100',
        metadata: { test: true, source: 'send-test' },
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      },
      application: { id: connection.applicationId, name: applicationName ?? connection.applicationId },
    }),
  );
}

/** One test delivery through a Send Test wiring of its own (ManagementBackend.testSends), closed after. */
export async function sendTest(
  sends: TestSends,
  connection: Connection,
  applicationName?: string,
): Promise<AttemptRecord> {
  try {
    const now = new Date();
    const eventId = `evt_${ulid(now.getTime(), randomBytes(10))}`;
    const delivery: DeliveryMessage = {
      v: 1,
      type: 'delivery',
      deliveryId: deliveryIdFor(eventId, connection.connectionId, now.getTime()),
      eventId,
      connectionId: connection.connectionId,
      attempt: 1,
      chainStart: 1,
      body: testPayloadBody(connection, now, applicationName),
      firstAttemptAt: now.toISOString(),
      test: true,
    };
    return await sends.send(delivery, connection);
  } finally {
    await sends.close();
  }
}
