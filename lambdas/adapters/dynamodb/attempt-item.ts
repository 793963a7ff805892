/**
 * The attempt log's storage format (docs/design.md §5): an attempt record as a DynamoDB item, and
 * a successful attempt kept within one DynamoDB write unit (the item, keys included, stays at
 * or under 1 KB). DynamoDB's sizing rules live here, beside the item they measure, not in the
 * core: another attempt log (or another store) would have its own.
 */

import { deliveryShard } from '../../core/ids';
import { truncateUtf8 } from '../../core/redact';
import type { AttemptRecord } from '../../core/types';
import { ATTEMPTS_TABLE } from './tables';

/** docs/design.md §5: a successful attempt is one DynamoDB write unit (items up to 1 KB). */
export const WRITE_UNIT_BYTES = 1024;

/** Sort key of an attempt: delivery id, then the attempt number zero-padded so it sorts. */
export function attemptSortKey(deliveryId: string, attempt: number): string {
  return `${deliveryKeyPrefix(deliveryId)}${String(attempt).padStart(4, '0')}`;
}

/** What every attempt of one delivery's sort key begins with (a `begins_with` query reads them all). */
export function deliveryKeyPrefix(deliveryId: string): string {
  return `${deliveryId}#`;
}

/** The partition key of shard `shard` of a connection: the bare id for shard 0 (tables.ts). */
export function shardPartition(connectionId: string, shard: number): string {
  return shard === 0 ? connectionId : `${connectionId}#${shard}`;
}

/** The partition of the final-failures index that a delivery's final failure on `day` goes to. */
export function failurePartition(day: string, deliveryId: string): string {
  const shard = deliveryShard(deliveryId, ATTEMPTS_TABLE.finalFailuresShards);
  return shard === 0 ? day : `${day}#${shard}`;
}

/** Every partition of one day of the final-failures index. */
export function failurePartitionsOf(day: string): string[] {
  return Array.from({ length: ATTEMPTS_TABLE.finalFailuresShards }, (_, s) =>
    s === 0 ? day : `${day}#${s}`,
  );
}

/** The index sort key of a final failure: newest first across connections. */
export function failureSortKey(record: Pick<AttemptRecord, 'requestedAt' | 'deliveryId'>): string {
  return `${record.requestedAt}#${record.deliveryId}`;
}

/**
 * The DynamoDB item of a record placed in shard `shard` of its connection: keys added, the
 * sparse failure index only on final failures.
 */
export function attemptItem(record: AttemptRecord, shard = 0): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const key in record) {
    const value = record[key as keyof AttemptRecord];
    if (value !== undefined) item[key] = value;
  }
  item[ATTEMPTS_TABLE.partitionKey] = shardPartition(record.connectionId, shard);
  item[ATTEMPTS_TABLE.sortKey] = attemptSortKey(record.deliveryId, record.attempt);
  if (record.final && record.outcome !== 'delivered') {
    item[ATTEMPTS_TABLE.finalFailuresIndex.partitionKey] = failurePartition(
      record.requestedAt.slice(0, 10),
      record.deliveryId,
    );
    item[ATTEMPTS_TABLE.finalFailuresIndex.sortKey] = failureSortKey(record);
  }
  return item;
}

/** The record an item holds: the item without its key and index attributes, its connection id unsharded. */
export function recordOf(item: Record<string, unknown>): AttemptRecord {
  const {
    [ATTEMPTS_TABLE.sortKey]: _sk,
    [ATTEMPTS_TABLE.finalFailuresIndex.partitionKey]: _day,
    [ATTEMPTS_TABLE.finalFailuresIndex.sortKey]: _key,
    ...record
  } = item;
  const partition = record[ATTEMPTS_TABLE.partitionKey];
  // Connection ids hold no `#` (core/ids.ts), so what precedes it is the connection.
  if (typeof partition === 'string') record[ATTEMPTS_TABLE.partitionKey] = partition.split('#')[0];
  return record as unknown as AttemptRecord;
}

