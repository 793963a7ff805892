/** "Send Test" (docs/protocol.md §1): one immediate, signed test delivery to a connection; no retries. */

import { randomBytes } from 'node:crypto';
import { CONFIG_DEFAULTS } from '../config';
import { deliveryIdFor, ulid } from '../core/ids';
import { buildPayload, serialiseBody } from '../core/payload';
import type { Log } from '../core/ports';
import type { AttemptRecord, Connection, DeliveryMessage } from '../core/types';
import { wireTestSends } from '../wiring';
import type { ManagementOptions } from './types';

const silent: Log = { debug() {}, info() {}, warn() {}, error() {} };

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

export async function sendTest(
  options: ManagementOptions,
  connection: Connection,
  applicationName?: string,
): Promise<AttemptRecord> {
  const { resources } = options;
  const sends = wireTestSends(
    {
      retryQueueUrl: resources.retryQueueUrl,
      dlqUrl: resources.dlqUrl,
      attemptsTable: resources.attemptsTable,
      secretStore: resources.secretStore,
      headerPrefix: resources.headerPrefix ?? CONFIG_DEFAULTS.headerPrefix,
      attemptTimeoutMs: options.attemptTimeoutMs ?? CONFIG_DEFAULTS.attemptTimeoutMs,
      // A test send's record is kept as long as any failure: people look for it right after.
      attemptTtlDays: options.attemptTtlDays ?? CONFIG_DEFAULTS.attemptTtlDays,
      allowedPorts: options.allowedPorts ?? resources.allowedPorts ?? CONFIG_DEFAULTS.allowedPorts,
      allowLoopback: options.allowLoopback ?? false,
    },
    { clients: options.clients, ca: options.ca, deps: { log: silent } },
  );
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
