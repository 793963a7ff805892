/**
 * A connection's rate limit (deliveries per second, docs/design.md "Rate limits", decisions.md
 * D35): the rule of the field, and the decision the dispatcher takes before a send. The count
 * is shared by every dispatcher container and both queues through the RateCounter port (one
 * DynamoDB item per connection, second and shard, adapters/dynamodb/rate-windows.ts): each send
 * counts itself in the window of the second it starts in, and goes only if its count is within
 * the window's quota. A delivery over the quota is deferred, not attempted: put back on the
 * retry queue, unchanged, with a delay that aims it at the first window its place in the queue
 * fits (its count tells how many went before it).
 */

import { ValidationError } from './errors';
import type { RateCounter } from './ports';

export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 10_000;
/**
 * Sends one counter item takes per second at most. DynamoDB serves about 1,000 writes a second
 * on one partition key; a limit above this spreads its window over several items (shards),
 * each with its share of the quota, so no item is written more than about twice this often.
 */
export const SENDS_PER_COUNTER = 500;
/** SQS refuses DelaySeconds above 15 minutes: a deferral longer than this is taken again then. */
export const MAX_DEFERRAL_SECONDS = 900;

/**
 * Reads a `rateLimit` as the API and the CLI receive it: a whole number from 1 to 10,000;
 * `null` (or absent) clears it.
 * @throws ValidationError naming the field.
 */
export function validateRateLimit(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < MIN_RATE_LIMIT || raw > MAX_RATE_LIMIT) {
    throw new ValidationError(
      'rateLimit',
      `must be a whole number of deliveries per second from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT.toLocaleString('en-US')}, or null for none, got ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/** The limit that applies: the connection's own, else the stack's default, else none. */
export function effectiveRateLimit(
  own: number | undefined,
  stackDefault: number | undefined,
): number | undefined {
  return own ?? stackDefault;
}

/** Counter items one window of this limit is spread over. */
export function shardsOf(limit: number): number {
  return Math.ceil(limit / SENDS_PER_COUNTER);
}

/** Shard `shard`'s share of the limit: the shares of all shards add up to the limit exactly. */
export function quotaOf(limit: number, shards: number, shard: number): number {
  return Math.floor(((shard + 1) * limit) / shards) - Math.floor((shard * limit) / shards);
}

/** A delivery's shard: from its id, so every delivery of a connection spreads evenly. */
export function shardOf(deliveryId: string, shards: number): number {
  if (shards === 1) return 0;
  let hash = 0;
  for (let i = 0; i < deliveryId.length; i++) hash = (hash * 31 + deliveryId.charCodeAt(i)) | 0;
  return Math.abs(hash) % shards;
}

/** What the limiter decided for one send: go now, or wait this many whole seconds. */
export type RateDecision = { go: true } | { go: false; delaySeconds: number };

/**
 * The decision from a count: within the quota, go; else the delay that aims the delivery at the
 * window its place fits (the n-th over the quota waits ceil(n / quota) windows), at least one.
 */
export function decideRate(count: number, quota: number): RateDecision {
  if (count <= quota) return { go: true };
  const windows = Math.floor((count - 1) / quota);
  return { go: false, delaySeconds: Math.min(Math.max(1, windows), MAX_DEFERRAL_SECONDS) };
}

export interface RateLimiter {
  /** Counts one send of this delivery to the connection now, and decides. */
  take(connectionId: string, deliveryId: string, limit: number): Promise<RateDecision>;
}

/** The limiter over the shared counter; `now` in milliseconds (the dispatcher's clock). */
export function createRateLimiter(counter: RateCounter, now: () => number): RateLimiter {
  return {
    async take(connectionId, deliveryId, limit) {
      const shards = shardsOf(limit);
      const shard = shardOf(deliveryId, shards);
      const second = Math.floor(now() / 1000);
      const count = await counter.increment(connectionId, second, shard);
      return decideRate(count, quotaOf(limit, shards, shard));
    },
  };
}
