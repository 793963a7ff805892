/**
 * A connection's rate limit (deliveries per second, docs/design.md §4 "Rate limits"): the rule of
 * the field, and the decision the dispatcher takes before a send. The count
 * is shared by every dispatcher container and both queues through the RateCounter port (one
 * DynamoDB item per connection, second and shard, adapters/dynamodb/rate-windows.ts): each send
 * counts itself in the window of the second it starts in, and goes only if its count is within
 * the window's quota. A send within the quota does not go at once but at its slot, spread
 * evenly over the second: the c-th count of a second of quota q goes at `(c - 1) / q` s into it
 * (or at once when that moment has passed), so a receiver never gets a second's allowance in
 * one clump, and no sliding second holds much more than the limit (docs/performance.md §9). A
 * delivery over the quota is deferred, not attempted: put back on the retry queue, unchanged,
 * with a delay that aims it at the first window its place in the queue fits (its count tells
 * how many went before it).
 */

import { MAX_RATE_LIMIT, MIN_RATE_LIMIT } from './constants';
import { ValidationError } from './errors';
import type { RateCounter, RateWindowCount } from './ports';

// Declared with the other fixed numbers, so the connection's schema (lambdas/shapes/connection.ts)
// reads them without importing the ports.
export { MAX_RATE_LIMIT, MIN_RATE_LIMIT };
/**
 * A deployment's ceiling unless its operator sets another (`rateLimitCeiling`,
 * WEBHOOKS_RATE_LIMIT_CEILING): no connection's limit goes above it, whatever it asks for.
 */
export const DEFAULT_RATE_LIMIT_CEILING = 1_000;
/**
 * Sends one counter item takes per second at most. DynamoDB serves about 1,000 writes a second
 * on one partition key; a limit above this spreads its window over several items (shards),
 * each with its share of the quota, so no item is written more than about twice this often.
 */
export const SENDS_PER_COUNTER = 500;
/** SQS refuses DelaySeconds above 15 minutes: a deferral longer than this is taken again then. */
export const MAX_DEFERRAL_SECONDS = 900;

/**
 * Reads a `rateLimit` as the API and the CLI receive it: a whole number from 1 to the
 * deployment's ceiling; `null` (or absent) clears it.
 * @throws ValidationError naming the field.
 */
export function validateRateLimit(raw: unknown, ceiling = MAX_RATE_LIMIT): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < MIN_RATE_LIMIT || raw > MAX_RATE_LIMIT) {
    throw new ValidationError(
      'rateLimit',
      `must be a whole number of deliveries per second from ${MIN_RATE_LIMIT} to ${ceiling.toLocaleString('en-US')}, or null for none, got ${JSON.stringify(raw)}`,
    );
  }
  if (raw > ceiling) {
    throw new ValidationError(
      'rateLimit',
      `must be at most ${ceiling.toLocaleString('en-US')} deliveries per second: the ceiling this deployment's operator set, got ${raw}`,
    );
  }
  return raw;
}

/**
 * The limit that applies: the connection's own, else the stack's default, else none; never above
 * the deployment's ceiling (a limit saved before the ceiling was lowered is held to it too).
 */
