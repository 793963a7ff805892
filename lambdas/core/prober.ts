/**
 * One recovery check (docs/design.md §9 "Recovery probes"), when its probe message comes round
 * on the retry queue: re-delayed while not yet due (SQS delays stop at 15 minutes); dropped when
 * its chain moved on; stopped for a connection its owner disabled or opted out; otherwise the
 * connection's oldest parked delivery is claimed and sent once more, as its next attempt
 * (`trigger: 'probe'` in the attempt log). A failure parks it again and queues the next check
 * (health-tracker.ts); a 2xx enables a connection endpoint health disabled, and recovers the
 * rest through the console's Recover, oldest event first, within the connection's rate limit.
 */

import type { Attempter, Run } from './attempt';
import { MAX_ATTEMPT } from './constants';
import { factsOfBody } from './envelope';
import { infra } from './errors';
import { recoveryMessage } from './parking';
import type { DispatcherDeps, HealthTracker } from './ports';
import type { RecoveryPorts } from './probe-ports';
import { notProbed } from './probes';
import { effectiveRateLimit } from './rate-limit';
import type { Connection, DeliveryMessage, ProbeMessage } from './types';

/** Deliveries a second a recovery queues when the connection has no rate limit (the console's Recover default). */
export const DEFAULT_RECOVERY_RATE = 10;
/** The fastest a recovery queues, whatever the connection's limit (management/parked.ts). */
const MAX_RECOVERY_RATE = 500;
/** How long a check's claim keeps a Recover off the delivery it sends (management/parked.ts's lease). */
const CHECK_LEASE_MS = 5 * 60_000;
/** SQS's longest message delay. */
const MAX_DELAY_S = 900;

type Deps = Pick<DispatcherDeps, 'connections' | 'clock' | 'log' | 'metrics' | 'recovery'> & {
  health: Pick<HealthTracker, 'probed'>;
};

export interface ProberOptions {
  defaultRateLimit?: number;
  rateLimitCeiling?: number;
}

export type Prober = (message: ProbeMessage, run: Run) => Promise<void>;

export function createProber(deps: Deps, attempter: Attempter, options: ProberOptions): Prober {
  return (message, run) => check(deps, attempter, options, message, run);
}

async function check(
  deps: Deps,
  attempter: Attempter,
  options: ProberOptions,
  message: ProbeMessage,
  run: Run,
): Promise<void> {
  const { connectionId, seq } = message;
  const ports = deps.recovery;
  const probed = deps.health.probed;
  if (!ports || !probed) {
    deps.log.info('recovery check dropped: recovery probes are off', { connectionId });
    return;
  }
  const nowMs = deps.clock.now();
  const waitS = Math.ceil((Date.parse(message.dueAt) - nowMs) / 1000);
  if (waitS > 0) {
    await infra('probes.queue', { connectionId }, () =>
      ports.queue.queue(message, Math.min(waitS, MAX_DELAY_S)),
    );
    return;
  }
  const read = deps.connections.fresh ?? deps.connections.get;
  const connection = await infra('connections.get', { connectionId }, () =>
    read.call(deps.connections, connectionId),
  );
  // A later step of the chain (or its end) superseded this message: nothing to do.
  if (!connection || connection.health?.checkSeq !== seq || !connection.health.nextCheckAt) return;
  const stop = (reason: string) => {
    deps.log.info('recovery checks stopped', { connectionId, reason });
    return probed(connection, { kind: 'stop', seq });
  };
  const why = notProbed(connection);
  if (why) return stop(why);
  const claimed = await infra('parked.claim', { connectionId }, () =>
    ports.claimOldest(connectionId, nowMs, nowMs + CHECK_LEASE_MS),
  );
  if (!claimed.parked) return stop('nothing_parked');
  // A Recover holds the oldest: its sends are this check's answer; the chain goes on meanwhile.
  if (!claimed.item) return probed(connection, { kind: 'failed', seq });
  const item = claimed.item;
  if (item.attempts >= MAX_ATTEMPT) return stop('attempt_numbers_used');
  const delivery: DeliveryMessage = { ...recoveryMessage(item), probe: true };
  deps.metrics?.record({ kind: 'recoveryCheck' });
  const done = await attempter.deliverTo(delivery, { id: connectionId, connection }, factsOfBody(item.body), {
    ...run,
    rateLimited: false,
  });
  if ('deferred' in done || done.outcome !== 'delivered') {
    deps.log.info('recovery check failed; the delivery is parked again', {
      connectionId,
      deliveryId: item.deliveryId,
      attempt: delivery.attempt,
    });
    return probed(connection, { kind: 'failed', seq });
  }
  await recovered(deps, ports, options, connection, item);
}

/** A check delivered: the connection enabled again if health had disabled it, then the rest queued. */
async function recovered(
  deps: Deps,
  ports: RecoveryPorts,
  options: ProberOptions,
  connection: Connection,
  item: { deliveryId: string; claimedUntil: number },
): Promise<void> {
  const { connectionId } = connection;
  deps.metrics?.record({ kind: 'recovery' });
  // Enabled first: the deliveries queued next are judged against the connection as it is then.
  await deps.health.probed!(connection, { kind: 'recovered' });
  await infra('parked.release', { connectionId }, () =>
    ports.release(connectionId, item.deliveryId, item.claimedUntil),
  );
  const rate = Math.min(
    effectiveRateLimit(connection.rateLimit, options.defaultRateLimit, options.rateLimitCeiling) ??
      DEFAULT_RECOVERY_RATE,
    MAX_RECOVERY_RATE,
  );
  const { requeued, remaining } = await infra('parked.recover', { connectionId }, () =>
    ports.recover(connectionId, rate),
  );
  deps.log.info('endpoint answered a recovery check; its parked deliveries are queued, oldest first', {
    connectionId,
    requeued,
    remaining,
    ratePerSecond: rate,
  });
  // More than one Recover's share: check again once the queued ones have gone out.
  if (remaining > 0) {
    await deps.health.probed!(connection, { kind: 'resume', afterMs: Math.ceil(requeued / rate) * 1000 });
  }
}
