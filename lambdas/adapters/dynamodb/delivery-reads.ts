/**
 * An application's deliveries (core/stores.ts DeliveryPageQuery), newest first by delivery id
 * (the time the delivery was created, core/ids.ts). Two ways, both Queries:
 *
 * - Unfiltered, or by connection: every partition of every connection asked for, each read newest
 *   first keeping first attempts only (a filter: their retries are read and dropped), merged by
 *   sort key (attempt-reads.ts mergePages). Delivery ids end with their connection id, so sort
 *   keys never tie across connections and one position resumes them all.
 * - By user or event: the lookup items a delivery's first attempt writes when delivery search is
 *   on (tables.ts), one partition per user or event of an application.
 */

import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../../core/cursor';
import type { DeliveryPageQuery, DeliveryRef, Page } from '../../core/stores';
import type { AttemptRecord } from '../../core/types';
import { recordOf } from './attempt-item';
import {
  addFilter,
  type Item,
  mergePages,
  type PartitionReads,
  pageConditions,
  partitionParts,
} from './attempt-reads';
import { ATTEMPTS_TABLE } from './tables';
import type { WriteBuffer } from './write-buffer';

const PK = ATTEMPTS_TABLE.partitionKey;
const SK = ATTEMPTS_TABLE.sortKey;
const OF_CONNECTION = ATTEMPTS_TABLE.lookupConnectionAttribute;
const FIRST_ATTEMPT_AT = ATTEMPTS_TABLE.lookupTimeAttribute;
/** The listings a deliveries cursor belongs to: positions are sort keys of one kind of item each. */
const LISTING = { logs: 'deliveries', lookup: 'deliveries-by' } as const;

/** The partition of an application's lookup items for one user or one event. */
export function lookupPartition(applicationId: string, kind: 'user' | 'event', id: string): string {
  return `${applicationId}#${kind}#${id}`;
}

/** The two lookup items of a delivery's first attempt. */
export function lookupItems(record: AttemptRecord): Item[] {
  const base = {
    [SK]: record.deliveryId,
    [OF_CONNECTION]: record.connectionId,
    eventId: record.eventId,
    userId: record.userId,
    [FIRST_ATTEMPT_AT]: record.requestedAt,
    expiresAt: record.expiresAt,
  };
  return [
    { ...base, [PK]: lookupPartition(record.applicationId, 'user', record.userId) },
    { ...base, [PK]: lookupPartition(record.applicationId, 'event', record.eventId) },
  ];
}

export class DeliveryReads {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly reads: PartitionReads,
    /** Every partition of a connection's attempts. */
    private readonly partitionsOf: (connectionId: string) => Promise<string[]>,
    /** Lookup items wait here for the batch end. Absent: written at once. */
    private readonly buffer?: WriteBuffer,
  ) {}

  /** Writes a first attempt's lookup items (or holds them for the batch end); written again, they are the same items. */
  async writeLookups(record: AttemptRecord): Promise<void> {
    const { buffer } = this;
    if (buffer) {
      for (const item of lookupItems(record))
        buffer.put(this.tableName, `${item[PK]}\u0000${item[SK]}`, item);
      return;
    }
    await Promise.all(
      lookupItems(record).map((Item) =>
        this.client.send(new PutCommand({ TableName: this.tableName, Item })),
      ),
    );
  }

  page(query: DeliveryPageQuery): Promise<Page<DeliveryRef>> {
    if (query.userId !== undefined)
      return this.lookup(query, lookupPartition(query.applicationId, 'user', query.userId));
    if (query.eventId !== undefined)
      return this.lookup(query, lookupPartition(query.applicationId, 'event', query.eventId));
    return this.logs(query);
  }

  private async logs(query: DeliveryPageQuery): Promise<Page<DeliveryRef>> {
    const after = decodeCursor(query.cursor, LISTING.logs, query.applicationId, 1);
    const conditions = pageConditions(query, after?.[0]);
    addFilter(conditions, 'attempt', '=', 1);
    const partitions = (await Promise.all(query.connectionIds.map(this.partitionsOf))).flat();
    const parts = await partitionParts(this.reads, partitions, conditions, query.limit);
    const page = mergePages(parts, query.limit);
    return {
      items: page.items.map((item) => refOf(recordOf(item))),
      ...(page.next ? { nextCursor: encodeCursor(LISTING.logs, query.applicationId, [page.next]) } : {}),
    };
  }

  private async lookup(query: DeliveryPageQuery, partition: string): Promise<Page<DeliveryRef>> {
    const after = decodeCursor(query.cursor, LISTING.lookup, partition, 1)?.[0];
    // The same key bound and time filters as the logs' listing (pageConditions): lookup items
    // carry the delivery id as sort key and the first attempt's time.
    const conditions = pageConditions(query, after, FIRST_ATTEMPT_AT);
    if (query.connectionId) addFilter(conditions, OF_CONNECTION, '=', query.connectionId);
    const parts = await partitionParts(this.reads, [partition], conditions, query.limit);
    const page = mergePages(parts, query.limit);
    return {
      items: page.items.map((item) => ({
        deliveryId: item[SK] as string,
        connectionId: item[OF_CONNECTION] as string,
        eventId: item.eventId as string,
        userId: item.userId as string,
        requestedAt: item[FIRST_ATTEMPT_AT] as string,
      })),
      ...(page.next ? { nextCursor: encodeCursor(LISTING.lookup, partition, [page.next]) } : {}),
    };
  }
}

function refOf(record: AttemptRecord): DeliveryRef {
  const { deliveryId, connectionId, eventId, userId, requestedAt } = record;
  return { deliveryId, connectionId, eventId, userId, requestedAt };
}
