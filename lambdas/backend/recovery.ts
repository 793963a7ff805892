/**
 * What the dispatcher's recovery checks use (core/prober.ts, docs/design.md §9 "Recovery
 * probes"): the parked table's oldest delivery of a connection, claimed with the lease a Recover
 * takes; the Recover itself (management/parked.ts), so a check that finds the endpoint back
 * queues the rest exactly as the console's button does; and the retry queue for the next check.
 */

import type { Clock, ConnectionStore } from '../core/ports';
import type { ProbeQueue, RecoveryPorts } from '../core/probe-ports';
import type { ParkedTable } from '../core/stores';
import { NotFoundError } from '../management/errors';
import { ParkedDeliveriesAdmin } from '../management/parked';
import type { DeliveryQueue } from '../management/ports';

export function recoveryPorts(input: {
  parked: ParkedTable;
  queues: DeliveryQueue & ProbeQueue;
  connections: ConnectionStore;
  clock: Clock;
}): RecoveryPorts {
  const { parked, queues, connections } = input;
  const admin = new ParkedDeliveriesAdmin(
    { parked, retryQueue: queues },
    async (connectionId) => {
      const connection = await (connections.fresh ?? connections.get).call(connections, connectionId);
      if (!connection) throw new NotFoundError('connection', connectionId);
      return connection;
    },
    // No resent mark: the dispatcher only appends to the attempt log (least privilege), so a
    // Resend pressed in the same instant may queue one delivery twice (receivers de-duplicate).
    input.clock,
  );
  return {
    async claimOldest(connectionId, nowMs, untilMs) {
      const oldest = (await parked.idsOldestFirst(connectionId, { limit: 1 })).items[0];
      if (oldest === undefined) return { parked: false };
      const item = await parked.claim(connectionId, oldest, nowMs, untilMs);
      return item ? { parked: true, item } : { parked: true };
    },
    release: (connectionId, deliveryId, claimedUntil) =>
      parked.release(connectionId, deliveryId, claimedUntil),
    recover: (connectionId, ratePerSecond) => admin.recover(connectionId, { ratePerSecond }),
    queue: queues,
  };
}
