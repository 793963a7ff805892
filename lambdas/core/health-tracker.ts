/**
 * What the dispatcher does about endpoint health after an attempt (docs/design.md §9): counts an
 * exhausted delivery, resets the count on a delivery, and announces each transition once.
 *
 * A delivered attempt to a healthy connection costs nothing: whether health needs a write is
 * judged on the connection record the dispatcher already holds (cached), plus the connections
 * this process itself recorded failures for since (another dispatcher's failures are seen
 * within the connection cache time). Health never fails a record: a write that cannot be made
 * is logged, and the delivery goes on (docs/reliability.md).
 */

import { InfrastructureError } from './errors';
import {
  type ConnectionHealth,
  type HealthEvent,
  type HealthState,
  type HealthStep,
  type HealthThresholds,
  type HealthTransition,
  nextHealth,
  type ProbeCheck,
} from './health';
import { operationalEvent } from './parking';
import type { HealthStore, HealthTracker, HealthTrackerDeps } from './ports';
import { eventStep, probedStep, probeMessage } from './probes';
import { isoTime } from './time';
import type { Connection } from './types';

/**
 * Tries before giving up on a contended connection (each try is one read and one write). Each
 * round of a race has one winner, so this many dispatchers may record at the same moment;
 * within one dispatcher the core queues its own updates per connection (no self-contention).
 */
export const HEALTH_WRITE_TRIES = 16;

export class HealthContentionError extends InfrastructureError {
  constructor(readonly connectionId: string) {
    super(
      'health.write',
      { connectionId },
      {
        code: 'health_contended',
        message: `health of ${connectionId} kept changing under ${HEALTH_WRITE_TRIES} writers; not recorded`,
      },
    );
    this.name = 'HealthContentionError';
  }
}

/**
 * Applies an event to a connection's stored health: read, decide with {@link nextHealth},
 * write conditionally on the version read, and on a lost race read again. A count is never
 * lost (every winner saw the count before it) and a transition is returned only to the one
 * writer that made it, so it is announced once.
 */
export function applyHealthEvent(
  store: HealthStore,
  connectionId: string,
  event: HealthEvent,
  thresholds: HealthThresholds,
): Promise<HealthStep> {
  return applyHealthStep(store, connectionId, (current) => nextHealth(current, event, thresholds));
}

/** {@link applyHealthEvent} for any decision over the health read (probe steps included). */
export async function applyHealthStep(
  store: HealthStore,
  connectionId: string,
  decide: (current: ConnectionHealth | undefined) => HealthStep,
): Promise<HealthStep> {
  for (let tries = 0; tries < HEALTH_WRITE_TRIES; tries++) {
    const current = await store.read(connectionId);
    const step = decide(current);
    if (!step.write) return step;
    const version = current?.version ?? 0;
    const next = { ...step.health, version: version + 1 };
    const written = await store.write(connectionId, next, version, step.enable);
    if (written === 'written') return { ...step, health: next };
    // A deleted connection has no health to keep, and nothing to announce.
    if (written === 'missing') return { health: next, write: false, transitions: [] };
  }
  throw new HealthContentionError(connectionId);
}

/** The log message of a health transition, logged at warn (local mode's log marks each by it). */
export function healthLogMessage(transition: HealthTransition): string {
  return `connection health: ${transition}`;
}

/** The state a connection enters by each transition. */
const STATE_ENTERED: Readonly<Record<HealthTransition, HealthState>> = {
  'connection.failing': 'failing',
  'connection.disabled': 'disabled',
  'connection.recovered': 'healthy',
};

/** Connections remembered as "recorded a failure here"; beyond it the memory starts afresh. */
const MAX_REMEMBERED = 10_000;

/** The stack's recovery-probe schedule beside the thresholds; absent or false: no probes. */
export interface TrackerSettings extends HealthThresholds {
  recoveryProbes?: readonly number[] | false;
}

