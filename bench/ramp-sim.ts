/**
 * docs/scale.md's simulation from rest: traffic that starts at once on a stack at rest, each
 * attempt placed by the built code (shardCountOf, deliveryShard, shardPartition,
 * failurePartition). Each queue's event source starts at 5 concurrent batches and adds up to 300
 * a minute (at most 1,000); what it cannot take waits. Counted each second: 1,000 write units on
 * any partition, and a new on-demand table's 4,000 units/s, then twice its peak (its index
 * alike, an assumption). No burst capacity.
 */

import { failurePartition, shardPartition } from '../lambdas/adapters/dynamodb/attempt-item';
import { shardCountOf } from '../lambdas/core/attempt-shards';
import { RETRY_DELAYS_S } from '../lambdas/core/constants';
import { deliveryIdTimePrefix, deliveryShard } from '../lambdas/core/ids';
import type { AttemptShardStep } from '../lambdas/core/types';
import { seeded } from './batch-time';
import { poisson } from './support/stats';

/** DynamoDB: one partition takes at most 1,000 write units a second. */
export const PARTITION_WCU_PER_S = 1_000;
/** A new on-demand table sustains up to 4,000 writes/s (and 12,000 reads/s), then twice its peak. */
export const NEW_TABLE_WCU_PER_S = 4_000;
/** Lambda's SQS event source: 5 concurrent batches at first, up to 300 more a minute, 1,000 at most. */
export const EVENT_SOURCE = { initialBatches: 5, addedPerMinute: 300, maxBatches: 1_000 } as const;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const START_MS = Date.parse('2026-11-25T00:00:00.000Z');

export interface RampConnection {
  connectionId: string;
  /** Deliveries per second, from the first second. */
  rate: number;
  /** Share of deliveries whose every attempt fails. */
  failing: number;
  /** Its attempt-log shard steps (core/attempt-shards.ts). */
  steps: AttemptShardStep[];
}

export interface RampOptions {
  seconds: number;
  seed: number;
  /** Records per batch and how long a batch takes (cost model: 0.64 s for 10 at 256 MB). */
  batchSize: number;
  batchSeconds: number;
  /** Index partitions of a day: the built 8, or 1 for the stack before sharding. */
  indexShardsBuilt: boolean;
}

export interface RampResult {
  /** Seconds with any partition over 1,000 write units, or the table or index over its on-demand limit. */
  throttledSeconds: number;
  peakPartitionWcu: number;
  peakIndexPartitionWcu: number;
  peakTableWcu: number;
  /** The first second from which the queues hold no backlog. */
  caughtUpAt: number | undefined;
  /** Most deliveries waiting in the ingress queue at once. */
  peakBacklog: number;
}

type Pending = { connection: number; id: string; attempt: number };

/** Concurrent batches of a mapping `active` seconds after its first message. */
export function mappingBatches(active: number): number {
  const added = Math.floor((EVENT_SOURCE.addedPerMinute * active) / 60);
  return Math.min(EVENT_SOURCE.maxBatches, EVENT_SOURCE.initialBatches + added);
}

