import { recoveryPorts } from '../../../lambdas/backend/recovery';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { bodyOfEvent } from '../../../lambdas/core/envelope';
import type { ConnectionHealth } from '../../../lambdas/core/health';
import { createHealthTracker } from '../../../lambdas/core/health-tracker';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import {
  DEFAULT_RECOVERY_PROBES_MS,
  formatProbeSchedule,
  PROBE_HORIZON_MS,
  PROBE_STALE_MS,
  parseProbeSchedule,
  probeStep,
} from '../../../lambdas/core/probes';
import type { Connection } from '../../../lambdas/core/types';
import { connection, id, ok, userIdentified } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const WAITS = [60_000, 300_000, 900_000];
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** The dispatcher over memory ports, with recovery checks on at WAITS; `up` steers the receiver. */
function setup(conn: Connection) {
  const receiver = { up: false };
  const ports = memoryPorts([conn], { responder: () => (receiver.up ? ok(200) : ok(503)) });
  const { clock } = ports.deps;
  const health = createHealthTracker(
    { health: ports.connections.health, events: ports.events, clock, log: quiet, probes: ports.queues },
    { failingAfter: 3, disableAfter: 5, recoveryProbes: WAITS },
  );
  const recovery = recoveryPorts({
    parked: ports.parked,
    queues: ports.queues,
    connections: ports.connections,
    clock,
  });
  const dispatcher = createDispatcher(
    { ...ports.deps, health, recovery },
    {
      headerPrefix: 'X-Service',
      attemptTtlDays: 30,
      concurrency: 4,
      egress: { allowedPorts: [443], allowLoopback: false },
    },
  );
  /** Parks a delivery of a new event at `at` (4 attempts used), as settling would. */
  const park = async (at: number) => {
    const event = userIdentified('app_1');
    const deliveryId = deliveryIdFor(event.eventId, conn.connectionId, at);
    await ports.parked.park({
      deliveryId,
      connectionId: conn.connectionId,
      applicationId: 'app_1',
      eventId: event.eventId,
      reason: 'exhausted',
      attempts: 4,
      parkedAt: new Date(at + 7_000).toISOString(),
      body: bodyOfEvent(event),
      firstAttemptAt: new Date(at).toISOString(),
      expiresAt: Math.floor(at / 1000) + 86_400,
    });
    return deliveryId;
  };
  /** Moves the clock to the next queued check and runs it, as the retry queue would. */
  const nextCheck = async () => {
    const queued = ports.queues.probes.shift();
    if (!queued) throw new Error('no check is queued');
    ports.state.now += queued.delaySeconds * 1000;
    const body = JSON.stringify(queued.message);
    await dispatcher.processBatch([{ messageId: id('m'), body, source: 'retry' }], {
      remainingMs: () => 900_000,
    });
    return queued;
  };
  const stored = () => ports.state.connections.get(conn.connectionId)!;
  return { ports, health, receiver, park, nextCheck, stored };
}

