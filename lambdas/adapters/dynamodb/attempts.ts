/**
 * The attempt log's table (docs/design.md §5, tables.ts ATTEMPTS_TABLE): the dispatcher's
 * appends and the operators' reads. Key names, the final-failures index and every expression
 * stay here and in the item format beside it (attempt-item.ts); callers get attempt records
 * without storage attributes, and pages resume from opaque cursors (core/cursor.ts).
 *
 * Append is one conditional PutItem per attempt. A record is never replaced (docs/security.md):
 * the put succeeds only where no item holds the key, so a forged or replayed `attempt-log`
 * message cannot rewrite history. When the key is taken, the item that holds it (returned by
 * the failed put itself, no read) tells a true duplicate (the same record written again after
 * a redelivery: nothing to do) from a different record. A different record of the same send is
 * refused (the caller logs it); one of another send of the attempt (its queue message delivered
 * twice: every send is kept, docs/reliability.md) is written beside it under a key that carries its
 * send id, conditionally again. A successful attempt is trimmed to one write unit here, where the
 * item's size is known.
 *
 * Every read is a Query, never a Scan: a connection's attempts are its partitions (one, or one
 * per shard: docs/design.md §5 "Shards"), each newest first because delivery ids are
 * time-ordered, merged by sort key (attempt-reads.ts); a delivery's are a prefix of the one
 * partition its creation time placed it in (core/attempt-shards.ts); final failures are a sparse
 * index with `finalFailuresShards` partitions per UTC day, merged the same way.
 */

import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { shardCountOf } from '../../core/attempt-shards';
import { MAX_ATTEMPT } from '../../core/constants';
import { decodeCursor, encodeCursor } from '../../core/cursor';
import { connectionIdOf, deliveryShard } from '../../core/ids';
import type { AppendOutcome } from '../../core/ports';
import type {
  AttemptPageQuery,
  AttemptTable,
  DeliveryPageQuery,
  DeliveryRef,
  Page,
  RangeRead,
} from '../../core/stores';
import type { AttemptRecord, AttemptShardStep } from '../../core/types';
import {
  attemptItem,
  attemptSortKey,
  deliveryKeyPrefix,
  failurePartitionsOf,
  fitRecord,
  recordOf,
  shardPartition,
} from './attempt-item';
import { LogReads, logConditions, positionParts } from './attempt-log-reads';
import { putOnce, readItem } from './attempt-put';
import { addFilter, type Item, mergeNewestFirst, PartitionReads } from './attempt-reads';
import { documentClient, isConditionFailed } from './client';
import { DeliveryReads } from './delivery-reads';
import { ATTEMPTS_TABLE } from './tables';
import type { WriteBuffer } from './write-buffer';

const PK = ATTEMPTS_TABLE.partitionKey;
const SK = ATTEMPTS_TABLE.sortKey;
const FAILURES = ATTEMPTS_TABLE.finalFailuresIndex;
/** The listing an attempt page's cursor belongs to (core/cursor.ts). */
const LISTING = 'attempts';
const DAY_MS = 86_400_000;
/** Where a record sorts in its connection's log. */
const _position = (r: AttemptRecord) => attemptSortKey(r.deliveryId, r.attempt);

export interface DynamoAttemptsOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
  /**
   * A connection's attempt-log shard steps (core/attempt-shards.ts attemptShardSteps of the
   * connection): the dispatcher's cached connection reads, the management library's own.
   */
  shards: (connectionId: string) => Promise<AttemptShardStep[]>;
  /** Write each delivery's lookup items (delivery search, delivery-reads.ts). @default false */
  lookups?: boolean;
  /** Lookup items wait here for the batch end (write-buffer.ts). Absent: written at once. */
  buffer?: WriteBuffer;
}

export class DynamoAttempts implements AttemptTable {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly shards: DynamoAttemptsOptions['shards'];
  private readonly reads: PartitionReads;
  private readonly log: LogReads;
  private readonly deliveryReads: DeliveryReads;
  /** Whether appends write each delivery's lookup items (delivery search). */
  readonly lookups: boolean;