export function simulateRamp(connections: RampConnection[], o: RampOptions): RampResult {
  const random = seeded(o.seed);
  const perBatchPerSecond = o.batchSize / o.batchSeconds;
  const newId = (connection: number, t: number) => {
    let rand = '';
    for (let i = 0; i < 16; i++) rand += CROCKFORD[Math.floor(random() * 32)];
    return `${deliveryIdTimePrefix(START_MS + t * 1000)}${rand}_${connections[connection]!.connectionId}`;
  };
  const ingress: { connection: number; failing: boolean; at: number }[] = [];
  let ingressHead = 0;
  const retries: Pending[][] = Array.from({ length: o.seconds + 16 }, () => []);
  const retryQueue: Pending[] = [];
  let retryHead = 0;
  let retryActiveFrom: number | undefined;
  let tablePeak = NEW_TABLE_WCU_PER_S / 2;
  let indexPeak = NEW_TABLE_WCU_PER_S / 2;
  const result: RampResult = {
    throttledSeconds: 0,
    peakPartitionWcu: 0,
    peakIndexPartitionWcu: 0,
    peakTableWcu: 0,
    caughtUpAt: undefined,
    peakBacklog: 0,
  };
  for (let t = 0; t < o.seconds; t++) {
    const table = new Map<string, number>();
    const index = new Map<string, number>();
    const write = (p: Pending, final: boolean) => {
      const c = connections[p.connection]!;
      const partition = shardPartition(c.connectionId, deliveryShard(p.id, shardCountOf(c.steps, p.id)));
      table.set(partition, (table.get(partition) ?? 0) + 1);
      if (final) {
        const day = new Date(START_MS + t * 1000).toISOString().slice(0, 10);
        const key = o.indexShardsBuilt ? failurePartition(day, p.id) : day;
        index.set(key, (index.get(key) ?? 0) + 1);
      }
    };
    connections.forEach((c, i) => {
      const n = poisson(c.rate, random);
      for (let k = 0; k < n; k++) ingress.push({ connection: i, failing: random() < c.failing, at: t });
    });
    // First attempts: as many as the ingress mapping's batches take this second.
    const firstTake = Math.min(
      ingress.length - ingressHead,
      Math.floor(mappingBatches(t) * perBatchPerSecond),
    );
    for (let k = 0; k < firstTake; k++) {
      const d = ingress[ingressHead++]!;
      const p = { connection: d.connection, id: newId(d.connection, d.at), attempt: 1 };
      write(p, false);
      if (d.failing) retries[t + RETRY_DELAYS_S[0]!]!.push({ ...p, attempt: 2 });
    }
    // Retries due now join the retry queue; its mapping ramps from its first message.
    for (const p of retries[t]!) retryQueue.push(p);
    if (retryActiveFrom === undefined && retryQueue.length > retryHead) retryActiveFrom = t;
    if (retryActiveFrom !== undefined) {
      const take = Math.min(
        retryQueue.length - retryHead,
        Math.floor(mappingBatches(t - retryActiveFrom) * perBatchPerSecond),
      );
      for (let k = 0; k < take; k++) {
        const p = retryQueue[retryHead++]!;
        const final = p.attempt === RETRY_DELAYS_S.length + 1;
        write(p, final);
        if (!final) retries[t + RETRY_DELAYS_S[p.attempt - 1]!]!.push({ ...p, attempt: p.attempt + 1 });
      }
    }
    const backlog = ingress.length - ingressHead;
    result.peakBacklog = Math.max(result.peakBacklog, backlog);
    if (backlog === 0 && retryQueue.length === retryHead) result.caughtUpAt ??= t;
    else result.caughtUpAt = undefined;
    const partitionTop = Math.max(0, ...table.values());
    const indexTop = Math.max(0, ...index.values());
    const tableTotal = [...table.values()].reduce((s, n) => s + n, 0);
    const indexTotal = [...index.values()].reduce((s, n) => s + n, 0);
    result.peakPartitionWcu = Math.max(result.peakPartitionWcu, partitionTop);
    result.peakIndexPartitionWcu = Math.max(result.peakIndexPartitionWcu, indexTop);
    result.peakTableWcu = Math.max(result.peakTableWcu, tableTotal);
    const over =
      partitionTop > PARTITION_WCU_PER_S ||
      indexTop > PARTITION_WCU_PER_S ||
      tableTotal > 2 * tablePeak ||
      indexTotal > 2 * indexPeak;
    if (over) result.throttledSeconds++;
    tablePeak = Math.max(tablePeak, tableTotal);
    indexPeak = Math.max(indexPeak, indexTotal);
  }
  return result;
}

/** Shard steps of a connection raised to `count` before the traffic starts (or never raised). */
export function raisedTo(count: number): AttemptShardStep[] {
  const steps: AttemptShardStep[] = [{ count: 1, from: '1970-01-01T00:00:00.000Z' }];
  if (count > 1) steps.push({ count, from: new Date(START_MS - 3_600_000).toISOString() });
  return steps;
}
