/** Chart data: nearest-rank percentiles and buckets aligned to their width. */

import { bucketStats, percentile } from '../../../lambdas/api/stats';
import type { AttemptRecord, Outcome } from '../../../lambdas/core/types';

const at = (iso: string, outcome: Outcome, durationMs: number) =>
  ({ requestedAt: iso, outcome, durationMs }) as AttemptRecord;

describe('stats', () => {
  it('takes nearest-rank percentiles (p50 of 1..10 is 5, p95 is 10) and none of nothing', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile([42], 95)).toBe(42);
    expect(percentile([], 50)).toBeNull();
  });

  it('aligns buckets to the width, counts each outcome and leaves empty buckets with null latency', () => {
    const { buckets, totals } = bucketStats(
      [
        at('2026-11-22T10:05:00.000Z', 'delivered', 100),
        at('2026-11-22T10:59:59.999Z', 'http_error', 300),
        at('2026-11-22T12:00:00.000Z', 'timeout', 30_000),
        at('2026-11-22T09:59:59.999Z', 'delivered', 1), // before the first bucket: left out of buckets
      ],
      {
        since: new Date('2026-11-22T10:30:00Z'),
        until: new Date('2026-11-22T12:30:00Z'),
        bucketSeconds: 3600,
      },
    );
    expect(buckets.map((b) => b.start)).toEqual([
      '2026-11-22T10:00:00.000Z',
      '2026-11-22T11:00:00.000Z',
      '2026-11-22T12:00:00.000Z',
    ]);
    expect(buckets[0]).toMatchObject({ total: 2, latencyMs: { p50: 100, p95: 300 } });
    expect(buckets[0]!.outcomes).toMatchObject({ delivered: 1, http_error: 1, timeout: 0 });
    expect(buckets[1]).toMatchObject({ total: 0, latencyMs: { p50: null, p95: null } });
    expect(buckets[2]!.outcomes.timeout).toBe(1);
    expect(totals.total).toBe(4);
  });
});