  constructor(options: DynamoAttemptsOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
    this.shards = options.shards;
    this.lookups = options.lookups ?? false;
    this.reads = new PartitionReads(this.client, this.tableName);
    this.log = new LogReads(this.client, this.tableName);
    this.deliveryReads = new DeliveryReads(
      this.client,
      this.tableName,
      this.reads,
      (id) => this.partitionsOf(id),
      options.buffer,
    );
  }

  /**
   * Writes the record, then, for a first attempt with delivery search on, its lookup items: after
   * the record, so only a record the log holds (written now or before, a redelivery) is findable.
   */
  async append(record: AttemptRecord, shards?: readonly AttemptShardStep[]): Promise<AppendOutcome> {
    const outcome = await this.put(record, shards);
    if (this.lookups && record.attempt === 1 && outcome !== 'conflict') {
      await this.deliveryReads.writeLookups(record);
    }
    return outcome;
  }

  private async put(record: AttemptRecord, shards?: readonly AttemptShardStep[]): Promise<AppendOutcome> {
    const count = shardCountOf(shards ?? (await this.shards(record.connectionId)), record.deliveryId);
    const shard = deliveryShard(record.deliveryId, count);
    const put = (item: Item) => putOnce(this.client, this.tableName, item);
    const first = await put(attemptItem(fitRecord(record, shard), shard));
    if (first.outcome !== 'conflict' || record.sendId === undefined || first.heldSendId === record.sendId) {
      return first.outcome;
    }
    // Another send of this attempt holds the plain key: this send is a record of its own.
    return (await put(attemptItem(fitRecord(record, shard, true), shard, true))).outcome;
  }

  /**
   * The item under a record's key. Only for a store that does not return the old item with a
   * failed condition (the local emulator); DynamoDB does, so the stack grants no read.
   */
  private read(item: Item): Promise<Item | undefined> {
    return readItem(this.client, this.tableName, item);
  }

  markResent(deliveryId: string, attempt: number): Promise<boolean> {
    return this.mark(deliveryId, attempt, 'SET', 'attribute_exists(#sk) AND attribute_not_exists(#r)');
  }

  async unmarkResent(deliveryId: string, attempt: number): Promise<void> {
    await this.mark(deliveryId, attempt, 'REMOVE', '#r = :next');
  }

  /**
   * Sets or removes an attempt's Resend mark under a condition, in the partition that holds the
   * attempt (found as ofDelivery finds it): false when the condition failed.
   */
  private async mark(deliveryId: string, attempt: number, op: 'SET' | 'REMOVE', condition: string) {
    const connectionId = connectionIdOf(deliveryId);
    const sortKey = attemptSortKey(deliveryId, attempt);
    const partitions = (await this.candidateShards(deliveryId)).map((s) => shardPartition(connectionId, s));
    // One candidate on nearly every connection; after a raise, the one its record was written in.
    const partition = partitions.length === 1 ? partitions[0]! : await this.holding(partitions, sortKey);
    if (!partition) return false;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: partition, [SK]: sortKey },
          UpdateExpression: op === 'SET' ? 'SET #r = :next' : 'REMOVE #r',
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#r': 'resentAs', ...(op === 'SET' ? { '#sk': SK } : {}) },
          ExpressionAttributeValues: { ':next': attempt + 1 },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  /** Which of these partitions holds the item with this sort key, if any. */
  private async holding(partitions: string[], sortKey: string): Promise<string | undefined> {
    const found = await Promise.all(
      partitions.map((partition) => this.read({ [PK]: partition, [SK]: sortKey } as Item)),
    );
    return partitions[found.findIndex((item) => item !== undefined)];
  }

  /**
   * The shards a delivery's records can be in: its placement (shardCountOf), and where any other
   * step would put it, so a writer that missed a raise (an event dated ahead of its time, read by
   * a stale cache) is found too.
   */
  private async candidateShards(deliveryId: string): Promise<number[]> {
    const steps = await this.shards(connectionIdOf(deliveryId));
    const placed = deliveryShard(deliveryId, shardCountOf(steps, deliveryId));
    return [...new Set([placed, ...steps.map((step) => deliveryShard(deliveryId, step.count))])];
  }