export function effectiveRateLimit(
  own: number | undefined,
  stackDefault: number | undefined,
  ceiling = MAX_RATE_LIMIT,
): number | undefined {
  const limit = own ?? stackDefault;
  return limit === undefined ? undefined : Math.min(limit, ceiling);
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

/**
 * What the limiter decided for one send: go after `waitMs` (0: at once, always under a second),
 * or be deferred by this many whole seconds.
 */
export type RateDecision = ({ go: true; waitMs: number } | { go: false; delaySeconds: number }) & {
  /**
   * Set when the limiter counted this send twice (the first count came back after its second,
   * or was far behind its slot, and went unused): the counter items hold one count more than
   * sends for it.
   */
  countedAgain?: true;
};

/**
 * The decision from a count: within the quota, go at the count's slot in the second (`atMs`
 * into it: now is `nowMs` into it); else the delay that aims the delivery at the window its
 * place fits (the n-th over the quota waits ceil(n / quota) windows), at least one.
 */
export function decideRate(count: number, quota: number, nowMs = 0): RateDecision {
  if (count <= quota) return { go: true, waitMs: Math.max(0, slotOf(count, quota) - nowMs) };
  const windows = Math.floor((count - 1) / quota);
  return { go: false, delaySeconds: Math.min(Math.max(1, windows), MAX_DEFERRAL_SECONDS) };
}

/**
 * The moment, in milliseconds into its second, the `count`-th send of a window of `quota` goes:
 * the quota spread evenly over the second, the first at its start, the last `1/quota` s before
 * its end.
 */
export function slotOf(count: number, quota: number): number {
  return Math.floor(((count - 1) * 1000) / quota);
}

/**
 * How far behind its slot a send may still go at once, ms. Further behind, it would join a clump
 * late in its second that the next second's first sends follow closely (a sliding second of up
 * to twice the limit); it waits for the next second and is counted there instead. Any sliding
 * second then holds at most about the limit plus this share of it (25 %).
 */
export const SLOT_TOLERANCE_MS = 250;

export interface RateLimiter {
  /**
   * Counts one send of this delivery to the connection now, and decides when it goes.
   * `canWaitMs`: how long the invocation can spare to wait for the next second and count again
   * there (0, the default: never).
   */
  take(
    connectionId: string,
    deliveryId: string,
    limit: number,
    options?: { canWaitMs?: number },
  ): Promise<RateDecision>;
}

/**
 * The limiter over the shared counter; `now` in milliseconds (the dispatcher's clock), `sleep`
 * the clock's own (a test's fake clock advances).
 */
export function createRateLimiter(
  counter: RateCounter,
  now: () => number,
  sleep?: (ms: number) => Promise<void>,
): RateLimiter {
  return {
    async take(connectionId, deliveryId, limit, options = {}) {
      const shards = shardsOf(limit);
      const shard = shardOf(deliveryId, shards);
      const quota = quotaOf(limit, shards, shard);
      for (let tries = 1; ; tries++) {
        const second = Math.floor(now() / 1000);
        const count = await counter.increment(connectionId, second, shard);
        // The wait runs from when the count came back: a slow write only shortens it.
        const into = now() - second * 1000;
        if (into >= 1000) {
          // The count came back after its second ended: sent now, it would land in the next
          // second on top of that second's own quota. Count again in the second it is now
          // (once; a write that slow twice defers the delivery instead of sending out of turn).
          if (tries >= 2) return { go: false, delaySeconds: 1, countedAgain: true };
          continue;
        }
        const decision: RateDecision = decideRate(count, quota, into);
        if (tries >= 2) decision.countedAgain = true;
        const behind = decision.go && into - slotOf(count, quota) > SLOT_TOLERANCE_MS;
        const toNext = 1000 - into;
        // Far behind its slot (work arriving late in a second finds the early slots passed):
        // wait for the next second and count again there, when there is time; else go now.
        if (!behind || tries >= 2 || !sleep || toNext > (options.canWaitMs ?? 0)) return decision;
        await sleep(toNext);
      }
    },
  };
}

/** Seconds of counter items the activity of a connection is read from. */
export const ACTIVITY_SECONDS = 60;
/**
 * Counter shards the activity reads at most, whatever the limit: deliveries spread over the
 * shards evenly (by delivery id), so a higher limit's minute is read from these and scaled, and
 * one look costs at most 120 items (two shards, every limit up to 1,000/s read whole).
 */
export const ACTIVITY_SHARDS = 2;
/**
 * A deferral this recent (seconds) means the connection is waiting for its rate limit now: three
 * of the console's reads (every 5 s), so a read that comes late never misses a wait.
 */
export const WAITING_WITHIN_SECONDS = 15;

/**
 * What a rate-limited connection did over the last minute, from its counter items alone (no
 * write of its own): each count above a window's quota was a deferral, each within it a send.
 */
export interface RateActivity {
  /** The seconds read, ending with the current one. */
  seconds: number;
  /**
   * Counts within the quota: sends let go (a send that failed to go out is still counted, and
   * one the limiter counted again, `countedAgain`, counts twice).
   */
  sent: number;
  /** Counts above the quota: deferrals (one delivery deferred twice counts twice). */
  deferred: number;
  /** A deferral in the last {@link WAITING_WITHIN_SECONDS} seconds: deliveries are waiting now. */
  waiting: boolean;
  /** The last second with a deferral, ms since the epoch; absent when none in the minute. */
  lastDeferredAtMs?: number;
}

/**
 * Reads the windows of the last {@link ACTIVITY_SECONDS} seconds up to `nowMs` against the limit
 * (its quota per shard, as the limiter counts them). Windows outside the minute are ignored, and
 * so are shards past {@link ACTIVITY_SHARDS}: above 1,000/s the counts are those shards' scaled.
 */
export function activityOf(limit: number, windows: readonly RateWindowCount[], nowMs: number): RateActivity {
  const shards = shardsOf(limit);
  const read = Math.min(shards, ACTIVITY_SHARDS);
  const current = Math.floor(nowMs / 1000);
  let sent = 0;
  let deferred = 0;
  let last: number | undefined;
  for (const { second, shard, sends } of windows) {
    if (second > current || second <= current - ACTIVITY_SECONDS || shard >= read) continue;
    const quota = quotaOf(limit, shards, shard);
    sent += Math.min(sends, quota);
    if (sends > quota) {
      deferred += sends - quota;
      last = Math.max(last ?? second, second);
    }
  }
  // The shards not read carried their even share.
  const scale = shards / read;
  return {
    seconds: ACTIVITY_SECONDS,
    sent: Math.round(sent * scale),
    deferred: Math.round(deferred * scale),
    waiting: last !== undefined && last > current - WAITING_WITHIN_SECONDS,
    ...(last !== undefined ? { lastDeferredAtMs: last * 1000 } : {}),
  };
}

/**
 * The counter items {@link activityOf} reads: each second of the last minute, in every shard up
 * to {@link ACTIVITY_SHARDS}.
 */
export function activityWindows(limit: number, nowMs: number): Array<{ second: number; shard: number }> {
  const shards = Math.min(shardsOf(limit), ACTIVITY_SHARDS);
  const current = Math.floor(nowMs / 1000);
  const out: Array<{ second: number; shard: number }> = [];
  for (let s = current - ACTIVITY_SECONDS + 1; s <= current; s++)
    for (let shard = 0; shard < shards; shard++) out.push({ second: s, shard });
  return out;
}
