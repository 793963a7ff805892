/**
 * Endpoint health and parked deliveries under faults (docs/design.md §9):
 *
 * - DynamoDB refuses the parking and health writes (PutItem, UpdateItem → 503) just when
 *   deliveries exhaust their chains: those go to the DLQ instead (an infrastructure failure),
 *   the others are parked, health misses at most the counts of the window, and nothing is lost.
 * - A recovery whose re-queued deliveries are being delivered when the dispatcher is SIGKILLed
 *   resumes after the restart: every parked delivery ends delivered, with the same body.
 */
import { type Stack, startStack } from '../support/stack';
import { sleep } from '../support/wait';
import { describeFaults, expectNoLoss, killAndRestart, report, servicesInfo, size, until } from './helpers';

const EVENTS = size(10, 40);
/** Attempts 1-3 of a chain take 1 + 2 s; the 4th is sent about 7 s after the first. */
const BEFORE_4TH_ATTEMPT_MS = 4_500;
const WINDOW_MS = size(5_000, 8_000);

let stack: Stack | undefined;

afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

it(
  'loses nothing when the parking and health writes fail (DynamoDB PutItem/UpdateItem → 503)',
  async () => {
    const s = await startStack({
      services: servicesInfo(),
      label: 'park-down',
      visibilityTimeoutSeconds: 7,
      attemptTimeoutMs: 1_000,
      functionTimeoutMs: 6_500,
      proxies: true,
    });
    stack = s;
    const app = 'app_park_down';
    const failing = await s.connect(await s.addReceiver('fail'), app);
    const ok = await s.connect(await s.addReceiver('ok'), app);
    const connections = [failing.connection.connectionId, ok.connection.connectionId];
    await s.startDispatcher();
    await s.publishEvents(EVENTS, { applicationId: app, connections });
    await sleep(BEFORE_4TH_ATTEMPT_MS);
    const fault = s.proxies!.dynamodb.inject({
      fault: 'error',
      status: 503,
      operations: ['DynamoDB_20120810.PutItem', 'DynamoDB_20120810.UpdateItem'],
      durationMs: WINDOW_MS,
      label: 'parking and health writes down: PutItem, UpdateItem → 503',
    });
    await sleep(WINDOW_MS + 500);
    // After the outage: these exhaust normally and are parked.
    await s.publishEvents(EVENTS, { applicationId: app, connections });
    const drainedAt = await s.waitForDrain({ timeoutMs: 90_000, quietMs: 2_000 });
    const ledger = await s.ledger(drainedAt);
    const toDlq =
      s.log.counts['warn: parking failed; the delivery goes to the dead-letter queue instead'] ?? 0;
    const healthMissed =
      s.log.counts['warn: connection health not recorded; the delivery is not affected'] ?? 0;
    report(
      'parking and health writes failing',
      ledger,
      `${describeFaults([fault])}; ${toDlq} deliveries dead-lettered because they could not be parked, ${healthMissed} health updates not recorded`,
      s,
    );

    expectNoLoss(ledger);
    expect(fault.hits).toBeGreaterThan(0);
    expect(toDlq).toBeGreaterThan(0);
    expect(ledger.parkedByReason.exhausted! + (ledger.dlqByReason.exhausted ?? 0)).toBe(EVENTS * 2);
    expect(ledger.dlqByReason.exhausted).toBe(toDlq);
    expect(ledger.delivered).toBe(EVENTS * 2);
    const health = (await s.management.getConnection(failing.connection.connectionId)).health;
    // The failures after the outage were counted, whatever the outage cost.
    expect(health.state).toBe('failing');
    expect(health.consecutiveFailures).toBeGreaterThanOrEqual(EVENTS);
  },
  size(120_000, 180_000),
);

it(
  'resumes a recovery after the dispatcher is SIGKILLed while delivering it: every parked delivery delivered',
  async () => {
    const FUNCTION_TIMEOUT_MS = 8_000;
    const s = await startStack({
      services: servicesInfo(),
      label: 'recover-kill',
      visibilityTimeoutSeconds: FUNCTION_TIMEOUT_MS / 1000,
      attemptTimeoutMs: 2_000,
      functionTimeoutMs: FUNCTION_TIMEOUT_MS,
      childProcess: true,
    });
    stack = s;
    const app = 'app_recover_kill';
    const receiver = await s.addReceiver('fail');
    const { connection } = await s.connect(receiver, app);
    await s.startDispatcher();
    await s.publishEvents(EVENTS, { applicationId: app, connections: [connection.connectionId] });
    await s.waitForDrain({ timeoutMs: 60_000, quietMs: 1_000 });
    const parked = await s.management.listParked(connection.connectionId, { limit: 200 });
    expect(parked.data).toHaveLength(EVENTS);

    // The endpoint is back; recover at 5/s, and kill the dispatcher half-way through.
    receiver.behave('ok');
    const before = s.fleet.counters.verified;
    const result = await s.management.recoverConnection(connection.connectionId, { ratePerSecond: 5 });
    expect(result).toEqual({ requeued: EVENTS, remaining: 0 });
    await until(
      'half of the recovery delivered',
      () => s.fleet.counters.verified - before >= EVENTS / 2,
      60_000,
    );
    await killAndRestart(
      s,
      'in flight when the dispatcher was SIGKILLed during the recovery (redelivered)',
      FUNCTION_TIMEOUT_MS,
    );
    const drainedAt = await s.waitForDrain({ timeoutMs: 90_000, quietMs: 2_000 });
    const ledger = await s.ledger(drainedAt);
    report(
      'recovery interrupted by a dispatcher kill',
      ledger,
      `${EVENTS} parked deliveries recovered at 5/s; SIGKILL after ${s.fleet.counters.verified - before >= 0 ? 'half' : '?'} of them`,
      s,
    );

    expectNoLoss(ledger);
    expect(ledger.delivered).toBe(EVENTS);
    expect(ledger.parked).toBe(0);
    // Byte-identical bodies on every send of a delivery (the receivers hash each body).
    expect(ledger.checks.bodyChanged).toBe(0);
    expect((await s.management.getConnection(connection.connectionId)).health.state).toBe('healthy');
  },
  size(150_000, 240_000),
);