export function createHealthTracker(deps: HealthTrackerDeps, settings: TrackerSettings): HealthTracker {
  const { log } = deps;
  const { recoveryProbes, ...thresholds } = settings;
  const waits = recoveryProbes || undefined;
  /** Connections this process recorded a failure for and has not seen delivered since. */
  const failedHere = new Set<string>();
  /** One update at a time per connection within this process: no self-contention. */
  const chains = new Map<string, Promise<void>>();

  function serially(connectionId: string, run: () => Promise<void>): Promise<void> {
    const previous = chains.get(connectionId) ?? Promise.resolve();
    const next = previous.then(run, run);
    chains.set(connectionId, next);
    void next.finally(() => {
      if (chains.get(connectionId) === next) chains.delete(connectionId);
    });
    return next;
  }

  async function apply(connection: Connection, kind: string, decide: Decide): Promise<void> {
    const id = connection.connectionId;
    const nowMs = deps.clock.now();
    const at = isoTime(nowMs);
    try {
      const step = await applyHealthStep(deps.health, id, (current) => decide(current, at, nowMs));
      if (kind === 'exhausted') {
        if (failedHere.size >= MAX_REMEMBERED) failedHere.clear();
        failedHere.add(id);
      } else if (kind === 'delivered') {
        failedHere.delete(id);
      }
      for (const transition of step.transitions) await announce(deps, connection, transition, step, at);
      if (step.check) await queueCheck(deps, connection, step.check, nowMs);
    } catch (error) {
      // Contention is many writers at once, not a failing table.
      if (!(error instanceof HealthContentionError)) {
        deps.metrics?.record({ kind: 'infrastructure', dependency: 'dynamodb' });
      }
      log.warn('connection health not recorded; the delivery is not affected', {
        connectionId: id,
        health: kind,
        error: describe(error),
      });
    }
  }

  /** A health event, with the probe step it brings when this connection is probed. */
  const onEvent =
    (connection: Connection, kind: 'exhausted' | 'delivered'): Decide =>
    (current, at, nowMs) =>
      eventStep(current, nextHealth(current, { kind, at }, thresholds), kind, connection, waits, nowMs);

  return {
    exhausted(connection) {
      return serially(connection.connectionId, () =>
        apply(connection, 'exhausted', onEvent(connection, 'exhausted')),
      );
    },
    delivered(connection) {
      if (!failedHere.has(connection.connectionId) && !needsHealthWrite(connection.health)) {
        return Promise.resolve();
      }
      return serially(connection.connectionId, () =>
        apply(connection, 'delivered', onEvent(connection, 'delivered')),
      );
    },
    probed(connection, event) {
      return serially(connection.connectionId, () =>
        apply(connection, `probe ${event.kind}`, (current, at, nowMs) =>
          probedStep(current, event, thresholds, waits ?? [], at, nowMs),
        ),
      );
    },
  };
}

type Decide = (current: ConnectionHealth | undefined, at: string, nowMs: number) => HealthStep;

async function announce(
  deps: HealthTrackerDeps,
  connection: Connection,
  transition: HealthTransition,
  step: HealthStep,
  at: string,
) {
  const id = connection.connectionId;
  deps.metrics?.record({ kind: 'health', state: STATE_ENTERED[transition] });
  const event = operationalEvent(transition, connection, step.health, at);
  deps.log.warn(healthLogMessage(transition), {
    connectionId: id,
    applicationId: connection.applicationId,
    state: step.health.state,
    consecutiveFailures: step.health.consecutiveFailures,
  });
  try {
    await deps.events.publish(event);
  } catch (error) {
    deps.metrics?.record({ kind: 'infrastructure', dependency: 'sns' });
    deps.log.error('operational event not published', {
      connectionId: id,
      event: transition,
      error: describe(error),
    });
  }
}

/**
 * Queues the check this writer decided. A send that fails leaves the chain waiting on a
 * message that never comes: the next exhausted delivery restarts it (core/probes.ts PROBE_STALE_MS).
 */
async function queueCheck(
  deps: HealthTrackerDeps,
  connection: Connection,
  check: ProbeCheck,
  nowMs: number,
): Promise<void> {
  if (!deps.probes) return;
  const delaySeconds = Math.max(0, Math.ceil((check.dueAtMs - nowMs) / 1000));
  try {
    await deps.probes.queue(probeMessage(connection.connectionId, check), delaySeconds);
  } catch (error) {
    deps.metrics?.record({ kind: 'infrastructure', dependency: 'sqs' });
    deps.log.error('recovery check not queued; the next exhausted delivery starts the checks again', {
      connectionId: connection.connectionId,
      error: describe(error),
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Whether a delivered attempt needs to touch stored health at all, judged on a cached copy: the
 * tracker's own question (when to write), asked here so a healthy delivery never leaves it.
 */
export function needsHealthWrite(health: ConnectionHealth | undefined): boolean {
  // A waiting recovery check is brought forward by a delivery (core/probes.ts).
  return (
    health !== undefined &&
    (health.state !== 'healthy' ||
      health.consecutiveFailures > 0 ||
      health.nextCheckAt !== undefined ||
      health.downSince !== undefined)
  );
}
