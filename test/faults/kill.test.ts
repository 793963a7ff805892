/**
 * The dispatcher dies mid-batch: its process is SIGKILLed at random points while it is
 * delivering, and restarted. Records in flight were neither deleted nor failed, so SQS
 * hands them out again after the visibility timeout: nothing is lost, and the attempts
 * that were in flight are sent again (duplicates the spec allows, counted and explained).
 */
import type { Stack } from '../support/stack';
import { expectNoLoss, KILLED_RUN, killAndRestart, report, size, startKillableStack, until } from './helpers';

const KILLS = size(1, 4);
const EVENTS = size(150, 500);

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

it(
  `loses nothing when the dispatcher is SIGKILLed mid-batch ${KILLS}× and restarted`,
  async () => {
    stack = await startKillableStack('kill');
    const app = 'app_kill';
    const targets = [];
    for (const behaviour of ['ok', 'ok', 'flaky'] as const) {
      targets.push(await stack.connect(await stack.addReceiver(behaviour), app));
    }
    await stack.startDispatcher();
    const published = await stack.publishEvents(EVENTS, {
      applicationId: app,
      connections: targets.map((t) => t.connection.connectionId),
    });
    // Every event: 2 ok receivers (1 request each) + 1 flaky (3 requests).
    const requestsExpected = published.length * 5;
    const killPoints: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      // A random point within this kill's share of the run (so kills spread over the run).
      const share = (k + 0.2 + Math.random() * 0.6) / KILLS;
      const threshold = Math.floor(requestsExpected * share * 0.9);
      await until(
        `${threshold} requests before kill ${k + 1}`,
        () => stack.fleet.counters.verified >= threshold,
        60_000,
      );
      const verified = await killAndRestart(
        stack,
        'in flight when the dispatcher was SIGKILLed (redelivered after the visibility timeout)',
        KILLED_RUN.functionTimeoutMs,
      );
      killPoints.push(`after ${verified} requests`);
    }
    const drainedAt = await stack.waitForDrain({ timeoutMs: 120_000, quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    report('dispatcher killed mid-batch', ledger, `${KILLS} SIGKILL(s) ${killPoints.join(', ')}`, stack);

    expectNoLoss(ledger);
    expect(ledger.deliveriesExpected).toBe(EVENTS * 3);
    expect(ledger.delivered).toBe(EVENTS * 3);
    // Rare: at most what was in flight at each kill (batches × 10 records × 3 connections),
    // plus the retry each of those may have queued before dying.
    expect(ledger.duplicateSends).toBeLessThanOrEqual(KILLS * KILLED_RUN.runnerConcurrency * 10 * 3 * 2);
  },
  size(150_000, 400_000),
);
