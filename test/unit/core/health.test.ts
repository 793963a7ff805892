import {
  type ConnectionHealth,
  type HealthEvent,
  HealthSettingsError,
  type HealthThresholds,
  type HealthTransition,
  nextHealth,
  validateThresholds,
} from '../../../lambdas/core/health';
import {
  applyHealthEvent,
  HealthContentionError,
  needsHealthWrite,
} from '../../../lambdas/core/health-tracker';
import type { HealthStore, HealthWrite } from '../../../lambdas/core/ports';

const T = '2026-11-22T10:00:00.000Z';
const X: HealthEvent = { kind: 'exhausted', at: T };
const D: HealthEvent = { kind: 'delivered', at: T };
const E: HealthEvent = { kind: 'enabled', at: T };
const DEFAULTS: HealthThresholds = { failingAfter: 3 };
const WITH_DISABLE: HealthThresholds = { failingAfter: 3, disableAfter: 5 };

/** Runs events from no stored health; the state after each, and every transition in order. */
function run(events: HealthEvent[], thresholds: HealthThresholds) {
  let health: ConnectionHealth | undefined;
  const states: string[] = [];
  const transitions: HealthTransition[] = [];
  let writes = 0;
  for (const event of events) {
    const step = nextHealth(health, event, thresholds);
    if (step.write) writes++;
    health = step.health;
    states.push(`${health.state}:${health.consecutiveFailures}`);
    transitions.push(...step.transitions);
  }
  return { states, transitions, writes, health };
}

describe('health state machine', () => {
  it.each<[string, HealthEvent[], HealthThresholds, string[], HealthTransition[]]>([
    ['a delivery while healthy changes nothing', [D, D], DEFAULTS, ['healthy:0', 'healthy:0'], []],
    ['two exhausted deliveries stay healthy', [X, X], DEFAULTS, ['healthy:1', 'healthy:2'], []],
    [
      'the third exhausted delivery in a row turns failing',
      [X, X, X],
      DEFAULTS,
      ['healthy:1', 'healthy:2', 'failing:3'],
      ['connection.failing'],
    ],
    [
      'a delivery between failures resets the count',
      [X, X, D, X, X],
      DEFAULTS,
      ['healthy:1', 'healthy:2', 'healthy:0', 'healthy:1', 'healthy:2'],
      [],
    ],
    [
      'a delivery returns a failing connection to healthy',
      [X, X, X, X, D],
      DEFAULTS,
      ['healthy:1', 'healthy:2', 'failing:3', 'failing:4', 'healthy:0'],
      ['connection.failing', 'connection.recovered'],
    ],
    [
      'without disableAfter a connection is never disabled',
      Array(50).fill(X),
      DEFAULTS,
      [...['healthy:1', 'healthy:2'], ...Array.from({ length: 48 }, (_, i) => `failing:${i + 3}`)],
      ['connection.failing'],
    ],
    [
      'disableAfter 5 disables on the fifth in a row',
      [X, X, X, X, X],
      WITH_DISABLE,
      ['healthy:1', 'healthy:2', 'failing:3', 'failing:4', 'disabled:5'],
      ['connection.failing', 'connection.disabled'],
    ],
    [
      'disabled stays disabled through deliveries and failures',
      [X, X, X, X, X, D, X, D],
      WITH_DISABLE,
      [
        'healthy:1',
        'healthy:2',
        'failing:3',
        'failing:4',
        'disabled:5',
        'disabled:5',
        'disabled:6',
        'disabled:6',
      ],
      ['connection.failing', 'connection.disabled'],
    ],
    [
      'enabling a disabled connection recovers it',
      [X, X, X, X, X, E],
      WITH_DISABLE,
      ['healthy:1', 'healthy:2', 'failing:3', 'failing:4', 'disabled:5', 'healthy:0'],
      ['connection.failing', 'connection.disabled', 'connection.recovered'],
    ],
    [
      'enabling a failing connection resets it without a recovered event',
      [X, X, X, E],
      DEFAULTS,
      ['healthy:1', 'healthy:2', 'failing:3', 'healthy:0'],
      ['connection.failing'],
    ],
    [
      'equal thresholds fail and disable on the same delivery',
      [X, X],
      { failingAfter: 2, disableAfter: 2 },
      ['healthy:1', 'failing:2'].slice(0, 1).concat(['disabled:2']),
      ['connection.failing', 'connection.disabled'],
    ],
    ['failingAfter 1 fails at once', [X], { failingAfter: 1 }, ['failing:1'], ['connection.failing']],
  ])('%s', (_name, events, thresholds, states, transitions) => {
    const result = run(events, thresholds);
    expect(result.states).toEqual(states);
    expect(result.transitions).toEqual(transitions);
  });

  it('writes nothing for a delivery while healthy (no write unit), and on every failure', () => {
    expect(run([D, D, D], DEFAULTS).writes).toBe(0);
    expect(run([X, D, D], DEFAULTS).writes).toBe(2);
  });

  it('keeps failingSince from the transition until recovery', () => {
    const failing = run([X, X, { kind: 'exhausted', at: '2026-11-22T11:00:00.000Z' }, X], DEFAULTS).health!;
    expect(failing.failingSince).toBe('2026-11-22T11:00:00.000Z');
    const back = nextHealth(failing, { kind: 'delivered', at: '2026-11-22T12:00:00.000Z' }, DEFAULTS).health;
    expect(back.failingSince).toBeUndefined();
    expect(back.lastSuccessAt).toBe('2026-11-22T12:00:00.000Z');
    expect(back.lastFailureAt).toBe(T);
  });

  it('asks for a write on a delivery only when the cached health is not clean', () => {
    expect(needsHealthWrite(undefined)).toBe(false);
    expect(needsHealthWrite({ state: 'healthy', consecutiveFailures: 0, version: 4 })).toBe(false);
    expect(needsHealthWrite({ state: 'healthy', consecutiveFailures: 1, version: 4 })).toBe(true);
    expect(needsHealthWrite({ state: 'failing', consecutiveFailures: 3, version: 4 })).toBe(true);
  });
});

