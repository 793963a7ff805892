/**
 * Every port of the dispatcher core in memory except the sender and the log the caller gives,
 * for in-process measurements (bench/overhead.ts, batch-time.ts, volume.ts). Parked
 * deliveries go to `parked` unless a real store is given (volume.ts parks on dynalite, so
 * the cost model counts what parking writes).
 */

import type { ParkedItem } from '../../lambdas/core/parking';
import type { DispatcherDeps, HttpSender, Log, ParkedDeliveries } from '../../lambdas/core/ports';
import type { AttemptRecord, Connection, DeadLetter, DeliveryMessage } from '../../lambdas/core/types';
import { SECRET } from './fixtures';

export interface MemoryPorts {
  deps: DispatcherDeps;
  records: AttemptRecord[];
  scheduled: Array<{ delivery: DeliveryMessage; delaySeconds: number }>;
  deadLetters: DeadLetter[];
  /** What was parked (also when a real store took it). */
  parked: ParkedItem[];
  /** Forget what was recorded (between rounds), keeping the ports. */
  clear(): void;
}

export function memoryPorts(
  connections: Connection[],
  sender: HttpSender,
  log: Log,
  options: { parked?: Pick<ParkedDeliveries, 'park'> } = {},
): MemoryPorts {
  const byId = new Map(connections.map((c) => [c.connectionId, c]));
  const out: MemoryPorts = {
    records: [],
    scheduled: [],
    deadLetters: [],
    parked: [],
    clear() {
      out.records.length = 0;
      out.scheduled.length = 0;
      out.deadLetters.length = 0;
      out.parked.length = 0;
    },
    deps: {
      connections: {
        get: async (id) => byId.get(id),
        listByApplication: async (app) => connections.filter((c) => c.applicationId === app),
      },
      secrets: { current: async () => SECRET },
      sender,
      scheduler: {
        schedule: async (delivery, delaySeconds) => {
          out.scheduled.push({ delivery, delaySeconds });
        },
      },
      deadLetters: {
        put: async (letter) => {
          out.deadLetters.push(letter);
        },
      },
      parked: {
        park: async (item) => {
          out.parked.push(item);
          await options.parked?.park(item);
        },
      },
      health: { exhausted: async () => {}, delivered: async () => {} },
      attemptLog: {
        append: async (record) => {
          out.records.push(record);
          return 'written' as const;
        },
      },
      attemptLogFallback: {
        defer: async (record) => {
          out.records.push(record);
        },
      },
      clock: { now: () => Date.now() },
      log,
    },
  };
  return out;
}
