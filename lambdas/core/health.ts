/**
 * Endpoint health (docs/design.md §9): a pure state machine over the outcomes of a connection's
 * deliveries, and the one loop that applies it to a store with conditional writes, so that
 * concurrent dispatchers neither lose counts nor announce a transition twice.
 *
 *   healthy ──failingAfter exhausted in a row──▶ failing ──disableAfter in a row (opt-in)──▶ disabled
 *      ▲                                            │                                         │
 *      └──────────────── a delivery ────────────────┘             enabling the connection ────┘
 */

import { ConfigurationError } from './errors';

/** A recovery check to queue (core/probes.ts): the chain step it is for and when it is due. */
export interface ProbeCheck {
  seq: number;
  dueAtMs: number;
}

/** A connection's health states (docs/design.md §9), in order of decline. */
export const HEALTH_STATES = ['healthy', 'failing', 'disabled'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** Health of one connection, as stored beside it and shown by `connections get`. */
export interface ConnectionHealth {
  state: HealthState;
  /** Exhausted deliveries in a row (reset by a delivery or by enabling). */
  consecutiveFailures: number;
  failingSince?: string;
  lastSuccessAt?: string;
  lastFailureAt?: string;
  /**
   * Recovery probes (core/probes.ts): when the endpoint went down (the first exhausted delivery
   * since its last success), when the next check is due (absent: none waits), the checks made
   * in this chain, and the chain's step (a probe message of another step is stale).
   */
  downSince?: string;
  nextCheckAt?: string;
  checksMade?: number;
  checkSeq?: number;
  /** Bumped by every write: the condition of the next one (optimistic concurrency). */
  version: number;
}

/** The operational events (docs/design.md §9), one per transition. */
export type HealthTransition = 'connection.failing' | 'connection.disabled' | 'connection.recovered';

/** What happened to a connection that health reacts to. */
export type HealthEvent =
  /** A delivery's last attempt (the 4th of its chain) failed. */
  | { kind: 'exhausted'; at: string }
  /** An attempt was delivered (2xx). */
  | { kind: 'delivered'; at: string }
  /** An operator enabled the connection. */
  | { kind: 'enabled'; at: string };

export interface HealthThresholds {
  /** Exhausted deliveries in a row that make a connection `failing`. @default 3 */
  failingAfter: number;
  /** Exhausted deliveries in a row that disable it; absent: never (opt-in). */
  disableAfter?: number;
}

/** docs/design.md §9: `failing` after 3 exhausted deliveries in a row by default. */
export const DEFAULT_FAILING_AFTER = 3;
/** Highest threshold accepted: beyond it a connection would effectively never change state. */
export const MAX_HEALTH_THRESHOLD = 10_000;

/** The health of a connection nothing has been recorded for yet. */
export const INITIAL_HEALTH: Readonly<ConnectionHealth> = Object.freeze({
  state: 'healthy',
  consecutiveFailures: 0,
  version: 0,
});

export class HealthSettingsError extends ConfigurationError {
  constructor(
    readonly field: 'failingAfter' | 'disableAfter',
    readonly problem: string,
  ) {
    super('invalid_health_setting', `${field}: ${problem}`);
    this.name = 'HealthSettingsError';
  }
}

/**
 * Checks thresholds: whole numbers from 1 to {@link MAX_HEALTH_THRESHOLD}, and `disableAfter`
 * not below `failingAfter` (a connection is failing before it is disabled).
 * @throws HealthSettingsError naming the setting.
 */
export function validateThresholds(input: {
  failingAfter?: number;
  disableAfter?: number;
}): HealthThresholds {
  const check = (field: 'failingAfter' | 'disableAfter', value: number) => {
    if (!Number.isInteger(value) || value < 1 || value > MAX_HEALTH_THRESHOLD) {
      throw new HealthSettingsError(
        field,
        `must be a whole number from 1 to ${MAX_HEALTH_THRESHOLD}, got ${value}`,
      );
    }
  };
  const failingAfter = input.failingAfter ?? DEFAULT_FAILING_AFTER;
  check('failingAfter', failingAfter);
  if (input.disableAfter === undefined) return { failingAfter };
  check('disableAfter', input.disableAfter);
  if (input.disableAfter < failingAfter) {
    throw new HealthSettingsError(
      'disableAfter',
      `must be at least failingAfter (${failingAfter}), got ${input.disableAfter}`,
    );
  }
  return { failingAfter, disableAfter: input.disableAfter };
}

/** What an event does to a connection's health. */
export interface HealthStep {
  /** The health after the event (version not bumped: the store does that when it writes). */
  health: ConnectionHealth;
  /** False when nothing changed: no write unit is spent (a delivery while healthy). */
  write: boolean;
  /** Transitions to announce, in order, once the write has succeeded. */
  transitions: HealthTransition[];
  /** A recovery check to queue once the write has succeeded (core/probes.ts). */
  check?: ProbeCheck;
  /** The write enables the connection again (a probe delivered to one health disabled). */
  enable?: boolean;
}

/** The state machine: pure, total, and the only place the health rules live. */
export function nextHealth(
  current: ConnectionHealth | undefined,
  event: HealthEvent,
  thresholds: HealthThresholds,
): HealthStep {
  const now = current ?? INITIAL_HEALTH;
  switch (event.kind) {
    case 'delivered': {
      // A disabled connection stays disabled until an operator enables it, whatever in-flight
      // retries achieve meanwhile.
      if (now.state === 'disabled') return { health: now, write: false, transitions: [] };
      if (now.state === 'healthy' && now.consecutiveFailures === 0) {
        return { health: now, write: false, transitions: [] };
      }
      const health = withoutFailing({
        ...now,
        state: 'healthy',
        consecutiveFailures: 0,
        lastSuccessAt: event.at,
      });
      return {
        health,
        write: true,
        transitions: now.state === 'failing' ? ['connection.recovered'] : [],
      };
    }
    case 'exhausted': {
      const count = now.consecutiveFailures + 1;
      const health: ConnectionHealth = { ...now, consecutiveFailures: count, lastFailureAt: event.at };
      const transitions: HealthTransition[] = [];
      if (now.state === 'healthy' && count >= thresholds.failingAfter) {
        health.state = 'failing';
        health.failingSince = event.at;
        transitions.push('connection.failing');
      }
      if (
        health.state === 'failing' &&
        thresholds.disableAfter !== undefined &&
        count >= thresholds.disableAfter
      ) {
        health.state = 'disabled';
        transitions.push('connection.disabled');
      }
      return { health, write: true, transitions };
    }
    case 'enabled': {
      if (now.state === 'healthy' && now.consecutiveFailures === 0) {
        return { health: now, write: false, transitions: [] };
      }
      const health = withoutFailing({ ...now, state: 'healthy', consecutiveFailures: 0 });
      return {
        health,
        write: true,
        transitions: now.state === 'disabled' ? ['connection.recovered'] : [],
      };
    }
  }
}

function withoutFailing(health: ConnectionHealth): ConnectionHealth {
  const { failingSince: _gone, ...rest } = health;
  return rest;
}