  /** The partitions of a connection's attempts: every shard any of its counts placed one in. */
  private async partitionsOf(connectionId: string): Promise<string[]> {
    const steps = await this.shards(connectionId);
    // Counts only grow (core/attempt-shards.ts), so the largest covers every earlier one.
    const most = Math.max(1, ...steps.map((step) => step.count));
    return Array.from({ length: most }, (_, shard) => shardPartition(connectionId, shard));
  }

  async ofDelivery(deliveryId: string): Promise<AttemptRecord[]> {
    const connectionId = connectionIdOf(deliveryId);
    const found = await Promise.all(
      (await this.candidateShards(deliveryId)).map((shard) =>
        this.reads.collect(
          {
            KeyConditionExpression: '#c = :c AND begins_with(#sk, :prefix)',
            ExpressionAttributeNames: { '#c': PK, '#sk': SK },
            ExpressionAttributeValues: {
              ':c': shardPartition(connectionId, shard),
              ':prefix': deliveryKeyPrefix(deliveryId),
            },
            ScanIndexForward: true,
          },
          // Attempt numbers never exceed MAX_ATTEMPT (envelope.ts), so this reads every one.
          MAX_ATTEMPT,
        ),
      ),
    );
    return mergeNewestFirst(found, MAX_ATTEMPT).reverse().map(recordOf);
  }

  async recent(query: {
    connectionId: string;
    since?: Date;
    failed?: boolean;
    limit: number;
  }): Promise<AttemptRecord[]> {
    const conditions = logConditions({ since: query.since });
    if (query.failed) addFilter(conditions, 'outcome', '<>', 'delivered');
    const partitions = await this.partitionsOf(query.connectionId);
    return (await this.log.recent(partitions, conditions, query.limit)).map(recordOf);
  }

  async finalFailures(query: { days: number; limit: number; now: Date }): Promise<AttemptRecord[]> {
    const out: AttemptRecord[] = [];
    for (let d = 0; d < query.days && out.length < query.limit; d++) {
      const day = new Date(query.now.getTime() - d * DAY_MS).toISOString().slice(0, 10);
      const wanted = query.limit - out.length;
      const found = await Promise.all(
        failurePartitionsOf(day).map((partition) =>
          this.reads.collect(
            {
              IndexName: FAILURES.name,
              KeyConditionExpression: '#day = :day',
              ExpressionAttributeNames: { '#day': FAILURES.partitionKey },
              ExpressionAttributeValues: { ':day': partition },
              ScanIndexForward: false,
            },
            wanted,
          ),
        ),
      );
      const byKey = (item: Item) => item[FAILURES.sortKey] as string;
      const merged = found.flat().sort((a, b) => (byKey(a) < byKey(b) ? 1 : byKey(a) > byKey(b) ? -1 : 0));
      out.push(...merged.slice(0, wanted).map(recordOf));
    }
    return out;
  }

  async page(query: AttemptPageQuery): Promise<Page<AttemptRecord>> {
    const after = decodeCursor(query.cursor, LISTING, query.connectionId, 2);
    const conditions = logConditions(query, after ? after.join('|') : undefined);
    const partitions = await this.partitionsOf(query.connectionId);
    const page = await this.log.page(partitions, conditions, query.limit);
    return {
      items: page.items.map(recordOf),
      ...(page.next
        ? { nextCursor: encodeCursor(LISTING, query.connectionId, positionParts(page.next)) }
        : {}),
    };
  }

  deliveries(query: DeliveryPageQuery): Promise<Page<DeliveryRef>> {
    return this.deliveryReads.page(query);
  }

  async inRange(query: { connectionId: string; since: Date; until: Date }): Promise<RangeRead> {
    return this.log.range(await this.partitionsOf(query.connectionId), query);
  }
}
