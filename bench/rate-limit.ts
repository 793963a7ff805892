/**
 * (9) A burst to one rate-limited connection in local mode (support/local-mode.ts), several
 * pollers a queue: each arrival counted per second (busiest aligned and sliding second after
 * the first two, throughput while work waits), duplicates, dead letters, and what the limit adds
 * (counter writes, deferrals, the billed wait for a slot); then an unlimited burst, which must
 * add nothing.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { localClientConfig, localQueueUrl } from '../local/bootstrap';
import { user } from '../test/support/fixtures';
import { PRICES } from './prices';
import { startLocalMode } from './support/local-mode';
import { round } from './support/stats';

export interface RateLimitOptions {
  events: number;
  /** Deliveries per second of the limited connection. */
  limit: number;
  /** Pollers per queue (Lambda's concurrent batches). */
  pollers: number;
  /** Events of the unlimited burst. */
  unlimitedEvents: number;
}

export interface RateLimitFigures {
  events: number;
  limit: number;
  pollers: number;
  /** From the first arrival to the last, s. */
  seconds: number;
  /** The busiest one-second window after the first two seconds, aligned to whole seconds. */
  maxAlignedWindow: number;
  /** The same over any one-second span (sliding). */
  maxSlidingWindow: number;
  /** `maxAlignedWindow ÷ limit` (target ≤ 1.25). */
  maxRatio: number;
  /** Deliveries per second while work waited (whole windows between the first two s and the last), mean and lowest. */
  throughputMean: number;
  throughputMin: number;
  /** `throughputMean ÷ limit` (target ≥ 0.9). */
  throughputRatio: number;
  delivered: number;
  duplicates: number;
  deadLettered: number;
  /** Per delivery: counter writes (1 + deferrals), deferrals, log bytes. */
  counterWritesPerDelivery: number;
  deferralsPerDelivery: number;
  logBytesPerDelivery: number;
  /**
   * Billed Lambda time of the waits for a slot, ms per delivery: each batch's time with at
   * least one delivery waiting (the waits of a batch overlap), summed over batches.
   */
  waitMsPerDelivery?: number;
  /** The same summed per delivery (no overlap): what the waits would bill one delivery a batch. */
  waitMsPerDeliveryAlone?: number;
  /**
   * What the limit adds per million deliveries, USD: writes, SQS requests of the deferrals, their
   * log lines, and the waits at the dispatcher's default 256 MB (Arm).
   */
  addedCostPerMillion: number;
  unlimited: {
    events: number;
    /** What this machine's local mode delivers without a limit: the ceiling any limit is measured under. */
    deliveriesPerSecond: number;
    counterWrites: number;
    /** Waits for a slot, ms in all (none: an unlimited connection never waits). */
    waitMs?: number;
    logBytesPerDelivery: number;
    addedCostPerMillion: number;
  };
}

/** The dispatcher's default memory, GB: what a waiting invocation is billed by. */
const DISPATCHER_GB = 256 / 1024;

