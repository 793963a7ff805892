/**
 * docs/scale.md's steady-state simulation: write units per DynamoDB partition, second by second,
 * against the per-partition limit, for Poisson arrivals placed as the stack keys them (a
 * connection's shards, the `finalFailures` index's day shards; a failing delivery's 4 attempts at
 * 0, 1, 3 and 7 s); and the account concurrency the traffic needs. ramp-sim.ts starts from rest.
 *
 *   node --import tsx bench/scale-sim.ts [--json]
 */

import { parseArgs } from 'node:util';
import { ATTEMPTS_TABLE } from '../lambdas/adapters/dynamodb/tables';
import { RETRY_DELAYS_S } from '../lambdas/core/constants';
import { MAX_BATCH_SIZE_WITHOUT_WINDOW } from '../lib/webhook-delivery-props';
import { seeded } from './batch-time';
import { DEFAULT_LATENCY, expectedSlowestMs, MB_PER_VCPU } from './cost-model';
import { raisedTo, simulateRamp } from './ramp-sim';
import { poisson } from './support/stats';

/** DynamoDB: a partition serves at most 1,000 write units per second (and 3,000 read units). */
export const PARTITION_WCU_PER_S = 1_000;
/** Lambda: 1,000 concurrent executions per account and Region by default (adjustable). */
export const ACCOUNT_CONCURRENCY = 1_000;
/** Lambda SQS event source: up to 1,000 batches processed at once per mapping (standard mode). */
export const EVENT_SOURCE_MAX_BATCHES = 1_000;

export interface ConnectionLoad {
  /** Deliveries per second to this connection. */
  rate: number;
  /** Share of its deliveries that fail every attempt. */
  failing: number;
}

export interface SimOptions {
  seconds: number;
  shards: number;
  /** Write units of a successful attempt, of a failed non-final attempt, of a final failure (item + index). */
  wcu: { success: number; failed: number; finalItem: number; finalIndex: number };
  seed: number;
}

export interface SimResult {
  /** Seconds in which the busiest partition went over its limit, out of `seconds`. */
  throttledSeconds: number;
  /** Highest write units in one second on one partition, base table and index. */
  peakTableWcu: number;
  peakIndexWcu: number;
}

/** Simulates `seconds` of traffic; counts write units per partition per second. */
export function simulate(load: ConnectionLoad[], o: SimOptions): SimResult {
  const random = seeded(o.seed);
  const offsets = [
    0,
    ...RETRY_DELAYS_S.map((_, i) => RETRY_DELAYS_S.slice(0, i + 1).reduce((s, d) => s + d, 0)),
  ];
  const horizon = o.seconds + offsets.at(-1)! + 1;
  // table[t][partition], index[t][shard]
  const table = Array.from({ length: horizon }, () => new Map<string, number>());
  const index = Array.from({ length: horizon }, () => new Array<number>(o.shards).fill(0));
  for (let t = 0; t < o.seconds; t++) {
    load.forEach((c, ci) => {
      const n = poisson(c.rate, random);
      for (let k = 0; k < n; k++) {
        const shard = Math.floor(random() * o.shards);
        const key = `${ci}#${shard}`;
        const failing = random() < c.failing;
        if (!failing) {
          table[t]!.set(key, (table[t]!.get(key) ?? 0) + o.wcu.success);
          continue;
        }
        offsets.forEach((off, i) => {
          const last = i === offsets.length - 1;
          const at = table[t + off]!;
          at.set(key, (at.get(key) ?? 0) + (last ? o.wcu.finalItem : o.wcu.failed));
          if (last) index[t + off]![shard] = index[t + off]![shard]! + o.wcu.finalIndex;
        });
      }
    });
  }
  let throttled = 0;
  let peakTable = 0;
  let peakIndex = 0;
  // Only whole seconds of steady state: skip the first retry window.
  for (let t = offsets.at(-1)!; t < o.seconds; t++) {
    const top = Math.max(0, ...table[t]!.values());
    const topIndex = Math.max(...index[t]!);
    peakTable = Math.max(peakTable, top);
    peakIndex = Math.max(peakIndex, topIndex);
    if (top > PARTITION_WCU_PER_S || topIndex > PARTITION_WCU_PER_S) throttled++;
  }
  return { throttledSeconds: throttled, peakTableWcu: peakTable, peakIndexWcu: peakIndex };
}

/** The highest rate of one connection (`failing` share) with no throttled second, by bisection. */
export function maxRate(failing: number, o: SimOptions, others: ConnectionLoad[] = []): number {
  let lo = 1;
  let hi = PARTITION_WCU_PER_S * o.shards * 2;
  while (hi - lo > Math.max(1, lo * 0.01)) {
    const mid = (lo + hi) / 2;
    const r = simulate([{ rate: mid, failing }, ...others], o);
    if (r.throttledSeconds === 0) lo = mid;
    else hi = mid;
  }
  return Math.floor(lo);
}

