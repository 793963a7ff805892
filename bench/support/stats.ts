/** Small statistics and formatting helpers for the benchmark (no dependencies). */

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError('percentile of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** Rounds to `digits` significant digits (figures are noisy; more digits would lie). */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const scale = 10 ** (digits - Math.ceil(Math.log10(Math.abs(value))));
  return Math.round(value * scale) / scale;
}

export function ratio(value: number, baseline: number): number {
  return round(value / baseline, 3);
}

/** `1 234 567` style grouping, for the table only. */
export function fmt(value: number, unit = ''): string {
  const shown = Math.abs(value) >= 100 ? Math.round(value) : round(value, 3);
  const text = shown.toLocaleString('en-US').replace(/,/g, ' ');
  return unit ? `${text} ${unit}` : text;
}

/** A Poisson draw of the given mean (Knuth's method for small means, the normal approximation above 50). */
export function poisson(mean: number, random: () => number): number {
  if (mean > 50) {
    const u = Math.max(1e-12, random());
    const v = random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.max(0, Math.round(mean + z * Math.sqrt(mean)));
  }
  const l = Math.exp(-mean);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= random();
  } while (p > l);
  return k - 1;
}
