/**
 * The figures of the billed benchmark (bench/billed/index.ts), as bench-results/*.json holds
 * them. Types only, so that the results' shape (support/results.ts) does not import the
 * benchmark, which reads the cost model's inputs from those results.
 */

import type { ThrottleStats } from './cgroup';
import type { HandshakeFigures } from './handshakes';
import type { PhaseFigures } from './phases';
import type { ProfileName } from './profiles';

export interface BilledProfileFigures {
  memoryMb: number;
  /** The CPU quota: the share of one core the containers had. */
  cpuShare: number;
  batchSize: number;
  batchingWindowMs: number;
  containers: number;
  batches: number;
  deliveries: number;
  /** Records per invocation, as the event source filled them at the traffic. */
  meanFill: number;
  /** Σ batch wall time ÷ Σ the slowest receiver of each batch (target ≤ 1.05), and per batch. */
  batchTimeRatio: number;
  batchTimeRatioMedian: number;
  batchTimeRatioP90: number;
  /** Billed GB-seconds per million deliveries: each invocation rounded up to 1 ms × memory. */
  gbSecondsPerMillion: number;
  /** The cost model's GB-seconds per million for the same traffic, memory, batch and window. */
  modelGbSecondsPerMillion: number;
  /** measured ÷ model (target within 0.85 to 1.15). */
  modelRatio: number;
  /** The CPU per delivery the model runs on (the committed baseline's, full core, one warm receiver), µs. */
  modelCpuMicrosPerDelivery: number;
  /** CPU of the capped container per delivery, µs. */
  cpuMicrosPerDelivery: number;
  /** Share of attempts that opened a new TLS connection: counted at the receivers, and the keep-alive model's. */
  newConnectionShare: number;
  modelNewConnectionShare: number;
  /** Deliveries a second the containers served (below the published rate while a backlog builds). */
  servedPerSecond: number;
  /** Share of the new TLS connections that resumed a session. */
  resumedShare: number;
  throttling: ThrottleStats;
  failedBatches: number;
  /** Where a batch's time went, ms per batch (phases.ts): the tail the batch-time ratio measures. */
  phases?: PhaseFigures | undefined;
}

export interface BilledFigures {
  /** Set when merged into a baseline from another run: that run's start. */
  measuredAt?: string;
  /** Set when the CPU cap could not be set: why; then there are no figures. */
  refused?: string;
  traffic?: { eventsPerSecond: number; origins: number; measureS: number };
  latency?: { medianMs: number; p99Ms: number };
  keepAlive?: ReadonlyArray<{ seconds: number; share: number }>;
  profiles?: Record<ProfileName, BilledProfileFigures>;
  /** A run of one profile only (BilledOptions.only): not a baseline's figures. */
  partial?: BilledProfileFigures;
  /** The TLS levers, measured in a capped container at the defaults' memory. */
  handshakes?: HandshakeFigures & { memoryMb: number };
}
