/**
 * Republished events (core/claims.ts, docs/reliability.md "Republished events"): the dispatcher on
 * memory ports, claims on. The same eventId published again keeps its delivery ids and is not sent
 * again; retries, Resends and a crashed send's redelivery still go out.
 */

import { CLAIM_WINDOW_S } from '../../../lambdas/core/claims';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import type { InputRecord } from '../../../lambdas/core/ports';
import type { AttemptResult, DeliveryMessage } from '../../../lambdas/core/types';
import { connection, ok, DISPATCHER_OPTIONS as options, PLENTY as plenty } from '../../support/fixtures';
import { memoryPorts, type Responder } from '../../support/memory';

const EVENT_ID = 'evt_signup-42';
const FIRST_AT = '2026-11-21T14:53:00.123Z';
const LATER_AT = '2026-11-21T14:58:30.000Z';
const key = (connectionId: string) => ({ applicationId: 'app_1', eventId: EVENT_ID, connectionId });

/** The event as an upstream publishes it; each publish is a new SQS message. */
function published(occurredAt: string, messageId: string): InputRecord {
  const body = {
    v: 1,
    type: 'event',
    eventId: EVENT_ID,
    event: 'user.identified',
    occurredAt,
    user: { id: 'usr_7' },
    application: { id: 'app_1', name: 'Acme' },
  };
  return { messageId, body: JSON.stringify(body), source: 'ingress' };
}

const queued = (delivery: DeliveryMessage, messageId: string): InputRecord => ({
  messageId,
  body: JSON.stringify(delivery),
  source: 'retry',
});

function setup(responder?: Responder, connectionIds = ['con_a', 'con_b']) {
  const f = memoryPorts(
    connectionIds.map((id) => connection(id)),
    { responder },
  );
  return { ...f, dispatcher: createDispatcher(f.deps, options) };
}

const idsSent = (sent: { headers: Record<string, string> }[]) =>
  sent.map((r) => r.headers['X-Service-Delivery']).sort();
const firstIds = ['con_a', 'con_b'].map((c) => deliveryIdFor(EVENT_ID, c, Date.parse(FIRST_AT))).sort();

