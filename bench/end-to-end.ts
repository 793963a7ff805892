/**
 * (3) End to end in local mode (support/local-mode.ts): latency of paced events, publish to
 * receipt; a burst's events/s and this process's CPU per delivery (runner and publisher
 * included: an upper bound); the CPU of one attempt-log PutItem; and the retry gaps of a
 * receiver failing 3 times against 1, 2 and 4 s.
 */

import { cpuUsage } from 'node:process';
import { RETRY_DELAYS_S } from '../lambdas/core/constants';
import { user } from '../test/support/fixtures';
import { sleep } from '../test/support/wait';
import { type Receipt, startLocalMode } from './support/local-mode';
import { median, percentile, round } from './support/stats';

export interface EndToEndOptions {
  latencyEvents: number;
  throughputEvents: number;
  retryDeliveries: number;
}

export interface EndToEndFigures {
  latency: { events: number; p50Ms: number; p99Ms: number; maxMs: number };
  throughput: {
    events: number;
    eventsPerSecond: number;
    /** CPU of this process per delivery: dispatcher + SDK + runner + publisher (upper bound). */
    cpuMicrosPerDelivery: number;
    /** Handler duration of a batch, median (local emulators, loopback receiver). */
    batchMillisMedian: number;
    batchSizeMean: number;
  };
  retries: {
    deliveries: number;
    /** For each scheduled delay: expected ms, and actual − expected (median, max). */
    gaps: Array<{ expectedMs: number; errorMedianMs: number; errorMaxMs: number }>;
  };
  logBytesPerDelivery: number;
  /**
   * CPU of one attempt-log write through the production adapter (AWS SDK PutItem to the
   * emulator), 10 at a time: the part of a delivery's CPU that is the SDK's.
   */
  attemptLogPutCpuMicros: number;
}

export async function measureEndToEnd(options: EndToEndOptions): Promise<EndToEndFigures> {
  const batches: Array<{ size: number; ms: number }> = [];
  const local = await startLocalMode({
    name: 'end to end',
    runnerConcurrency: 4,
    runnerWarnings: true,
    hooks: { onBatch: (report) => batches.push({ size: report.messageIds.length, ms: report.durationMs }) },
  });
  const { receipts, management, capture, until, origin } = local;
  const { wired } = local.running;

  try {
    const okApp = { id: 'app_bench_ok', name: 'Bench' };
    const flakyApp = { id: 'app_bench_flaky', name: 'Bench flaky' };
    const okConnection = await management.connections.create({
      applicationId: okApp.id,
      name: 'ok',
      url: `${origin}/ok`,
    });
    await management.connections.create({
      applicationId: flakyApp.id,
      name: 'flaky',
      url: `${origin}/flaky`,
    });
    const publish = (application: typeof okApp, ids: string[]) =>
      management.publisher.publishUserIdentifiedBatch(ids.map((id) => ({ user: user(id), application })));
    const okReceipts = (prefix: string) =>
      receipts.filter((r) => r.path === '/ok' && r.userId?.startsWith(prefix));

    capture.start(false);
    // Warm-up: connection and secret caches, pools, JIT.
    await publish(okApp, ['usr_warm_1', 'usr_warm_2', 'usr_warm_3']);
    await until(() => okReceipts('usr_warm_').length >= 3, 30_000, 'warm-up delivery');

    // Latency: paced batches of 5, well under capacity.
    const published = new Map<string, number>();
    for (let sent = 0; sent < options.latencyEvents; sent += 5) {
      const ids = Array.from(
        { length: Math.min(5, options.latencyEvents - sent) },
        (_, i) => `usr_lat_${sent + i}`,
      );
      const at = Date.now();
      for (const id of ids) published.set(id, at);
      await publish(okApp, ids);
      await sleep(150);
    }
    await until(() => okReceipts('usr_lat_').length >= options.latencyEvents, 30_000, 'latency deliveries');
    const latencies = okReceipts('usr_lat_').map((r) => r.at - published.get(r.userId!)!);

    // Throughput: a burst, drained by the runner; once untimed (pools, sockets, JIT), then timed.
    const burst = async (prefix: string) => {
      batches.length = 0;
      const logBefore = capture.bytes;
      const cpu = cpuUsage();
      const started = Date.now();
      const ids = Array.from({ length: options.throughputEvents }, (_, i) => `${prefix}${i}`);
      const chunks = Array.from({ length: Math.ceil(ids.length / 50) }, (_, i) =>
        ids.slice(i * 50, i * 50 + 50),
      );
      await Promise.all(chunks.map((chunk) => publish(okApp, chunk)));
      await until(
        () => okReceipts(prefix).length >= options.throughputEvents,
        120_000,
        'throughput deliveries',
      );
      const seconds = (Math.max(...okReceipts(prefix).map((r) => r.at)) - started) / 1000;
      const used = cpuUsage(cpu);
      return {
        seconds,
        cpuMicros: used.user + used.system,
        logBytes: capture.bytes - logBefore,
        batches: [...batches],
      };
    };
    await burst('usr_tpwarm_');
    const timed = await burst('usr_tp_');

    // The SDK's share: attempt-log writes alone, through the production adapter.
    const sample = (
      await management.attempts.list({ connectionId: okConnection.connectionId, limit: 1 })
    )[0]!;
    const writes = 300;
    const writeCpu = cpuUsage();
    for (let i = 0; i < writes; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          wired.deps.attemptLog.append({ ...sample, attempt: 100 + i + j }),
        ),
      );
    }
    const writeUsed = cpuUsage(writeCpu);

    // Retries: 503, 503, 503, then 200; gaps between attempts against the schedule.
    const flakyIds = Array.from({ length: options.retryDeliveries }, (_, i) => `usr_retry_${i}`);
    await publish(flakyApp, flakyIds);
    const expected = (RETRY_DELAYS_S.length + 1) * options.retryDeliveries;
    await until(
      () => receipts.filter((r) => r.path === '/flaky').length >= expected,
      60_000,
      'retried deliveries',
    );
    const byDelivery = new Map<string, Receipt[]>();
    for (const r of receipts.filter((x) => x.path === '/flaky')) {
      byDelivery.set(r.deliveryId, [...(byDelivery.get(r.deliveryId) ?? []), r]);
    }
    const gaps = RETRY_DELAYS_S.map((delayS, i) => {
      const errors = [...byDelivery.values()].map((attempts) => {
        const sorted = attempts.sort((a, b) => a.attempt - b.attempt);
        return sorted[i + 1]!.at - sorted[i]!.at - delayS * 1000;
      });
      return {
        expectedMs: delayS * 1000,
        errorMedianMs: round(median(errors)),
        errorMaxMs: Math.max(...errors),
      };
    });

    return {
      latency: {
        events: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: Math.max(...latencies),
      },
      throughput: {
        events: options.throughputEvents,
        eventsPerSecond: round(options.throughputEvents / timed.seconds),
        cpuMicrosPerDelivery: round(timed.cpuMicros / options.throughputEvents),
        batchMillisMedian: round(median(timed.batches.map((b) => b.ms))),
        batchSizeMean: round(
          timed.batches.reduce((sum, b) => sum + b.size, 0) / Math.max(1, timed.batches.length),
        ),
      },
      retries: { deliveries: options.retryDeliveries, gaps },
      logBytesPerDelivery: round(timed.logBytes / options.throughputEvents),
      attemptLogPutCpuMicros: round((writeUsed.user + writeUsed.system) / writes),
    };
  } finally {
    await local.stop();
  }
}