describe('recovery probe schedule', () => {
  it('reads a setting: durations, or off; refuses anything else by name', () => {
    expect(parseProbeSchedule('3s,3s,3s')).toEqual([3_000, 3_000, 3_000]);
    expect(parseProbeSchedule(' 1m, 2h ,1d')).toEqual([60_000, 7_200_000, 86_400_000]);
    expect(parseProbeSchedule('off')).toBe(false);
    expect(() => parseProbeSchedule('3 sec')).toThrow(/recoveryProbes: "3 sec" is not a duration/);
    expect(() => parseProbeSchedule('0s')).toThrow(/from 1s to 7d/);
  });

  it('by default checks for at least 24 hours, spaced further and further apart, the last wait repeating', () => {
    expect(formatProbeSchedule(DEFAULT_RECOVERY_PROBES_MS)).toBe('1m,5m,15m,1h,3h');
    const dues = chain(DEFAULT_RECOVERY_PROBES_MS);
    expect(dues.at(-1)!).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(dues.at(-1)!).toBeLessThanOrEqual(PROBE_HORIZON_MS);
    expect(dues.slice(0, 6)).toEqual([60_000, 360_000, 1_260_000, 4_860_000, 15_660_000, 26_460_000]);
  });

  it('backs off along the schedule, repeats its last wait until the horizon, and restarts a lost chain', () => {
    const now = Date.parse('2026-11-21T15:00:00Z');
    const start = probeStep(undefined, { kind: 'exhausted' }, WAITS, now)!;
    expect(start.check).toEqual({ seq: 1, dueAtMs: now + 60_000 });
    const health: ConnectionHealth = {
      state: 'healthy',
      consecutiveFailures: 1,
      version: 1,
      ...start.fields,
    };
    expect(health.downSince).toBe('2026-11-21T15:00:00.000Z');
    // A chain already waits: another exhausted delivery changes nothing.
    expect(probeStep(health, { kind: 'exhausted' }, WAITS, now + 1_000)).toBeUndefined();
    const dues = chain(WAITS);
    expect(dues.slice(0, 4)).toEqual([60_000, 360_000, 1_260_000, 2_160_000]);
    expect(dues.at(-1)! + 900_000).toBeGreaterThan(PROBE_HORIZON_MS);
    // Ended at the horizon: no new chain while the endpoint stays down...
    const ended = { ...health, nextCheckAt: undefined, checkSeq: dues.length };
    expect(probeStep(ended, { kind: 'exhausted' }, WAITS, now + PROBE_HORIZON_MS)).toBeUndefined();
    // ...but a delivery that gets through checks at once, to recover what is parked.
    expect(probeStep(ended, { kind: 'delivered' }, WAITS, now + PROBE_HORIZON_MS)?.check?.dueAtMs).toBe(
      now + PROBE_HORIZON_MS,
    );
    // A chain whose message was lost is restarted by the next exhausted delivery.
    const waiting = { ...health, nextCheckAt: new Date(now).toISOString(), checkSeq: 9 };
    expect(probeStep(waiting, { kind: 'exhausted' }, WAITS, now + PROBE_STALE_MS + 1)?.check?.seq).toBe(10);
  });
});

/** When each check of a chain is due, ms after the endpoint went down, every check failing. */
function chain(waits: readonly number[]): number[] {
  const t0 = Date.parse('2026-11-21T15:00:00Z');
  const start = probeStep(undefined, { kind: 'exhausted' }, waits, t0)!;
  let health: ConnectionHealth = { state: 'healthy', consecutiveFailures: 1, version: 1, ...start.fields };
  const dues: number[] = [];
  let check = start.check;
  while (check) {
    dues.push(check.dueAtMs - t0);
    const step = probeStep(health, { kind: 'failed', seq: check.seq }, waits, check.dueAtMs)!;
    health = { ...health, nextCheckAt: undefined, ...step.fields };
    check = step.check;
  }
  return dues;
}

