/**
 * (8) Batch time against its physical limit: batches through the real core and HttpsSender, each
 * delivery to its own loopback HTTPS receiver answering after a seeded draw from the documented
 * latency (log-normal, median 100 ms, p99 1 s). A batch cannot end before its slowest receiver:
 * the ratio is wall time ÷ that latency; deliveries per GB-second against the same limit.
 */

import { HttpsSender, type Resolver } from '../lambdas/adapters/http/sender';
import { createDispatcher } from '../lambdas/core/dispatch';
import type { InputRecord } from '../lambdas/core/ports';
import type { Connection } from '../lambdas/core/types';
import { capturedPowertoolsLog } from '../test/support/captured-log';
import { connectionFor, HEADER_PREFIX, userIdentified } from '../test/support/fixtures';
import { memoryPorts } from '../test/support/memory';
import { RECEIVER_HOST, testPki } from '../test/support/pki';
import { serveHttps } from '../test/support/receivers';
import { DEFAULT_LATENCY, latencyQuantile } from './cost-model';
import { DEFAULT_MEMORY_MB } from './support/constants';
import { median, round } from './support/stats';

export interface BatchSizeFigures {
  batchSize: number;
  batches: number;
  /** Batch wall time ÷ its slowest receiver's latency: median and worst. */
  ratioMedian: number;
  ratioMax: number;
  /** Deliveries per GB-second at the stack's memory, measured and at the physical limit. */
  deliveriesPerGbSecond: number;
  limitDeliveriesPerGbSecond: number;
  /** measured ÷ limit. */
  gbSecondRatio: number;
}

export interface BatchTimeFigures {
  /** Set when merged into a baseline from another run: that run's start. */
  measuredAt?: string;
  latency: { medianMs: number; p99Ms: number; seed: number };
  memoryMb: number;
  sizes: BatchSizeFigures[];
}

/** mulberry32: a small seeded generator, so every run draws the same latencies. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SEED = 15;
export async function measureBatchTime(options: {
  batches10: number;
  batches100: number;
}): Promise<BatchTimeFigures> {
  const pki = testPki();
  // One path per slot; the latency of each slot is set before each batch.
  const delays = new Map<string, number>();
  const served = await serveHttps(pki, (req, res) => {
    const ms = delays.get(req.url ?? '') ?? 0;
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), ms);
  });
  const { port } = served;
  const egress = { allowLoopback: true, allowedPorts: [port] };
  const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  // As the dispatcher's wiring does (docs/design.md §4 "The sender"): as many idle connections per
  // receiver as attempts in flight, here the larger batch's (every slot is one origin).
  const sender = new HttpsSender({ egress, ca: [pki.caPem], resolver, maxIdlePerOrigin: 100 });
  const capture = capturedPowertoolsLog('INFO');
  const random = seeded(SEED);
  const gb = DEFAULT_MEMORY_MB / 1024;
  const invocation = { remainingMs: () => 60_000 };

  const runSize = async (size: number, batches: number): Promise<BatchSizeFigures> => {
    const connections: Connection[] = Array.from({ length: size }, (_, i) =>
      connectionFor(`https://${RECEIVER_HOST}:${port}/slot/${i}`, `app_batch_${size}_${i}`),
    );
    const ports = memoryPorts(connections, { sender, log: capture.log, clock: { now: () => Date.now() } });
    const dispatcher = createDispatcher(
      { ...ports.deps, attemptLog: { append: async () => 'written' as const } },
      { headerPrefix: HEADER_PREFIX, attemptTtlDays: 30, concurrency: size, egress },
    );
    const records = (): InputRecord[] =>
      connections.map((c, i) => ({
        messageId: `m-${i}`,
        body: JSON.stringify(userIdentified(c.applicationId)),
      }));
    // Warm-up: TLS sessions to every slot, JIT; no delay.
    delays.clear();
    await dispatcher.processBatch(records(), invocation);
    const ratios: number[] = [];
    let wallS = 0;
    let limitS = 0;
    for (let b = 0; b < batches; b++) {
      const drawn = connections.map(() => latencyQuantile(DEFAULT_LATENCY, Math.min(0.999_999, random())));
      for (const [i, ms] of drawn.entries()) delays.set(`/slot/${i}`, Math.round(ms));
      const slowest = Math.max(...drawn.map(Math.round));
      const batch = records();
      const started = performance.now();
      const { failures } = await dispatcher.processBatch(batch, invocation);
      const ms = performance.now() - started;
      if (failures.length > 0) throw new Error(`batch time: ${failures.length} records failed`);
      ratios.push(ms / slowest);
      wallS += ms / 1000;
      limitS += slowest / 1000;
    }
    const deliveries = size * batches;
    const perGbS = deliveries / (wallS * gb);
    const limit = deliveries / (limitS * gb);
    return {
      batchSize: size,
      batches,
      ratioMedian: round(median(ratios), 3),
      ratioMax: round(Math.max(...ratios), 3),
      deliveriesPerGbSecond: round(perGbS),
      limitDeliveriesPerGbSecond: round(limit),
      gbSecondRatio: round(perGbS / limit, 3),
    };
  };

  capture.start(false);
  try {
    const sizes = [await runSize(10, options.batches10), await runSize(100, options.batches100)];
    return {
      latency: { medianMs: DEFAULT_LATENCY.medianMs, p99Ms: DEFAULT_LATENCY.p99Ms, seed: SEED },
      memoryMb: DEFAULT_MEMORY_MB,
      sizes,
    };
  } finally {
    capture.stop();
    await sender.close();
    await served.close();
  }
}
