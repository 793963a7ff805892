/**
 * (1) Dispatch overhead: the real delivery path (`createDispatcher`, in-memory ports, the real
 * HttpsSender and Powertools log) against bare `undici.request` POSTs of the same bodies to the
 * same HTTPS receiver process, by host name, a batch of 10 at a time per lane. A third side, the
 * HttpsSender alone with each delivery's full signed headers, splits HTTP from the core's own
 * work. Rounds rotate the sides; medians.
 */

import { cpuUsage } from 'node:process';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { Agent, request } from 'undici';
import { egressLookup } from '../lambdas/adapters/http/pool';
import { HttpsSender, type Resolver } from '../lambdas/adapters/http/sender';
import { createDispatcher } from '../lambdas/core/dispatch';
import { buildHeaders } from '../lambdas/core/headers';
import type { InputRecord } from '../lambdas/core/ports';
import type { AttemptRecord } from '../lambdas/core/types';
import { capturedPowertoolsLog } from '../test/support/captured-log';
import { bodyOf, connectionFor, eventRecords, HEADER_PREFIX, SECRET } from '../test/support/fixtures';
import { memoryPorts } from '../test/support/memory';
/** The receiver's name in the benchmark: its certificate is issued for it. */
import { RECEIVER_HOST } from '../test/support/pki';
import { BATCH_SIZE } from './support/constants';
import { median, ratio, round } from './support/stats';

export interface OverheadOptions {
  /** Loopback port of the receiver. */
  port: number;
  caPem: string;
  /** Deliveries per round and side. */
  deliveries: number;
  rounds: number;
  /** Concurrent batches of 10 (so `lanes × 10` requests in flight at most). */
  lanes: number;
}

export interface SideFigures {
  deliveriesPerSecond: number;
  cpuMicrosPerDelivery: number;
  heapBytesPerDelivery: number;
}

export interface OverheadFigures {
  concurrency: number;
  deliveriesPerRound: number;
  rounds: number;
  dispatcher: SideFigures;
  /** HttpsSender alone with the full header set: the HTTP part of the dispatcher side. */
  sender: SideFigures;
  bare: SideFigures;
  /** dispatcher deliveries/s ÷ bare deliveries/s (target ≥ 0.90). */
  throughputRatio: number;
  cpuRatio: number;
  heapRatio: number;
  /** sender-alone deliveries/s ÷ bare deliveries/s. */
  senderThroughputRatio: number;
  /** Dispatcher minus sender-alone CPU: the core's work per delivery, µs. */
  coreCpuMicrosPerDelivery: number;
  /** Powertools bytes written per delivery during the dispatcher rounds (INFO). */
  logBytesPerDelivery: number;
}

interface Round {
  seconds: number;
  cpuMicros: number;
  heapBytes: number;
}

/** Wall time, CPU and bytes allocated on the V8 heap (live growth + what GCs freed). */
async function measure(run: () => Promise<void>): Promise<Round> {
  const profiler = new GCProfiler();
  const heapBefore = getHeapStatistics().used_heap_size;
  profiler.start();
  const cpu = cpuUsage();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const used = cpuUsage(cpu);
  const heapAfter = getHeapStatistics().used_heap_size;
  const gcs = profiler.stop()?.statistics ?? [];
  const freed = gcs.reduce(
    (sum, gc) => sum + (gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize),
    0,
  );
  return { seconds, cpuMicros: used.user + used.system, heapBytes: heapAfter - heapBefore + freed };
}

/** Runs `batch(from, count)` over `total` items in lanes of batches of 10. */
async function inLanes(total: number, lanes: number, batch: (from: number, count: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < total) {
        const from = next;
        const count = Math.min(BATCH_SIZE, total - from);
        next += count;
        await batch(from, count);
      }
    }),
  );
}

