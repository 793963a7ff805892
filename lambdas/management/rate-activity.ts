/**
 * "Waiting for the rate limit", live (issue 25): what a connection's rate limit did over the last
 * minute, read from the counter items the dispatchers already write (one per connection, second
 * and shard, docs/design.md §4 "Rate limits"). The limiter's `ADD` counts every try, so a count above a
 * window's quota is a deferral: no write of its own per delivery, one BatchGetItem of 60 items
 * per shard when someone looks.
 */

import { ConfigurationError } from '../core/errors';
import type { RateWindowReader } from '../core/ports';
import { activityOf, activityWindows, effectiveRateLimit, type RateActivity } from '../core/rate-limit';
import type { Connection } from '../core/types';
import type { ManagementOptions } from './types';

/** A connection's rate limit as it applies, and its last minute. */
export interface RateLimitActivity extends RateActivity {
  /** The limit that applies, deliveries per second; null: none, nothing is held back. */
  rateLimit: number | null;
  /** Whose limit it is: the connection's own, the stack's default, or none. */
  source: 'connection' | 'default' | 'none';
}

/** The deployment's resources name no rate-windows table (a stack output it predates). */
export class RateWindowsUnknownError extends ConfigurationError {
  constructor() {
    super(
      'rate_windows_unknown',
      'this deployment names no rate-windows table (stack output RateWindowsTableName): redeploy the stack',
    );
    this.name = 'RateWindowsUnknownError';
  }
}

export class RateLimitActivityReader {
  constructor(
    private readonly options: Pick<ManagementOptions, 'resources'>,
    /** The rate-limit counters; absent on a stack that predates them. */
    private readonly reader?: RateWindowReader,
    private readonly now: () => number = Date.now,
  ) {}

  /** The connection's limit and its last minute; reads nothing when no limit applies. */
  async of(connection: Connection): Promise<RateLimitActivity> {
    const { defaultRateLimit, rateLimitCeiling } = this.options.resources;
    const limit = effectiveRateLimit(connection.rateLimit, defaultRateLimit, rateLimitCeiling);
    const source =
      connection.rateLimit !== undefined ? 'connection' : limit !== undefined ? 'default' : 'none';
    const nowMs = this.now();
    if (limit === undefined) return { rateLimit: null, source, ...activityOf(1, [], nowMs) };
    if (!this.reader) throw new RateWindowsUnknownError();
    const windows = await this.reader.read(connection.connectionId, activityWindows(limit, nowMs));
    return { rateLimit: limit, source, ...activityOf(limit, windows, nowMs) };
  }
}