describe('an event published again (same eventId)', () => {
  it('keeps its delivery ids whatever its occurredAt says, and sends nothing again', async () => {
    const { dispatcher, state } = setup();
    expect((await dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty)).failures).toEqual([]);
    state.now += 60_000;
    expect((await dispatcher.processBatch([published(LATER_AT, 'm2')], plenty)).failures).toEqual([]);
    expect(idsSent(state.sent)).toEqual(firstIds);
    expect(state.records.map((r) => r.deliveryId).sort()).toEqual(firstIds);
    expect(
      state.logs.filter((l) => l.message.startsWith('republished event: this delivery was already')),
    ).toHaveLength(2);
  });

  it('does not send a delivery still in flight: the republished event is left for SQS, then skipped once it settled', async () => {
    let answer: (result: AttemptResult) => void = () => {};
    let calls = 0;
    const { dispatcher, state } = setup(
      () => (++calls === 1 ? new Promise<AttemptResult>((r) => (answer = r)) : ok(200)),
      ['con_a'],
    );
    const first = dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty);
    await new Promise((r) => setImmediate(r));
    expect(state.sent).toHaveLength(1);
    const during = await dispatcher.processBatch([published(LATER_AT, 'm2')], plenty);
    expect(during.failures).toEqual(['m2']);
    expect(state.sent).toHaveLength(1);
    answer(ok(200));
    expect((await first).failures).toEqual([]);
    expect((await dispatcher.processBatch([published(LATER_AT, 'm2')], plenty)).failures).toEqual([]);
    expect(state.sent).toHaveLength(1);
    expect(state.records).toHaveLength(1);
  });

  it('sends a delivery whose claim outlived its send (the invocation crashed): SQS redelivery is not lost', async () => {
    const { dispatcher, state, claims } = setup(undefined, ['con_a']);
    // A send that claimed the delivery, then died with its invocation (its lease: 10 s).
    const at = { timeMs: Date.parse(FIRST_AT), nowMs: state.now, leaseUntilMs: state.now + 10_000 };
    await claims.claim(key('con_a'), { ...at, expiresAtS: state.now / 1000 + CLAIM_WINDOW_S });
    // Before the lease ends the delivery is someone's: not sent, the event left for redelivery.
    expect((await dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty)).failures).toEqual(['m1']);
    expect(state.sent).toHaveLength(0);
    state.now += 10_001;
    expect((await dispatcher.processBatch([published(LATER_AT, 'm1')], plenty)).failures).toEqual([]);
    expect(idsSent(state.sent)).toEqual([deliveryIdFor(EVENT_ID, 'con_a', Date.parse(FIRST_AT))]);
    // The body the crashed send may have delivered: the first publish's timestamp, not the republish's.
    expect(JSON.parse(state.sent[0]!.body).timestamp).toBe(FIRST_AT);
  });

  it('never blocks retries or Resends of the delivery: only a republished event is claimed', async () => {
    const { dispatcher, state } = setup(() => ok(503), ['con_a']);
    await dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty);
    const retry = state.scheduled.at(-1)!.delivery;
    expect(retry.attempt).toBe(2);
    // The republish comes while the chain is retrying: the chain owns the delivery.
    await dispatcher.processBatch([published(LATER_AT, 'm2')], plenty);
    expect(state.sent).toHaveLength(1);
    await dispatcher.processBatch([queued(retry, 'r2')], plenty);
    // The same retry message delivered twice by SQS is sent twice, and logged twice.
    await dispatcher.processBatch([queued(retry, 'r2')], plenty);
    const resend: DeliveryMessage = { ...retry, attempt: 5, chainStart: 5 };
    await dispatcher.processBatch([queued(resend, 'r5')], plenty);
    expect(state.sent.map((r) => r.headers['X-Service-Attempt'])).toEqual(['1', '2', '2', '5']);
    expect(state.records.map((r) => r.attempt)).toEqual([1, 2, 2, 5]);
    expect(new Set(state.records.map((r) => r.sendId)).size).toBe(4);
  });

  it('settles a delivery handed back to the retry queue: a republish does not send or queue it again', async () => {
    const { dispatcher, state } = setup(undefined, ['con_a']);
    state.fail.add('secrets');
    await dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty);
    expect(state.scheduled).toHaveLength(1);
    state.fail.delete('secrets');
    await dispatcher.processBatch([published(LATER_AT, 'm2')], plenty);
    expect(state.sent).toHaveLength(0);
    expect(state.scheduled).toHaveLength(1);
  });

  it('sends the delivery when its claim cannot be read or written: the check never costs a delivery', async () => {
    const { dispatcher, state } = setup(undefined, ['con_a']);
    state.fail.add('claims');
    expect((await dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty)).failures).toEqual([]);
    expect(state.sent).toHaveLength(1);
    expect(state.logs.some((l) => l.level === 'warn' && l.message.startsWith('delivery claim failed'))).toBe(
      true,
    );
  });

  it('is a new event again once its claim has expired (24 hours after first seen)', async () => {
    const { dispatcher, state } = setup(undefined, ['con_a']);
    await dispatcher.processBatch([published(FIRST_AT, 'm1')], plenty);
    state.now += (CLAIM_WINDOW_S - 1) * 1000;
    await dispatcher.processBatch([published(LATER_AT, 'm2')], plenty);
    expect(state.sent).toHaveLength(1);
    state.now += 2000;
    await dispatcher.processBatch([published(LATER_AT, 'm3')], plenty);
    expect(idsSent(state.sent)).toEqual(
      [FIRST_AT, LATER_AT].map((at) => deliveryIdFor(EVENT_ID, 'con_a', Date.parse(at))).sort(),
    );
  });
});
