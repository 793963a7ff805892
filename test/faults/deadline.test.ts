/**
 * Near the Lambda deadline: the function timeout leaves room for only a few attempts per
 * invocation. The dispatcher stops starting attempts when the time left cannot cover one
 * (attempt timeout + 5 s margin) and reports the untouched records as failures, so SQS
 * redelivers them; no invocation is cut off mid-send, and nothing is sent twice.
 */

import { DEADLINE_MARGIN_MS } from '../../lambdas/core/constants';
import { type Stack, startStack } from '../support/stack';
import { expectNoLoss, report, servicesInfo, size } from './helpers';

const EVENTS = size(20, 60);
const ATTEMPT_TIMEOUT_MS = 1_000;
/** Attempts may start only during the first 700 ms of an invocation. */
const FUNCTION_TIMEOUT_MS = ATTEMPT_TIMEOUT_MS + DEADLINE_MARGIN_MS + 700;
const RECEIVER_DELAY_MS = 300;

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

it(
  'leaves records it cannot finish before the deadline to SQS instead of being cut off mid-send',
  async () => {
    stack = await startStack({
      services: servicesInfo(),
      label: 'deadline',
      visibilityTimeoutSeconds: Math.ceil(FUNCTION_TIMEOUT_MS / 1000),
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
      functionTimeoutMs: FUNCTION_TIMEOUT_MS,
      // Two attempts at a time, 300 ms each: a batch of 10 needs 1.5 s, the window is 0.7 s.
      batchConcurrency: 2,
      runnerConcurrency: 2,
    });
    const app = 'app_deadline';
    const targets = [];
    for (let i = 0; i < 2; i++) {
      targets.push(await stack.connect(await stack.addReceiver('slow', { slowMs: RECEIVER_DELAY_MS }), app));
    }
    // Published before the dispatcher starts, so the first batches are full.
    await stack.publishEvents(EVENTS, {
      applicationId: app,
      connections: targets.map((t) => t.connection.connectionId),
    });
    await stack.startDispatcher();
    const drainedAt = await stack.waitForDrain({ timeoutMs: size(80_000, 200_000), quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    const batches = stack.batchStats();
    const deadline = stack.log.counts['warn: record left for redelivery: invocation deadline near'] ?? 0;
    const handedBack = stack.log.counts['warn: delivery handed back to the queue'] ?? 0;
    report(
      'near the Lambda deadline',
      ledger,
      `function timeout ${FUNCTION_TIMEOUT_MS} ms (attempts may start in its first 700 ms); ` +
        `${deadline} records left for redelivery, ${handedBack} fan-out deliveries handed back`,
      stack,
    );

    expectNoLoss(ledger);
    expect(ledger.delivered).toBe(EVENTS * 2);
    expect(ledger.duplicateSends).toBe(0);
    // The deadline did bite: some records were left to SQS (redelivered) or handed back.
    expect(deadline + handedBack).toBeGreaterThan(0);
    // …and never too late: no invocation ran past its timeout, no attempt was cut off.
    expect(batches.timeout).toBe(0);
    expect([...stack.fleet.deliveries.values()].every((d) => d.sends.every((s) => s.answer === '200'))).toBe(
      true,
    );
  },
  size(120_000, 300_000),
);