describe('health thresholds', () => {
  it.each([
    [{}, { failingAfter: 3 }],
    [{ failingAfter: 5 }, { failingAfter: 5 }],
    [{ disableAfter: 10 }, { failingAfter: 3, disableAfter: 10 }],
    [
      { failingAfter: 2, disableAfter: 2 },
      { failingAfter: 2, disableAfter: 2 },
    ],
  ])('accepts %j', (input, expected) => {
    expect(validateThresholds(input)).toEqual(expected);
  });

  it.each([
    [{ failingAfter: 0 }, 'failingAfter'],
    [{ failingAfter: 1.5 }, 'failingAfter'],
    [{ disableAfter: -1 }, 'disableAfter'],
    [{ failingAfter: 5, disableAfter: 4 }, 'disableAfter'],
    [{ failingAfter: 20_000 }, 'failingAfter'],
  ])('refuses %j naming %s', (input, field) => {
    expect(() => validateThresholds(input)).toThrow(HealthSettingsError);
    expect(() => validateThresholds(input)).toThrow(new RegExp(`^${field}:`));
  });
});

/** A store with DynamoDB's conditional-write semantics; `interleave` lets a rival write between a read and a write. */
class FakeStore implements HealthStore {
  health: ConnectionHealth | undefined;
  writes = 0;
  conflicts = 0;
  exists = true;
  beforeWrite?: () => Promise<void>;

  async read() {
    return this.health ? { ...this.health } : undefined;
  }

  async write(_id: string, next: ConnectionHealth, expected: number): Promise<HealthWrite> {
    const hook = this.beforeWrite;
    this.beforeWrite = undefined;
    await hook?.();
    if (!this.exists) return 'missing';
    if ((this.health?.version ?? 0) !== expected) {
      this.conflicts++;
      return 'conflict';
    }
    this.health = { ...next };
    this.writes++;
    return 'written';
  }
}

describe('health under concurrent dispatchers (conditional writes)', () => {
  it('loses no count when ten dispatchers record failures at once, and announces failing once', async () => {
    const store = new FakeStore();
    const steps = await Promise.all(
      Array.from({ length: 10 }, () => applyHealthEvent(store, 'con_1', X, DEFAULTS)),
    );
    expect(store.health?.consecutiveFailures).toBe(10);
    expect(store.health?.state).toBe('failing');
    expect(steps.flatMap((s) => s.transitions)).toEqual(['connection.failing']);
    expect(store.writes).toBe(10);
  });

  it('does not flap when a delivery and a failure race: each is applied to what the other wrote', async () => {
    const store = new FakeStore();
    store.health = { state: 'failing', consecutiveFailures: 3, failingSince: T, version: 3 };
    // The delivery reads version 3, then a failure lands before its write: it must read again.
    store.beforeWrite = async () => {
      await applyHealthEvent(store, 'con_1', X, DEFAULTS);
    };
    const step = await applyHealthEvent(store, 'con_1', D, DEFAULTS);
    expect(store.conflicts).toBe(1);
    expect(step.transitions).toEqual(['connection.recovered']);
    expect(store.health).toMatchObject({ state: 'healthy', consecutiveFailures: 0, version: 5 });
  });

  it('announces disabled once when two failures cross disableAfter together', async () => {
    const store = new FakeStore();
    store.health = { state: 'failing', consecutiveFailures: 4, version: 4 };
    const steps = await Promise.all([
      applyHealthEvent(store, 'con_1', X, WITH_DISABLE),
      applyHealthEvent(store, 'con_1', X, WITH_DISABLE),
    ]);
    expect(steps.flatMap((s) => s.transitions)).toEqual(['connection.disabled']);
    expect(store.health).toMatchObject({ state: 'disabled', consecutiveFailures: 6 });
  });

  it('writes nothing and announces nothing for a deleted connection', async () => {
    const store = new FakeStore();
    store.exists = false;
    const step = await applyHealthEvent(store, 'con_1', X, { failingAfter: 1 });
    expect(step.transitions).toEqual([]);
    expect(store.writes).toBe(0);
  });

  it('gives up with a named error when every try loses the race', async () => {
    const store = new FakeStore();
    store.write = async () => 'conflict';
    await expect(applyHealthEvent(store, 'con_1', X, DEFAULTS)).rejects.toBeInstanceOf(HealthContentionError);
  });
});
