/**
 * SQS refuses `SendMessage` for a window: retries cannot be scheduled, dead letters cannot
 * be written, fan-out deliveries cannot be handed back. The records concerned are reported
 * in `batchItemFailures` and SQS redelivers them: nothing is lost. The attempt that was
 * sent just before its retry could not be queued is sent again on redelivery: those
 * duplicates are counted and attributed to the window.
 */
import { type Stack, startStack } from '../support/stack';
import { sleep } from '../support/wait';
import { describeFaults, expectNoLoss, publishSteadily, report, servicesInfo, size } from './helpers';

const WINDOW_MS = size(2_500, 6_000);
const EVENTS = size(40, 120);
const ATTEMPT_TIMEOUT_MS = 1_000;

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

it(
  'reports the record in batchItemFailures when the retry cannot be queued, and loses nothing',
  async () => {
    stack = await startStack({
      services: servicesInfo(),
      label: 'sqs-send',
      visibilityTimeoutSeconds: 7,
      attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
      functionTimeoutMs: 6_500,
      proxies: true,
    });
    const app = 'app_sqs_send';
    const connections: string[] = [];
    for (const behaviour of ['ok', 'flaky', 'flaky', 'fail'] as const) {
      connections.push(
        (await stack.connect(await stack.addReceiver(behaviour), app)).connection.connectionId,
      );
    }
    await stack.startDispatcher();
    const publishing = publishSteadily(stack, {
      applicationId: app,
      connections,
      total: EVENTS,
      overMs: WINDOW_MS + 2_000,
    });
    await sleep(1_000);
    const fault = stack.proxies!.sqs.inject({
      fault: 'error',
      status: 503,
      operations: ['AmazonSQS.SendMessage'],
      durationMs: WINDOW_MS,
      label: 'SendMessage → 503',
    });
    // An attempt sent up to one attempt timeout before a failed SendMessage is sent again.
    stack.windows.push({
      label: 'its retry could not be queued (SendMessage failed): record redelivered, attempt sent again',
      from: fault.startedAt - ATTEMPT_TIMEOUT_MS - 1_000,
      to: fault.startedAt + WINDOW_MS + 500,
    });
    await publishing;
    const drainedAt = await stack.waitForDrain({ timeoutMs: 90_000, quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    const batches = stack.batchStats();
    report('SQS SendMessage failing (retries, DLQ, hand-backs)', ledger, describeFaults([fault]), stack);

    expectNoLoss(ledger);
    expect(fault.hits).toBeGreaterThan(0);
    expect(batches.partial).toBeGreaterThan(0);
    expect(stack.log.counts['error: record failed; SQS will redeliver it']).toBeGreaterThan(0);
  },
  size(90_000, 180_000),
);
