/**
 * The pure parts of the billed benchmark (docs/performance.md §11): what Lambda bills for an
 * invocation, the ratios printed, and the receiver population's keep-alive distribution.
 * test/unit/billed.test.ts holds them to account.
 */

import { median, percentile } from '../support/stats';

/** Three decimals: ratios near 1.05 need them. */
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Lambda bills each invocation's duration rounded up to the next millisecond. */
export function billedMs(durationMs: number): number {
  return Math.max(1, Math.ceil(durationMs));
}

/** GB-seconds per million deliveries: Σ billed ms × memory, over the deliveries made. */
export function gbSecondsPerMillion(
  durationsMs: readonly number[],
  memoryMb: number,
  deliveries: number,
): number {
  if (deliveries <= 0) throw new RangeError('no deliveries to spread the GB-seconds over');
  const billedS = durationsMs.reduce((sum, ms) => sum + billedMs(ms), 0) / 1000;
  return (billedS * (memoryMb / 1024) * 1_000_000) / deliveries;
}

export interface TimedBatch {
  /** The handler's duration (what Lambda bills, before rounding), ms. */
  wallMs: number;
  /** The latency drawn for the batch's slowest receiver, ms. */
  slowestMs: number;
}

export interface BatchTimeRatios {
  /** Σ wall ÷ Σ slowest: the time-weighted ratio, the one the bill follows. */
  ratio: number;
  median: number;
  p90: number;
  max: number;
}

/** Batch wall time ÷ the slowest receiver of the batch, over a run. */
export function batchTimeRatios(batches: readonly TimedBatch[]): BatchTimeRatios {
  const usable = batches.filter((b) => b.slowestMs > 0);
  if (usable.length === 0) throw new RangeError('no batch with a receiver latency to compare with');
  const each = usable.map((b) => b.wallMs / b.slowestMs);
  const sum = (f: (b: TimedBatch) => number) => usable.reduce((s, b) => s + f(b), 0);
  return {
    ratio: r3(sum((b) => b.wallMs) / sum((b) => b.slowestMs)),
    median: r3(median(each)),
    p90: r3(percentile(each, 90)),
    max: r3(Math.max(...each)),
  };
}

/**
 * Receivers' keep-alive idle timeouts, s, and the share of receivers with each: Node's HTTP
 * server default (5 s: Express, Fastify, Next.js on Node), an AWS load balancer's default idle
 * timeout (60 s) and nginx's `keepalive_timeout` default (75 s). Documented in
 * docs/performance.md §11; the benchmark's receivers draw from it.
 */
export const RECEIVER_KEEP_ALIVE: ReadonlyArray<{ seconds: number; share: number }> = [
  { seconds: 5, share: 0.4 },
  { seconds: 60, share: 0.35 },
  { seconds: 75, share: 0.25 },
];

/** One receiver's keep-alive timeout for a uniform draw `u` in [0, 1). */
export function drawKeepAliveS(u: number): number {
  let acc = 0;
  for (const k of RECEIVER_KEEP_ALIVE) {
    acc += k.share;
    if (u < acc) return k.seconds;
  }
  return RECEIVER_KEEP_ALIVE.at(-1)!.seconds;
}

/**
 * How long the sender keeps an idle connection to a receiver announcing `receiverS`: its own
 * 10 s (lambdas/adapters/http/pool.ts), or 1 s less than the receiver's `Keep-Alive: timeout=`
 * hint when that is shorter (what Node's agent does with the hint).
 */
export function senderIdleS(receiverS: number, senderS = 10): number {
  return Math.min(senderS, receiverS - 1);
}
