/**
 * The dispatcher dies mid-batch: its process is SIGKILLed at random points while it is
 * delivering, and restarted. Records in flight were neither deleted nor failed, so SQS
 * hands them out again after the visibility timeout: nothing is lost, and the attempts
 * that were in flight are sent again (duplicates the spec allows, counted and explained).
 */
import { type Stack, startStack } from '../support/stack';
import { expectNoLoss, report, servicesInfo, size, until } from './helpers';

const KILLS = size(1, 4);
const EVENTS = size(150, 500);
const ATTEMPT_TIMEOUT_MS = 2_000;
const FUNCTION_TIMEOUT_MS = 8_000;
const RUNNER_CONCURRENCY = 2;

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

it(
  `loses nothing when the dispatcher is SIGKILLed mid-batch ${KILLS}× and restarted`,
  async () => {
    stack = await startStack({
      services: servicesInfo(),
      label: 'kill',
      // As short as Lambda allows for this function timeout, so redelivery comes quickly.
      visibilityTimeoutSeconds: FUNCTION_TIMEOUT_MS / 1000,
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
      functionTimeoutMs: FUNCTION_TIMEOUT_MS,
      runnerConcurrency: RUNNER_CONCURRENCY,
      childProcess: true,
    });
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
      const at = Date.now();
      await stack.killDispatcher();
      killPoints.push(`after ${stack.fleet.counters.verified} requests`);
      // Anything the killed process had in flight: received up to one function timeout before.
      stack.windows.push({
        label: 'in flight when the dispatcher was SIGKILLed (redelivered after the visibility timeout)',
        from: at - FUNCTION_TIMEOUT_MS - 1_000,
        to: at + 500,
      });
      await stack.startDispatcher();
    }
    const drainedAt = await stack.waitForDrain({ timeoutMs: 120_000, quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    report('dispatcher killed mid-batch', ledger, `${KILLS} SIGKILL(s) ${killPoints.join(', ')}`, stack);

    expectNoLoss(ledger);
    expect(ledger.deliveriesExpected).toBe(EVENTS * 3);
    expect(ledger.delivered).toBe(EVENTS * 3);
    // Rare: at most what was in flight at each kill (batches × 10 records × 3 connections),
    // plus the retry each of those may have queued before dying.
    expect(ledger.duplicateSends).toBeLessThanOrEqual(KILLS * RUNNER_CONCURRENCY * 10 * 3 * 2);
  },
  size(150_000, 400_000),
);
