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

import {
  applyHealthEvent,
  type HealthEvent,
  type HealthStore,
  type HealthThresholds,
  type HealthTransition,
  needsHealthWrite,
} from './health';
import { type OperationalEvents, operationalEvent } from './parking';
import { isoTime } from './time';
import type { Clock, Connection, Log } from './types';

/** The log message of a health transition, logged at warn (local mode's log marks each by it). */
export function healthLogMessage(transition: HealthTransition): string {
  return `connection health: ${transition}`;
}

/** Connections remembered as "recorded a failure here"; beyond it the memory starts afresh. */
const MAX_REMEMBERED = 10_000;

export interface HealthTrackerDeps {
  health: HealthStore;
  events: OperationalEvents;
  clock: Clock;
  log: Log;
}

export interface HealthTracker {
  /** A delivery of this connection exhausted its chain (its last attempt failed). */
  exhausted(connection: Connection): Promise<void>;
  /** An attempt to this connection was delivered. */
  delivered(connection: Connection): Promise<void>;
}

export function createHealthTracker(deps: HealthTrackerDeps, thresholds: HealthThresholds): HealthTracker {
  const { log } = deps;
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

  async function apply(connection: Connection, kind: HealthEvent['kind']): Promise<void> {
    const id = connection.connectionId;
    const at = isoTime(deps.clock.now());
    try {
      const step = await applyHealthEvent(deps.health, id, { kind, at } as HealthEvent, thresholds);
      if (kind === 'exhausted') {
        if (failedHere.size >= MAX_REMEMBERED) failedHere.clear();
        failedHere.add(id);
      } else {
        failedHere.delete(id);
      }
      for (const transition of step.transitions) {
        const event = operationalEvent(transition, connection, step.health, at);
        log.warn(healthLogMessage(transition), {
          connectionId: id,
          applicationId: connection.applicationId,
          state: step.health.state,
          consecutiveFailures: step.health.consecutiveFailures,
        });
        try {
          await deps.events.publish(event);
        } catch (error) {
          log.error('operational event not published', {
            connectionId: id,
            event: transition,
            error: describe(error),
          });
        }
      }
    } catch (error) {
      log.warn('connection health not recorded; the delivery is not affected', {
        connectionId: id,
        health: kind,
        error: describe(error),
      });
    }
  }

  return {
    exhausted(connection) {
      return serially(connection.connectionId, () => apply(connection, 'exhausted'));
    },
    delivered(connection) {
      if (!failedHere.has(connection.connectionId) && !needsHealthWrite(connection.health)) {
        return Promise.resolve();
      }
      return serially(connection.connectionId, () => apply(connection, 'delivered'));
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