/** Account level: concurrency a traffic level needs (Little's law), healthy receivers. */
export function accountConcurrency(
  deliveriesPerSecond: number,
  batchSize: number,
  cpuMicros: number,
  memoryMb: number,
) {
  const cpuShare = Math.min(1, memoryMb / MB_PER_VCPU);
  const durationS =
    ((batchSize * cpuMicros) / 1000 / cpuShare + expectedSlowestMs(DEFAULT_LATENCY, batchSize, 30_000) + 10) /
    1000;
  return { durationS, concurrency: (deliveriesPerSecond / batchSize) * durationS };
}

/**
 * The highest steady deliveries/s of the account before concurrency runs out. First attempts come
 * from the ingress queue in batches of `batchSize`: a batch lasts the 30 s deadline when any of its
 * first attempts hangs. A hanging delivery's 3 retries come from the retry queue in batches of at
 * most 10 (no window, docs/design.md §12), which never hold first attempts: at this traffic they
 * are full, and each lasts the deadline.
 */
export function accountMaxRate(batchSize: number, cpuMicros: number, memoryMb: number, hangingShare = 0) {
  const { durationS } = accountConcurrency(1, batchSize, cpuMicros, memoryMb);
  const hangingBatch = 1 - (1 - hangingShare) ** batchSize;
  const ingressS = hangingBatch * 30 + (1 - hangingBatch) * durationS;
  const retryBatch = Math.min(batchSize, MAX_BATCH_SIZE_WITHOUT_WINDOW);
  // Concurrency-seconds one delivery takes: its share of an ingress batch, and of retry batches.
  const perDelivery = ingressS / batchSize + (hangingShare * (RETRY_DELAYS_S.length * 30)) / retryBatch;
  const limit = Math.min(ACCOUNT_CONCURRENCY, EVENT_SOURCE_MAX_BATCHES);
  return Math.floor(limit / perDelivery);
}

export const WCU = { success: 1, failed: 1, finalItem: 1, finalIndex: 1 };

function main() {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
  const base: SimOptions = { seconds: 120, shards: 1, wcu: WCU, seed: 15 };
  const cpuMicros = 1_140;
  const rows = [1, 4, 16].flatMap((shards) =>
    [0, 0.1, 1].map((failing) => ({
      shards,
      failing,
      maxDeliveriesPerSecond: maxRate(failing, { ...base, shards }),
    })),
  );
  // Many failing connections at once: the index's day partition is shared by all of them.
  const crowd = Array.from({ length: 100 }, () => ({ rate: 12, failing: 1 }));
  const crowdToday = simulate(crowd, base);
  // The index as built: ATTEMPTS_TABLE.finalFailuresShards partitions a day.
  const crowdSharded = simulate(crowd, { ...base, shards: ATTEMPTS_TABLE.finalFailuresShards });
  // From rest: the event source's ramp, a new on-demand table, placement by the built code.
  const batchSeconds = accountConcurrency(1, 10, cpuMicros, 256).durationS;
  const ramp = { seconds: 300, seed: 15, batchSize: 10, batchSeconds, indexShardsBuilt: true };
  const hot = [1, 4, 8].map((shards) => ({
    shards,
    ...simulateRamp([{ connectionId: 'con_hot', rate: 3_000, failing: 0, steps: raisedTo(shards) }], ramp),
  }));
  const crowdFromRest = Array.from({ length: 100 }, (_, i) => ({
    connectionId: `con_${i}`,
    rate: 12,
    failing: 1,
    steps: raisedTo(1),
  }));
  const failures = [true, false].map((built) => ({
    indexShards: built ? ATTEMPTS_TABLE.finalFailuresShards : 1,
    ...simulateRamp(crowdFromRest, { ...ramp, indexShardsBuilt: built }),
  }));
  const account = [10, 100].flatMap((batch) =>
    [0, 0.01].map((hanging) => ({
      batchSize: batch,
      hangingShare: hanging,
      maxDeliveriesPerSecond: accountMaxRate(batch, cpuMicros, 256, hanging),
    })),
  );
  const out = {
    perConnection: rows,
    finalFailuresIndex: {
      load: '100 connections × 12 deliveries/s, every attempt failing (1,200 final failures/s)',
      unsharded: crowdToday,
      built: crowdSharded,
    },
    fromRest: { batchSeconds, hotConnection: hot, finalFailures: failures },
    account,
  };
  if (values.json) {
    console.log(JSON.stringify(out, null, 2));
    return;
  }
  console.log('One connection: highest deliveries/s with no throttled second (120 s, Poisson arrivals)');
  console.table(rows);
  console.log(`finalFailures index, ${out.finalFailuresIndex.load}: one partition a day, then as built`);
  console.table([crowdToday, crowdSharded]);
  console.log(
    `From rest (${ramp.seconds} s; a batch of 10 in ${batchSeconds.toFixed(2)} s): a hot connection, then failures`,
  );
  console.table([...hot, ...failures]);
  console.log('Account: highest steady deliveries/s before 1,000 concurrent batches');
  console.table(account);
}

if (require.main === module) main();
