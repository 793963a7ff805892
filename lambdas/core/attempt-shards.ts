/**
 * A connection's attempt-log shards (docs/design.md §5 "Shards"): over how
 * many partitions its attempts are spread, and the rule for raising that number.
 *
 * A connection keeps every count it has had as steps, oldest first: `count` places the attempts
 * of deliveries created (the time in their id) from `from` on. A delivery's placement therefore
 * never changes, so all its attempts, retries and redeliveries share one partition (and a
 * repeated write meets the record it repeats), and a raise loses no history: readers cover every
 * step. A raise takes effect RAISE_DELAY_MS after it is made, longer than any dispatcher caches
 * the connection (connectionCacheTtl, at most 30 s), so every writer knows of it in time.
 */

import { ValidationError } from './errors';
import { deliveryIdTimePrefix } from './ids';
import type { AttemptShardStep, Connection } from './types';

/** The most attempt-log shards one connection may have: 64 × ~900 healthy deliveries/s. */
export const MAX_ATTEMPT_SHARDS = 64;
/** How long after it is made a raise places new deliveries: twice the longest connection cache. */
export const RAISE_DELAY_MS = 60_000;
/** The step every connection starts from, and all it has until a raise: one partition. */
const UNSHARDED: AttemptShardStep = { count: 1, from: '1970-01-01T00:00:00.000Z' };

/** The steps a connection has had, oldest first; one unsharded step for one never raised. */
export function attemptShardSteps(
  connection: Pick<Connection, 'attemptShards'> | undefined,
): AttemptShardStep[] {
  const steps = connection?.attemptShards;
  return steps && steps.length > 0 ? steps : [UNSHARDED];
}

/** The count that places a delivery's attempts: the last step begun when the delivery was created. */
export function shardCountOf(steps: readonly AttemptShardStep[], deliveryId: string): number {
  // Delivery ids begin with their creation time, fixed width and sortable (core/ids.ts).
  const created = deliveryId.slice(0, deliveryIdTimePrefix(0).length);
  let count = 1;
  for (const step of steps) {
    if (deliveryIdTimePrefix(Date.parse(step.from)) <= created) count = step.count;
  }
  return count;
}

/** The count deliveries created now and later are placed under (the API and CLI show it). */
export function currentAttemptShards(connection: Pick<Connection, 'attemptShards'> | undefined): number {
  return attemptShardSteps(connection).at(-1)!.count;
}

/**
 * The connection's steps after raising it to `to` at `now`: a whole number above the current
 * count and at most MAX_ATTEMPT_SHARDS (ValidationError, field `attemptShards`, otherwise),
 * placing deliveries created from RAISE_DELAY_MS after `now`.
 */
export function raisedAttemptShards(
  connection: Pick<Connection, 'attemptShards'>,
  to: number,
  now: Date,
): AttemptShardStep[] {
  const steps = attemptShardSteps(connection);
  const current = steps.at(-1)!.count;
  if (!Number.isInteger(to) || to < 1 || to > MAX_ATTEMPT_SHARDS) {
    throw new ValidationError('attemptShards', `must be a whole number from 1 to ${MAX_ATTEMPT_SHARDS}`);
  }
  if (to <= current) {
    throw new ValidationError(
      'attemptShards',
      `can only be raised: the connection has ${current} shard${current === 1 ? '' : 's'}, got ${to}`,
    );
  }
  const from = new Date(Math.max(now.getTime() + RAISE_DELAY_MS, Date.parse(steps.at(-1)!.from) + 1));
  return [...steps, { count: to, from: from.toISOString() }];
}
