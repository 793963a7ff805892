/**
 * DynamoDB unavailable for a window, for both of the dispatcher's tables: the connections table
 * (records fail and SQS redelivers them) and the attempt log (docs/design.md §4 "Order after an
 * attempt": the record of an attempt that happened is queued as an `attempt-log` message and
 * written when the log is back; the attempt itself is never sent again). Then DynamoDB recovers:
 * nothing lost, nothing sent twice, and the attempt log ends up with exactly the attempts the
 * receivers saw.
 */
import { type Stack, startStack } from '../support/stack';
import { sleep } from '../support/wait';
import { describeFaults, expectNoLoss, publishSteadily, report, servicesInfo, size } from './helpers';

const WINDOW_MS = size(2_500, 6_000);
const EVENTS = size(40, 120);

const options = () => ({
  services: servicesInfo(),
  visibilityTimeoutSeconds: 7,
  attemptTimeoutMs: 1_000,
  functionTimeoutMs: 6_500,
  proxies: true,
});

let stack: Stack | undefined;

afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function connectAll(s: Stack, app: string) {
  const ids: string[] = [];
  for (const behaviour of ['ok', 'flaky', 'fail'] as const) {
    ids.push((await s.connect(await s.addReceiver(behaviour), app)).connection.connectionId);
  }
  return ids;
}

it(
  'queues the records of attempts made while the attempt log is down, and never sends them again',
  async () => {
    const s = await startStack({ ...options(), label: 'ddb-log' });
    stack = s;
    const app = 'app_ddb_log';
    const connections = await connectAll(s, app);
    await s.startDispatcher();
    const publishing = publishSteadily(s, {
      applicationId: app,
      connections,
      total: EVENTS,
      overMs: WINDOW_MS + 2_000,
    });
    await sleep(1_000);
    const fault = s.proxies!.dynamodb.inject({
      fault: 'error',
      status: 503,
      operations: ['DynamoDB_20120810.PutItem'],
      durationMs: WINDOW_MS,
      label: 'attempt log down: PutItem → 503',
    });
    await publishing;
    await sleep(Math.max(0, fault.startedAt + WINDOW_MS - Date.now()));
    const drainedAt = await s.waitForDrain({ timeoutMs: 90_000, quietMs: 2_000 });
    const ledger = await s.ledger(drainedAt);
    const deferred =
      s.log.counts['warn: attempt log write failed; the record is queued for a later write'] ?? 0;
    report(
      'attempt log (DynamoDB PutItem) down',
      ledger,
      `${describeFaults([fault])}; ${deferred} attempt records queued (D2)`,
      s,
    );

    expectNoLoss(ledger);
    expect(fault.hits).toBeGreaterThan(0);
    expect(deferred).toBeGreaterThan(0);
    // docs/design.md §4 "Order after an attempt": an attempt whose log write failed is not sent
    // again when the log recovers.
    expect(ledger.duplicateSends).toBe(0);
  },
  size(90_000, 180_000),
);

const outages = size(
  [{ cache: 'cold', ttlMs: 0 }],
  [
    { cache: 'cold', ttlMs: 0 },
    { cache: 'warm', ttlMs: 30_000 },
  ],
);

it.each(outages)(
  'loses nothing while DynamoDB refuses connections (connection cache $cache), and resumes after',
  async ({ cache, ttlMs }) => {
    const s = await startStack({ ...options(), label: `ddb-down-${cache}`, connectionCacheTtlMs: ttlMs });
    stack = s;
    const app = `app_ddb_down_${cache}`;
    const connections = await connectAll(s, app);
    await s.startDispatcher();
    // Warms the connection cache (when there is one) before the outage.
    await s.publishEvents(1, { applicationId: app, connections });
    await sleep(1_000);
    const publishing = publishSteadily(s, {
      applicationId: app,
      connections,
      total: EVENTS,
      overMs: WINDOW_MS + 1_000,
    });
    const outage = await s.proxies!.dynamodb.refuse(WINDOW_MS, 'DynamoDB unreachable: connections refused');
    await publishing;
    await s.proxies!.dynamodb.clear();
    const drainedAt = await s.waitForDrain({ timeoutMs: 90_000, quietMs: 2_000 });
    const ledger = await s.ledger(drainedAt);
    const batches = s.batchStats();
    const deferred =
      s.log.counts['warn: attempt log write failed; the record is queued for a later write'] ?? 0;
    report(
      `DynamoDB unreachable, ${cache} connection cache`,
      ledger,
      `${describeFaults([outage])}; ${batches.recordsLeft} records redelivered, ${deferred} attempt records queued (D2)`,
      s,
    );

    expectNoLoss(ledger);
    expect(batches.recordsLeft).toBeGreaterThan(0);
    // Cold: records fail at the connection lookup, before any send. Warm: deliveries go on from the
    // cache and their attempt records wait on the queue (docs/design.md §4 "Order after an
    // attempt"). Either way: no re-send.
    if (cache === 'warm') expect(deferred).toBeGreaterThan(0);
    expect(ledger.duplicateSends).toBe(0);
  },
  size(90_000, 180_000),
);

// The documented limit (docs/design.md §4 "Order after an attempt"): when the queue cannot take
// the attempt record either, the record is failed and the attempt may be sent again.
it('sends an attempt again only when the attempt log and its SQS fallback are both down', async () => {
  const s = await startStack({ ...options(), label: 'ddb-and-sqs' });
  stack = s;
  const app = 'app_ddb_and_sqs';
  const connections = await connectAll(s, app);
  await s.startDispatcher();
  const publishing = publishSteadily(s, {
    applicationId: app,
    connections,
    total: EVENTS,
    overMs: WINDOW_MS + 2_000,
  });
  await sleep(1_000);
  const logDown = s.proxies!.dynamodb.inject({
    fault: 'error',
    operations: ['DynamoDB_20120810.PutItem'],
    durationMs: WINDOW_MS,
    label: 'attempt log down: PutItem → 503',
  });
  const queueDown = s.proxies!.sqs.inject({
    fault: 'error',
    operations: ['AmazonSQS.SendMessage'],
    durationMs: WINDOW_MS,
    label: 'SendMessage → 503',
  });
  s.windows.push({
    label:
      'attempt record could be neither written nor queued (D2 limit): record redelivered, attempt sent again',
    from: logDown.startedAt - 2_000,
    to: logDown.startedAt + WINDOW_MS + 500,
  });
  await publishing;
  const drainedAt = await s.waitForDrain({ timeoutMs: 120_000, quietMs: 2_000 });
  const ledger = await s.ledger(drainedAt);
  report('attempt log and SQS SendMessage both down', ledger, describeFaults([logDown, queueDown]), s);

  expectNoLoss(ledger);
  expect(ledger.duplicateSends).toBeGreaterThan(0);
}, 180_000);
