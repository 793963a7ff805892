/**
 * Republished events (docs/reliability.md "Republished events"): an upstream that is retried
 * publishes its events again. Every event is published twice at once (the same message), the
 * dispatcher is SIGKILLed mid-run and restarted (claims left by its sends in flight), and once each
 * delivery has reached its receiver, every event is published a third time with a later
 * occurredAt. The ledger must still lose nothing, and the republishes must add no delivery id and
 * no send: every request is an expected delivery's, every duplicate one the kill explains.
 */
import { dispatcherSettings } from '../support/dispatcher';
import { buildEvent, type Stack } from '../support/stack';
import { expectNoLoss, KILLED_RUN, killAndRestart, report, size, startKillableStack, until } from './helpers';

const EVENTS = size(60, 300);

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

/** Publishes messages 10 to a SendMessageBatch; `expected` ones are the ledger's events. */
async function publish(messages: ReadonlyArray<{ text: string; event?: ReturnType<typeof buildEvent> }>) {
  for (let i = 0; i < messages.length; i += 10) await stack.publishRaw(messages.slice(i, i + 10));
}

it(
  'loses nothing and sends nothing twice when every event is republished, across a dispatcher SIGKILL',
  async () => {
    stack = await startKillableStack('republish', {
      // WEBHOOKS_DEDUPE_EVENTS=false in the environment runs it without de-duplication (it fails).
      settings: dispatcherSettings(process.env),
    });
    const app = 'app_republish';
    const targets = [];
    for (const behaviour of ['ok', 'ok', 'flaky'] as const) {
      targets.push(await stack.connect(await stack.addReceiver(behaviour), app));
    }
    const connections = targets.map((t) => t.connection.connectionId);
    await stack.startDispatcher();
    const built = Array.from({ length: EVENTS }, () => buildEvent(app, connections));
    // Each event twice at once, the same message: the upstream's first try and its retry.
    await publish(
      built.flatMap((b) => [
        { text: JSON.stringify(b.message), event: b },
        { text: JSON.stringify(b.message) },
      ]),
    );
    // Every event: 2 ok receivers (1 request each) + 1 flaky (3 requests).
    const requestsExpected = EVENTS * 5;
    await until(
      'a third of the requests before the kill',
      () => stack.fleet.counters.verified >= requestsExpected / 3,
      60_000,
    );
    await killAndRestart(
      stack,
      'in flight when the dispatcher was SIGKILLed (its claims expire with the invocation)',
      KILLED_RUN.functionTimeoutMs,
    );
    // Once every delivery has been seen, the upstream publishes everything again, 5 s later by its clock.
    const ids = built.flatMap((b) => b.expected.deliveries.map((d) => d.deliveryId));
    await until(
      'every delivery received once',
      () => ids.every((id) => stack.fleet.deliveries.has(id)),
      90_000,
    );
    const later = (occurredAt: string) => new Date(Date.parse(occurredAt) + 5_000).toISOString();
    await publish(
      built.map((b) => ({ text: JSON.stringify({ ...b.message, occurredAt: later(b.message.occurredAt) }) })),
    );
    const drainedAt = await stack.waitForDrain({ timeoutMs: 120_000, quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    report(
      'events republished',
      ledger,
      `every event published 3× (twice at once, once later with another occurredAt); 1 SIGKILL`,
      stack,
    );

    expectNoLoss(ledger);
    expect(ledger.deliveriesExpected).toBe(EVENTS * 3);
    expect(ledger.delivered).toBe(EVENTS * 3);
    expect(ledger.checks.unexpectedReceipts).toBe(0);
    // Only what the kill had in flight is sent twice: at most its batches × 10 records × 3 connections,
    // plus the retry each of those may have queued before dying.
    expect(ledger.duplicateSends).toBeLessThanOrEqual(KILLED_RUN.runnerConcurrency * 10 * 3 * 2);
    // No request beyond those (a flaky receiver's copy can even end its chain an attempt early).
    expect(ledger.requestsReceived).toBeLessThanOrEqual(requestsExpected + ledger.duplicateSends);
  },
  size(180_000, 400_000),
);
