/**
 * Chart data from the attempt log: per time bucket, counts by outcome and latency
 * percentiles. Computed when asked, from a read of the log: deliveries write nothing extra.
 */

import type { AttemptRecord, Outcome } from '../core/types';
import { OUTCOMES } from './schemas';

type Counts = Record<Outcome, number>;

export interface StatsBucket {
  start: string;
  total: number;
  outcomes: Counts;
  latencyMs: { p50: number | null; p95: number | null };
}

const zero = (): Counts => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Counts;

/** Nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

function summarise(start: string, records: readonly AttemptRecord[]): StatsBucket {
  const outcomes = zero();
  const durations: number[] = [];
  for (const r of records) {
    if (r.outcome in outcomes) outcomes[r.outcome]++;
    if (typeof r.durationMs === 'number') durations.push(r.durationMs);
  }
  durations.sort((a, b) => a - b);
  return {
    start,
    total: records.length,
    outcomes,
    latencyMs: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
  };
}

/** Buckets of `bucketSeconds` from `since` (aligned down to the bucket width) up to `until`. */
export function bucketStats(
  records: readonly AttemptRecord[],
  window: { since: Date; until: Date; bucketSeconds: number },
): { buckets: StatsBucket[]; totals: Omit<StatsBucket, 'start'> } {
  const width = window.bucketSeconds * 1000;
  const first = Math.floor(window.since.getTime() / width) * width;
  const count = Math.max(1, Math.ceil((window.until.getTime() - first) / width));
  const groups: AttemptRecord[][] = Array.from({ length: count }, () => []);
  for (const r of records) {
    const index = Math.floor((Date.parse(r.requestedAt) - first) / width);
    if (index >= 0 && index < count) groups[index]!.push(r);
  }
  const buckets = groups.map((g, i) => summarise(new Date(first + i * width).toISOString(), g));
  const { start: _start, ...totals } = summarise('', records);
  return { buckets, totals };
}
