/**
 * Poison input: messages that can never be delivered (malformed JSON, unknown envelope
 * version or type, wrong event kind, missing fields, an oversize body, a deleted
 * connection) go to the DLQ at once with their reason, and the good messages of the same
 * SQS batch are delivered as if nothing happened: no record of the batch is failed.
 */

import { buildPayload, serialiseBody } from '../../lambdas/core/payload';
import type { DeliveryMessage } from '../../lambdas/core/types';
import { type BuiltEvent, buildEvent, type Stack, startStack } from '../support/stack';
import { expectNoLoss, report, servicesInfo, size } from './helpers';

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

const text = (message: unknown) => JSON.stringify(message);

/** A queued retry (attempt 2) of `built` to its first connection, as the dispatcher would write it. */
function retryOf(built: BuiltEvent): DeliveryMessage {
  const { message } = built;
  const [target] = built.expected.deliveries;
  return {
    v: 1,
    type: 'delivery',
    deliveryId: target!.deliveryId,
    eventId: message.eventId,
    connectionId: target!.connectionId,
    attempt: 2,
    chainStart: 1,
    body: serialiseBody(
      buildPayload({ timestamp: message.occurredAt, user: message.user, application: message.application }),
    ),
    firstAttemptAt: message.occurredAt,
  };
}

it(
  'dead-letters every kind of poison with its reason while its batch-mates are delivered',
  async () => {
    stack = await startStack({
      services: servicesInfo(),
      label: 'poison',
      visibilityTimeoutSeconds: 7,
      attemptTimeoutMs: 1_000,
      functionTimeoutMs: 6_500,
    });
    const app = 'app_poison';
    const ok = (await stack.connect(await stack.addReceiver('ok'), app)).connection.connectionId;
    const gone = (await stack.connect(await stack.addReceiver('ok'), 'app_poison_gone')).connection
      .connectionId;
    await stack.management.connections.delete(gone);

    const good = () => buildEvent(app, [ok]);
    const base = good().message;
    const toDeleted = buildEvent('app_poison_gone', [gone], { targets: [gone] });
    const retryToDeleted = buildEvent('app_poison_gone', [gone]);
    const poison = (label: string, expectedReason: string, body: string) => ({
      text: body,
      poison: { label, expectedReason },
    });
    const g1 = good();
    const g2 = good();
    // One SQS batch (published before the dispatcher starts, received together).
    await stack.publishRaw([
      { text: text(g1.message), event: g1 },
      poison('malformed JSON', 'invalid_message', '{"v":1,"type":"event", oops'),
      poison('unknown envelope version', 'invalid_message', text({ ...base, eventId: 'evt_v2', v: 2 })),
      poison(
        'wrong event kind',
        'invalid_message',
        text({ ...base, eventId: 'evt_kind', event: 'user.deleted' }),
      ),
      poison(
        'missing user.id',
        'invalid_payload',
        text({ ...base, eventId: 'evt_noid', user: { email: 'a@b.c' } }),
      ),
      poison('missing eventId', 'invalid_message', text({ ...base, eventId: undefined })),
      poison(
        'oversize body (300 KiB)',
        'invalid_payload',
        text({
          ...base,
          eventId: 'evt_big',
          user: { ...base.user, metadata: { blob: 'x'.repeat(300 * 1024) } },
        }),
      ),
      { text: text(toDeleted.message), event: toDeleted },
      // Publishers can write only the ingress queue, which carries events only (docs/design.md §3).
      poison('a delivery on the ingress queue', 'invalid_message', text(retryOf(retryToDeleted))),
      { text: text(g2.message), event: g2 },
    ]);
    const g3 = good();
    await stack.publishRaw([
      poison('unknown message type', 'invalid_message', text({ v: 1, type: 'webhook', eventId: 'evt_type' })),
      // Near SQS's 1 MiB limit once quoted: the dead letter that carries it must still fit.
      poison(
        'oversize body (600 KB of quotes)',
        'invalid_payload',
        text({
          ...base,
          eventId: 'evt_quotes',
          user: { ...base.user, metadata: { q: '"'.repeat(300_000) } },
        }),
      ),
      { text: text(g3.message), event: g3 },
    ]);
    await stack.startDispatcher();
    const drainedAt = await stack.waitForDrain({ timeoutMs: 60_000, quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    const batches = stack.batchStats();
    report(
      'poison input',
      ledger,
      `${stack.poison.map((p) => p.label).join(', ')}, deleted connection`,
      stack,
    );

    expectNoLoss(ledger);
    expect(ledger.dlqByReason).toEqual({ invalid_message: 6, invalid_payload: 3, connection_missing: 1 });
    expect(ledger.delivered).toBe(3);
    // No record failed, so nothing waited for a redelivery: poison never holds up its batch.
    expect(batches.recordsLeft).toBe(0);
    expect(batches.error + batches.timeout).toBe(0);
  },
  size(90_000, 90_000),
);