describe('recovery checks (core/prober.ts)', () => {
  it('sends the oldest parked delivery as its next attempt, marked probe, and parks it again on failure', async () => {
    const t = setup(connection('con_1'));
    const now = t.ports.state.now;
    const [oldest] = [await t.park(now - 3_000), await t.park(now - 2_000), await t.park(now - 1_000)];
    await t.health.exhausted(t.stored());
    expect(t.ports.queues.probes.map((p) => p.delaySeconds)).toEqual([60]);
    expect(t.stored().health?.nextCheckAt).toBe(new Date(now + 60_000).toISOString());

    // Not due yet: put back with the time left, nothing sent.
    t.ports.queues.probes[0]!.delaySeconds = 20;
    await t.nextCheck();
    expect(t.ports.state.sent).toHaveLength(0);
    expect(t.ports.queues.probes.map((p) => p.delaySeconds)).toEqual([40]);

    await t.nextCheck();
    expect(t.ports.state.sent.map((r) => r.headers['X-Service-Delivery'])).toEqual([oldest]);
    expect(t.ports.state.sent[0]!.headers['X-Service-Attempt']).toBe('5');
    expect(t.ports.state.records).toEqual([
      expect.objectContaining({ deliveryId: oldest, attempt: 5, trigger: 'probe', final: true }),
    ]);
    expect(t.ports.state.scheduled).toHaveLength(0); // no retry chain of 4: one attempt
    expect(t.ports.state.parked.find((p) => p.deliveryId === oldest)?.attempts).toBe(5);
    expect(t.ports.queues.probes.map((p) => p.delaySeconds)).toEqual([300]);
    // A check is not a new failure: health's count stays where the deliveries left it.
    expect(t.stored().health?.consecutiveFailures).toBe(1);

    await t.nextCheck();
    await t.nextCheck();
    expect(t.ports.state.sent.map((r) => r.headers['X-Service-Attempt'])).toEqual(['5', '6', '7']);
    // The last wait repeats (until the horizon), and the endpoint is still down since the first park.
    expect(t.ports.queues.probes.map((p) => p.delaySeconds)).toEqual([900]);
    expect(t.stored().health?.downSince).toBe(new Date(now).toISOString());
  });

  it('on a 2xx recovers every other parked delivery, oldest event first, and ends the chain', async () => {
    const t = setup(connection('con_1'));
    const now = t.ports.state.now;
    const newest = await t.park(now - 1_000);
    const oldest = await t.park(now - 9_000);
    const middle = await t.park(now - 5_000);
    await t.health.exhausted(t.stored());
    t.receiver.up = true;
    await t.nextCheck();
    expect(t.ports.state.sent.map((r) => r.headers['X-Service-Delivery'])).toEqual([oldest]);
    expect(t.ports.state.scheduled.map((s) => s.delivery.deliveryId)).toEqual([middle, newest]);
    expect(t.ports.state.scheduled.map((s) => s.delivery.attempt)).toEqual([5, 5]);
    expect(t.ports.state.parked).toHaveLength(0);
    expect(t.stored().health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
    expect(t.stored().health?.nextCheckAt).toBeUndefined();
    expect(t.stored().health?.downSince).toBeUndefined();
    expect(t.ports.queues.probes).toHaveLength(0);
  });

  it('never probes a connection its owner disabled, and stops a chain that was waiting', async () => {
    const waiting = { state: 'failing' as const, consecutiveFailures: 3, version: 4, checkSeq: 1 };
    const t = setup(
      connection('con_1', {
        enabled: false,
        health: { ...waiting, nextCheckAt: new Date(Date.parse('2026-11-21T15:01:00Z')).toISOString() },
      }),
    );
    await t.park(t.ports.state.now - 1_000);
    t.ports.queues.probes.push({
      message: { v: 1, type: 'probe', connectionId: 'con_1', seq: 1, dueAt: '2026-11-21T15:01:00.000Z' },
      delaySeconds: 60,
    });
    t.receiver.up = true;
    await t.nextCheck();
    expect(t.ports.state.sent).toHaveLength(0);
    expect(t.stored().enabled).toBe(false);
    expect(t.stored().health?.nextCheckAt).toBeUndefined();
    // An exhausted delivery (one in flight when it was disabled) starts no chain either.
    await t.health.exhausted(t.stored());
    expect(t.ports.queues.probes).toHaveLength(0);
  });

  it('a connection that opted out (recoveryProbes: false) starts no chain', async () => {
    const t = setup(connection('con_1', { recoveryProbes: false }));
    await t.park(t.ports.state.now - 1_000);
    await t.health.exhausted(t.stored());
    expect(t.ports.queues.probes).toHaveLength(0);
    expect(t.stored().health?.nextCheckAt).toBeUndefined();
  });

  it('probes a connection endpoint health disabled, and a 2xx enables it again and recovers the rest', async () => {
    const t = setup(connection('con_1'));
    const now = t.ports.state.now;
    const first = await t.park(now - 2_000);
    const second = await t.park(now - 1_000);
    // Five exhausted deliveries in a row: disabled (disableAfter 5), the chain started by the first.
    for (let i = 0; i < 5; i++) await t.health.exhausted(t.stored());
    expect(t.stored()).toMatchObject({ enabled: false, health: { state: 'disabled' } });
    await t.nextCheck(); // still down
    expect(t.stored().enabled).toBe(false);
    t.receiver.up = true;
    await t.nextCheck();
    expect(t.ports.state.sent.map((r) => r.headers['X-Service-Delivery'])).toEqual([first, first]);
    expect(t.stored()).toMatchObject({ enabled: true, health: { state: 'healthy', consecutiveFailures: 0 } });
    expect(t.ports.state.events.map((e) => e.type)).toEqual([
      'connection.failing',
      'connection.disabled',
      'connection.recovered',
    ]);
    expect(t.ports.state.scheduled.map((s) => s.delivery.deliveryId)).toEqual([second]);
  });

  it('a delivery that gets through while a check waits brings the check forward', async () => {
    const t = setup(connection('con_1'));
    await t.park(t.ports.state.now - 1_000);
    await t.health.exhausted(t.stored());
    await t.health.delivered(t.stored());
    expect(t.ports.queues.probes.map((p) => p.delaySeconds)).toEqual([60, 0]);
    expect(t.stored().health?.downSince).toBeUndefined();
    // The first message is stale now (its step was superseded): it does nothing.
    await t.nextCheck();
    expect(t.ports.state.sent).toHaveLength(0);
    t.receiver.up = true;
    await t.nextCheck();
    expect(t.ports.state.sent).toHaveLength(1);
    expect(t.ports.state.parked).toHaveLength(0);
  });
});