/**
 * DynamoDB's item size: attribute name bytes plus value bytes. Numbers are counted from above
 * (every digit, not only significant ones, plus 2), so the size is never under-counted; the
 * unit test checks it against DynamoDB's own rules, computed independently.
 */
export function itemSize(item: object): number {
  let size = 0;
  for (const name in item) {
    const value = (item as Record<string, unknown>)[name];
    if (value === undefined) continue;
    size += Buffer.byteLength(name, 'utf8');
    if (typeof value === 'string') size += Buffer.byteLength(value, 'utf8');
    else if (typeof value === 'number')
      size += Math.ceil(String(Math.abs(value)).replace('.', '').length / 2) + 2;
    else if (typeof value === 'boolean' || value === null) size += 1;
    else size += Buffer.byteLength(JSON.stringify(value), 'utf8') + 3;
  }
  return size;
}

/**
 * The item size of a successful attempt's record in shard `shard`, without building the item:
 * the record's attributes, the shard's `#<n>` on the partition key and the sort key (a success
 * has no index attributes).
 */
export function deliveredItemSize(record: AttemptRecord, shard = 0): number {
  const sortKey = attemptSortKey(record.deliveryId, record.attempt);
  const suffix = shard === 0 ? 0 : `#${shard}`.length;
  return itemSize(record) + suffix + ATTEMPTS_TABLE.sortKey.length + Buffer.byteLength(sortKey, 'utf8');
}

/**
 * What a successful attempt's item takes besides its ids, target and snippet: the attribute
 * names (145 bytes with the sort key's), the fixed words and times (event, method, outcome,
 * requestedAt, final, test: 56), five numbers (≤ 12 bytes each here) and the sort key's
 * `#` and attempt digits (≤ 11), and a shard's `#<n>` on the partition key (≤ 3). Rounded up.
 */
const DELIVERED_FIXED_BYTES = 300;

/**
 * True when a successful attempt's item is certainly within one write unit, measured without
 * a byte count: ids are ASCII (their formats allow nothing else), and any other character
 * takes at most 3 UTF-8 bytes per UTF-16 code unit.
 */
export function certainlyOneWriteUnit(record: AttemptRecord): boolean {
  const bound =
    DELIVERED_FIXED_BYTES +
    record.deliveryId.length * 2 +
    record.eventId.length +
    record.connectionId.length +
    record.applicationId.length +
    record.userId.length +
    3 * (record.target.length + (record.responseSnippet?.length ?? 0));
  return bound <= WRITE_UNIT_BYTES;
}

/**
 * Trims a successful attempt's response snippet, then its target, until its item in shard
 * `shard` fits one write unit. Failed attempts keep their full 1 KiB snippet: it is what an operator reads.
 */
export function fitRecord(record: AttemptRecord, shard = 0): AttemptRecord {
  if (record.outcome !== 'delivered') return record;
  if (certainlyOneWriteUnit(record)) return record;
  let over = deliveredItemSize(record, shard) - WRITE_UNIT_BYTES;
  if (over <= 0) return record;
  const fitted = { ...record };
  if (fitted.responseSnippet) {
    const keep = Math.max(0, Buffer.byteLength(fitted.responseSnippet, 'utf8') - over);
    fitted.responseSnippet = truncateUtf8(fitted.responseSnippet, keep);
    if (!fitted.responseSnippet) delete fitted.responseSnippet;
    over = deliveredItemSize(fitted, shard) - WRITE_UNIT_BYTES;
  }
  if (over > 0) {
    // '…' is 3 bytes: make room for it too.
    const keep = Math.max(0, Buffer.byteLength(fitted.target, 'utf8') - over - 3);
    fitted.target = `${truncateUtf8(fitted.target, keep)}…`;
  }
  return fitted;
}