export async function measureRateLimit(options: RateLimitOptions): Promise<RateLimitFigures> {
  // Each wait, kept with the batch it happened in (the waits of a batch overlap).
  const batchOf = new AsyncLocalStorage<number>();
  let batches = 0;
  const waits: Array<{ batch: number; from: number; to: number }> = [];
  const clock = {
    now: () => Date.now(),
    sleep(ms: number) {
      const from = Date.now();
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          waits.push({ batch: batchOf.getStore() ?? -1, from, to: Date.now() });
          resolve();
        }, ms),
      );
    },
  };
  const local = await startLocalMode({
    name: 'rate limit',
    runnerConcurrency: options.pollers,
    hooks: { clock },
  });
  const { aws, receipts, management, capture, until, origin, running } = local;
  const { dispatcher } = running.wired;
  const processBatch = dispatcher.processBatch.bind(dispatcher);
  dispatcher.processBatch = (records, invocation) =>
    batchOf.run(batches++, () => processBatch(records, invocation));
  const deferrals = () => running.metrics.byMetric.RateLimitDeferrals ?? 0;
  // Counts the counter's writes: the same object the dispatcher was built with.
  const counter = running.wired.deps.rateCounter!;
  const increment = counter.increment.bind(counter);
  let counterWrites = 0;
  counter.increment = (...args) => {
    counterWrites++;
    return increment(...args);
  };
  const sqs = new SQSClient(localClientConfig(aws.endpoints.sqs, aws.region));

  const burst = async (app: { id: string; name: string }, path: string, n: number, prefix: string) => {
    const ids = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const chunks = Array.from({ length: Math.ceil(n / 50) }, (_, i) => ids.slice(i * 50, i * 50 + 50));
    await Promise.all(
      chunks.map((chunk) =>
        management.publisher.publishUserIdentifiedBatch(
          chunk.map((id) => ({ user: user(id), application: app })),
        ),
      ),
    );
    const mine = () => receipts.filter((r) => r.path === path);
    await until(
      () => new Set(mine().map((r) => r.deliveryId)).size >= n,
      600_000,
      `${n} deliveries to ${path}`,
    );
    // Anything sent twice would arrive within a few more seconds.
    await new Promise((r) => setTimeout(r, 3_000));
    return mine();
  };

  try {
    const limitedApp = { id: 'app_bench_limited', name: 'Bench limited' };
    const freeApp = { id: 'app_bench_free', name: 'Bench free' };
    await management.connections.create({
      applicationId: limitedApp.id,
      name: 'limited',
      url: `${origin}/limited`,
      rateLimit: options.limit,
    });
    await management.connections.create({ applicationId: freeApp.id, name: 'free', url: `${origin}/free` });
    capture.start(true);

    // Unlimited first: it must cost nothing extra.
    let logBefore = capture.bytes;
    const freeStart = Date.now();
    const free = await burst(freeApp, '/free', options.unlimitedEvents, 'usr_free_');
    const unlimited = {
      events: options.unlimitedEvents,
      deliveriesPerSecond: round(
        options.unlimitedEvents / ((Math.max(...free.map((r) => r.at)) - freeStart) / 1000),
      ),
      counterWrites,
      waitMs: waits.reduce((ms, w) => ms + (w.to - w.from), 0),
      logBytesPerDelivery: round((capture.bytes - logBefore) / options.unlimitedEvents),
    };

    counterWrites = 0;
    waits.length = 0;
    const deferralsBefore = deferrals();
    logBefore = capture.bytes;
    const got = await burst(limitedApp, '/limited', options.events, 'usr_lim_');
    const logBytes = capture.bytes - logBefore;
    const deferred = deferrals() - deferralsBefore;

    const times = got.map((r) => r.at).sort((a, b) => a - b);
    const first = times[0]!;
    const last = times.at(-1)!;
    const firstSecond = Math.floor(first / 1000);
    const lastSecond = Math.floor(last / 1000);
    const perSecond = new Map<number, number>();
    for (const t of times)
      perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    const settled = [...perSecond.entries()].filter(([s]) => s >= firstSecond + 2);
    const maxAligned = Math.max(0, ...settled.map(([, n]) => n));
    let maxSliding = 0;
    const after = times.filter((t) => t >= first + 2_000);
    for (let i = 0, j = 0; i < after.length; i++) {
      while (after[i]! - after[j]! >= 1_000) j++;
      maxSliding = Math.max(maxSliding, i - j + 1);
    }
    const waiting = [...Array(Math.max(0, lastSecond - firstSecond - 2)).keys()].map(
      (k) => perSecond.get(firstSecond + 2 + k) ?? 0,
    );
    const mean = waiting.reduce((a, b) => a + b, 0) / Math.max(1, waiting.length);
    const byDelivery = new Map<string, number>();
    for (const r of got) byDelivery.set(r.deliveryId, (byDelivery.get(r.deliveryId) ?? 0) + 1);
    const dlq = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: localQueueUrl(aws.endpoints.sqs, aws.resources.dlqUrl),
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const deadLettered =
      Number(dlq.Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(dlq.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);

    const n = options.events;
    const waitAlone = waits.reduce((ms, w) => ms + (w.to - w.from), 0) / n;
    const waitBilled = billedWaitMs(waits) / n;
    const writesPer = counterWrites / n;
    const deferralsPer = deferred / n;
    const extraLogPer = Math.max(0, logBytes / n - unlimited.logBytesPerDelivery);
    // A deferral is one SendMessage, and its share of a ReceiveMessage and a DeleteMessageBatch
    // (batches of up to 10: counted at one of each per deferral, the dearest case).
    const added =
      writesPer * PRICES.dynamoDbPerMillionWriteUnits +
      deferralsPer * 3 * PRICES.sqsPerMillionRequests +
      (extraLogPer * PRICES.logsPerGbIngested * 1_000_000) / 1024 ** 3 +
      (waitBilled / 1000) * DISPATCHER_GB * PRICES.lambdaArmPerGbSecond * 1_000_000;
    return {
      events: n,
      limit: options.limit,
      pollers: options.pollers,
      seconds: round((last - first) / 1000),
      maxAlignedWindow: maxAligned,
      maxSlidingWindow: maxSliding,
      maxRatio: round(maxAligned / options.limit),
      throughputMean: round(mean),
      throughputMin: Math.min(...waiting),
      throughputRatio: round(mean / options.limit),
      delivered: byDelivery.size,
      duplicates: got.length - byDelivery.size,
      deadLettered,
      counterWritesPerDelivery: round(writesPer),
      deferralsPerDelivery: round(deferralsPer),
      logBytesPerDelivery: round(logBytes / n),
      waitMsPerDelivery: round(waitBilled),
      waitMsPerDeliveryAlone: round(waitAlone),
      addedCostPerMillion: round(added),
      unlimited: {
        ...unlimited,
        addedCostPerMillion: round(
          (unlimited.counterWrites / unlimited.events) * PRICES.dynamoDbPerMillionWriteUnits,
        ),
      },
    };
  } finally {
    sqs.destroy();
    await local.stop();
  }
}

/** The time each batch had at least one delivery waiting, summed over batches, ms. */
export function billedWaitMs(waits: ReadonlyArray<{ batch: number; from: number; to: number }>): number {
  const byBatch = new Map<number, Array<{ from: number; to: number }>>();
  for (const w of waits) byBatch.set(w.batch, [...(byBatch.get(w.batch) ?? []), w]);
  let total = 0;
  for (const spans of byBatch.values()) {
    spans.sort((a, b) => a.from - b.from);
    let end = Number.NEGATIVE_INFINITY;
    for (const { from, to } of spans) {
      if (to <= end) continue;
      total += to - Math.max(from, end);
      end = to;
    }
  }
  return total;
}
