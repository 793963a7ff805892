/**
 * The chart's geometry, kept apart from drawing so it can be tested: a window of exactly the
 * range's buckets (the current one last), and tick labels spaced so they never overlap at the
 * width the chart is drawn at.
 */

import type { StatsWindow } from './types';

/** The chart's time ranges and the bucket width each reads at. */
export const RANGES = {
  '1h': { label: 'Last hour', hours: 1, bucket: '5m', bucketSeconds: 300 },
  '24h': { label: 'Last 24 hours', hours: 24, bucket: '1h', bucketSeconds: 3_600 },
  '7d': { label: 'Last 7 days', hours: 24 * 7, bucket: '1d', bucketSeconds: 86_400 },
} as const satisfies Record<
  string,
  { label: string; hours: number; bucket: StatsWindow['bucket']; bucketSeconds: number }
>;
export type Range = keyof typeof RANGES;

/**
 * The stats window of a range: `hours` of whole buckets ending with the current one, so the
 * API answers exactly hours ÷ bucket buckets (24 hourly bars for the last 24 hours, not 25
 * with a sliver at each end). Buckets are aligned as the API aligns them (to the epoch).
 */
export function windowFor(range: Range, now: number): StatsWindow {
  const { hours, bucket, bucketSeconds } = RANGES[range];
  const width = bucketSeconds * 1000;
  const count = Math.round((hours * 3_600) / bucketSeconds);
  const since = Math.floor(now / width) * width - (count - 1) * width;
  return { since: new Date(since).toISOString(), bucket };
}

/** Bucket steps between labels: round numbers of hours, minutes or days. */
const EVERY = [1, 2, 3, 4, 6, 12, 24, 48];

/** Gap kept between two tick labels, px. */
export const LABEL_GAP = 10;

/**
 * How many buckets apart tick labels go: the smallest round step at which a label of
 * `labelWidth` px fits with a gap, given `step` px per bucket.
 */
export function labelEvery(step: number, labelWidth: number): number {
  return EVERY.find((k) => k * step >= labelWidth + LABEL_GAP) ?? Math.ceil((labelWidth + LABEL_GAP) / step);
}

/**
 * Whether the bucket starting at `startMs` carries a label: every `every`-th bucket counted in
 * local time, so labels fall on round times (00:00, 06:00, 12:00 …).
 */
export function isLabelled(startMs: number, bucketSeconds: number, every: number): boolean {
  const local = startMs - new Date(startMs).getTimezoneOffset() * 60_000;
  return Math.round(local / (bucketSeconds * 1000)) % every === 0;
}

/** A label's width in px at `fontPx`, estimated from its length (digits and letters ≈ 0.62 em). */
export function labelWidth(text: string, fontPx: number): number {
  return Math.ceil(text.length * fontPx * 0.62);
}