export async function measureOverhead(options: OverheadOptions): Promise<OverheadFigures> {
  const app = 'app_bench_overhead';
  const url = `https://${RECEIVER_HOST}:${options.port}/webhooks/user-identified`;
  const connection = connectionFor(url, app);
  /** Parsed once, as the dispatcher parses a connection's URL once (core/attempt.ts). */
  const target = new URL(url);
  const capture = capturedPowertoolsLog('INFO');
  const egress = { allowLoopback: true, allowedPorts: [options.port] };
  const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  const sender = new HttpsSender({ egress, ca: [options.caPem], resolver });
  const ports = memoryPorts([connection], { sender, log: capture.log, clock: { now: () => Date.now() } });
  // The attempt log counts and lets go, as the DynamoDB one does: a round keeping 3,000
  // records alive would have the GC copying them, a cost the Lambda does not have.
  let delivered = 0;
  const attemptLog = {
    append: async (record: AttemptRecord) => {
      if (record.outcome === 'delivered') delivered++;
      return 'written' as const;
    },
  };
  const dispatcher = createDispatcher(
    { ...ports.deps, attemptLog },
    {
      headerPrefix: HEADER_PREFIX,
      attemptTtlDays: 30,
      concurrency: BATCH_SIZE,
      egress,
    },
  );
  const invocation = { remainingMs: () => 60_000 };
  // The baseline's pool: undici's defaults (keep-alive), the same CA and name lookup.
  const agent = new Agent({ connect: { ca: [options.caPem], lookup: egressLookup(egress, resolver) } });

  const dispatcherRound = async (records: InputRecord[]) => {
    delivered = 0;
    await inLanes(records.length, options.lanes, async (from, count) => {
      const { failures } = await dispatcher.processBatch(records.slice(from, from + count), invocation);
      if (failures.length > 0) throw new Error(`dispatcher failed ${failures.length} records`);
    });
    if (delivered !== records.length)
      throw new Error(`dispatcher delivered ${delivered} of ${records.length}: is the receiver up?`);
  };
  const senderRound = async (requests: Array<{ body: string; headers: Record<string, string> }>) => {
    await inLanes(requests.length, options.lanes, async (from, count) => {
      await Promise.all(
        requests.slice(from, from + count).map(async ({ body, headers }) => {
          const result = await sender.send({ method: 'POST', url: target, headers, body, timeoutMs: 30_000 });
          if (result.kind !== 'response' || result.status !== 200)
            throw new Error(`sender alone got ${JSON.stringify(result)}`);
        }),
      );
    });
  };
  /** Each delivery's signed headers, as the dispatcher would send them (built untimed). */
  const signed = (bodies: string[]) =>
    bodies.map((body, i) => ({
      body,
      headers: buildHeaders({
        prefix: HEADER_PREFIX,
        secret: SECRET,
        body,
        timestampMs: Date.now(),
        deliveryId: `dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_${connection.connectionId}`,
        attempt: 1 + (i % 4),
        custom: connection.headers,
      }),
    }));
  const bareRound = async (bodies: string[]) => {
    await inLanes(bodies.length, options.lanes, async (from, count) => {
      await Promise.all(
        bodies.slice(from, from + count).map(async (body) => {
          const res = await request(url, {
            dispatcher: agent,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          await res.body.dump();
          if (res.statusCode !== 200) throw new Error(`baseline got HTTP ${res.statusCode}`);
        }),
      );
    });
  };

  const rounds = { dispatcher: [] as Round[], sender: [] as Round[], bare: [] as Round[] };
  const SIDES = ['dispatcher', 'sender', 'bare'] as const;
  capture.start(false);
  let logBytes = 0;
  try {
    // Warm-up: JIT, TLS sessions and both pools, not measured.
    const warm = eventRecords(app, Math.min(500, options.deliveries));
    await dispatcherRound(warm);
    await senderRound(signed(warm.map(bodyOf)));
    await bareRound(warm.map(bodyOf));
    for (let i = 0; i < options.rounds; i++) {
      const records = eventRecords(app, options.deliveries);
      const bodies = records.map(bodyOf);
      const requests = signed(bodies);
      const before = capture.bytes;
      // Rotate which side goes first, so a slow patch of the machine hits every side.
      for (let k = 0; k < SIDES.length; k++) {
        const side = SIDES[(i + k) % SIDES.length]!;
        if (side === 'dispatcher') {
          rounds.dispatcher.push(await measure(() => dispatcherRound(records)));
          logBytes += capture.bytes - before;
        } else if (side === 'sender') rounds.sender.push(await measure(() => senderRound(requests)));
        else rounds.bare.push(await measure(() => bareRound(bodies)));
      }
    }
  } finally {
    capture.stop();
    await Promise.all([sender.close(), agent.close()]);
  }

  const figures = (side: Round[]): SideFigures => ({
    deliveriesPerSecond: round(median(side.map((r) => options.deliveries / r.seconds))),
    cpuMicrosPerDelivery: round(median(side.map((r) => r.cpuMicros / options.deliveries))),
    heapBytesPerDelivery: round(median(side.map((r) => r.heapBytes / options.deliveries))),
  });
  const dispatcherFigures = figures(rounds.dispatcher);
  const bareFigures = figures(rounds.bare);
  const senderFigures = figures(rounds.sender);
  return {
    concurrency: options.lanes * BATCH_SIZE,
    deliveriesPerRound: options.deliveries,
    rounds: options.rounds,
    dispatcher: dispatcherFigures,
    sender: senderFigures,
    bare: bareFigures,
    throughputRatio: ratio(dispatcherFigures.deliveriesPerSecond, bareFigures.deliveriesPerSecond),
    cpuRatio: ratio(dispatcherFigures.cpuMicrosPerDelivery, bareFigures.cpuMicrosPerDelivery),
    heapRatio: ratio(dispatcherFigures.heapBytesPerDelivery, bareFigures.heapBytesPerDelivery),
    senderThroughputRatio: ratio(senderFigures.deliveriesPerSecond, bareFigures.deliveriesPerSecond),
    coreCpuMicrosPerDelivery: round(
      dispatcherFigures.cpuMicrosPerDelivery - senderFigures.cpuMicrosPerDelivery,
    ),
    logBytesPerDelivery: round(logBytes / (options.rounds * options.deliveries)),
  };
}
