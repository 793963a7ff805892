/**
 * The rate-limit windows in memory, as lambdas/adapters/dynamodb/rate-windows.ts keeps them: one
 * count per connection, second and shard, incremented atomically (the contract suite,
 * test/contract/rate-windows.test.ts, holds both to the same behaviour).
 */

import type { RateCounter, RateWindowCount, RateWindowReader } from '../../../lambdas/core/ports';
import { checkOutage, noOutage, type Outage } from './outage';

export class MemoryRateWindows implements RateCounter, RateWindowReader {
  /** Counts by `<connectionId>#<second>#<shard>`. */
  readonly counts = new Map<string, number>();

  constructor(private readonly outage: Outage = noOutage) {}

  async increment(connectionId: string, second: number, shard: number): Promise<number> {
    checkOutage(this.outage, 'increment', 'DynamoDB');
    const key = `${connectionId}#${second}#${shard}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  async read(
    connectionId: string,
    windows: ReadonlyArray<{ second: number; shard: number }>,
  ): Promise<RateWindowCount[]> {
    checkOutage(this.outage, 'read', 'DynamoDB');
    return windows
      .map((w) => ({ ...w, sends: this.count(connectionId, w.second, w.shard) }))
      .filter((w) => w.sends > 0)
      .sort((a, b) => a.second - b.second || a.shard - b.shard);
  }

  /** The count of one window and shard (0 when nothing was counted). */
  count(connectionId: string, second: number, shard = 0): number {
    return this.counts.get(`${connectionId}#${second}#${shard}`) ?? 0;
  }
}
