/**
 * The attempt log's storage format (docs/design.md §5): an attempt record as a DynamoDB item, and
 * a successful attempt kept within one DynamoDB write unit (the item, keys included, stays at
 * or under 1 KB). DynamoDB's sizing rules live here, beside the item they measure, not in the
 * core: another attempt log (or another store) would have its own.
 */

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { deliveryShard } from '../../core/ids';
import { truncateUtf8 } from '../../core/redact';
import type { AttemptRecord, RequestHeader } from '../../core/types';
import { ATTEMPTS_TABLE } from './tables';

/** docs/design.md §5: a successful attempt is one DynamoDB write unit (items up to 1 KB). */
export const WRITE_UNIT_BYTES = 1024;

/**
 * Sort key of an attempt: delivery id, then the attempt number zero-padded so it sorts. A second
 * send of the same attempt (its queue message delivered twice) adds `#<sendId>`: it sorts after
 * the first and before the next attempt, and is read with every other attempt of the delivery.
 */
export function attemptSortKey(deliveryId: string, attempt: number, sendId?: string): string {
  const key = `${deliveryKeyPrefix(deliveryId)}${String(attempt).padStart(4, '0')}`;
  return sendId === undefined ? key : `${key}#${sendId}`;
}

/** The send id a record's key carries: its own when it is a repeated send of its attempt. */
const keySendId = (record: AttemptRecord, repeat: boolean) => (repeat ? record.sendId : undefined);

/** What every attempt of one delivery's sort key begins with (a `begins_with` query reads them all). */
export function deliveryKeyPrefix(deliveryId: string): string {
  return `${deliveryId}#`;
}

/**
 * The body's stored form: deflate (raw, no header) of its UTF-8 bytes, a Binary attribute. A
 * user.identified body takes 0.65–0.68 of its size with small or typical metadata and 0.23 with 100
 * keys (`npm run bench -- --only bodyStorage`, docs/design.md §5 "The request is kept"), so a
 * delivery's first record takes 2 write units where it would take 1 without the body.
 */
export function encodeBody(body: string): Uint8Array {
  return new Uint8Array(deflateRawSync(Buffer.from(body, 'utf8')));
}

export function decodeBody(stored: Uint8Array): string {
  return inflateRawSync(stored).toString('utf8');
}

/**
 * The request headers' stored form: one string, a header a line, `name: value` as HTTP writes
 * them. Names are tokens and values hold no CR or LF (core/headers.ts), so it reads back exactly;
 * a string keeps the item's attributes scalar.
 */
export function encodeHeaders(headers: readonly RequestHeader[]): string {
  return headers.map((h) => `${h.name}: ${h.value}`).join('\n');
}

export function decodeHeaders(text: string): RequestHeader[] {
  if (text === '') return [];
  return text.split('\n').map((line) => {
    const at = line.indexOf(': ');
    return { name: line.slice(0, at), value: line.slice(at + 2) };
  });
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
 * sparse failure index only on final failures. `repeat`: another send of the attempt holds its
 * plain key, so this one's key carries its send id.
 */
export function attemptItem(record: AttemptRecord, shard = 0, repeat = false): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const key in record) {
    const value = record[key as keyof AttemptRecord];
    if (value !== undefined) item[key] = value;
  }
  item[ATTEMPTS_TABLE.partitionKey] = shardPartition(record.connectionId, shard);
  if (record.requestHeaders) item.requestHeaders = encodeHeaders(record.requestHeaders);
  if (record.body !== undefined) item.body = encodeBody(record.body);
  item[ATTEMPTS_TABLE.sortKey] = attemptSortKey(record.deliveryId, record.attempt, keySendId(record, repeat));
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
  if (typeof record.requestHeaders === 'string') record.requestHeaders = decodeHeaders(record.requestHeaders);
  if (record.body instanceof Uint8Array) record.body = decodeBody(record.body);
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
    else if (value instanceof Uint8Array) size += value.byteLength;
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
export function deliveredItemSize(record: AttemptRecord, shard = 0, repeat = false): number {
  const sortKey = attemptSortKey(record.deliveryId, record.attempt, keySendId(record, repeat));
  const suffix = shard === 0 ? 0 : `#${shard}`.length;
  const { requestHeaders, ...rest } = record;
  const headers = requestHeaders
    ? 'requestHeaders'.length + Buffer.byteLength(encodeHeaders(requestHeaders))
    : 0;
  return (
    itemSize(rest) + headers + suffix + ATTEMPTS_TABLE.sortKey.length + Buffer.byteLength(sortKey, 'utf8')
  );
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
    // A traced attempt's `traceId` (ASCII, name and value): not among the fixed bytes above.
    (record.traceId ? 7 + record.traceId.length : 0) +
    // The send id (ASCII, name and value), twice when a repeated send's key carries it too.
    (record.sendId ? 7 + 2 * record.sendId.length : 0) +
    3 * (record.target.length + (record.responseSnippet?.length ?? 0)) +
    (record.requestHeaders ? 'requestHeaders'.length + 3 * headersLength(record.requestHeaders) : 0);
  return bound <= WRITE_UNIT_BYTES;
}

/** UTF-16 length of the headers' stored text (an upper bound of its bytes / 3). */
function headersLength(headers: readonly RequestHeader[]): number {
  let n = 0;
  for (const h of headers) n += h.name.length + h.value.length + 3;
  return n;
}

/**
 * Trims a successful attempt's response snippet, then its target, until its item in shard
 * `shard` fits one write unit. Failed attempts keep their full 1 KiB snippet: it is what an
 * operator reads. A record that carries the delivery's body (a first attempt, docs/design.md §5)
 * is not trimmed: the body takes its own write unit whatever the snippet, and the body is what
 * it is kept for.
 */
export function fitRecord(record: AttemptRecord, shard = 0, repeat = false): AttemptRecord {
  if (record.outcome !== 'delivered' || record.body !== undefined) return record;
  if (certainlyOneWriteUnit(record)) return record;
  const size = (r: AttemptRecord) => deliveredItemSize(r, shard, repeat);
  let over = size(record) - WRITE_UNIT_BYTES;
  if (over <= 0) return record;
  const fitted = { ...record };
  if (fitted.responseSnippet) {
    const keep = Math.max(0, Buffer.byteLength(fitted.responseSnippet, 'utf8') - over);
    fitted.responseSnippet = truncateUtf8(fitted.responseSnippet, keep);
    if (!fitted.responseSnippet) delete fitted.responseSnippet;
    over = size(fitted) - WRITE_UNIT_BYTES;
  }
  if (over > 0 && fitted.requestHeaders) {
    // Only many long custom header names get here; the headers are the same on every attempt.
    delete fitted.requestHeaders;
    over = size(fitted) - WRITE_UNIT_BYTES;
  }
  if (over > 0) {
    // '…' is 3 bytes: make room for it too.
    const keep = Math.max(0, Buffer.byteLength(fitted.target, 'utf8') - over - 3);
    fitted.target = `${truncateUtf8(fitted.target, keep)}…`;
  }
  return fitted;
}

/** An attribute as DynamoDB returns it in an error (not unmarshalled by the document client). */
export type StoredValue = { S?: string; N?: string; BOOL?: boolean; B?: Uint8Array };

/** Attempt items hold strings, numbers, booleans and the body's bytes: compared attribute by attribute. */
export function sameAsStored(stored: Record<string, StoredValue>, item: Record<string, unknown>): boolean {
  const keys = Object.keys(item);
  if (keys.length !== Object.keys(stored).length) return false;
  return keys.every((k) => {
    const v = item[k];
    const s = stored[k];
    if (!s) return false;
    if (typeof v === 'string') return s.S === v;
    if (typeof v === 'number') return s.N !== undefined && Number(s.N) === v;
    if (typeof v === 'boolean') return s.BOOL === v;
    if (v instanceof Uint8Array) return s.B !== undefined && sameBytes(s.B, v);
    return false;
  });
}

/** Attempt items hold scalars and bytes only: equal when every attribute is equal. */
export function sameItem(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((k) => {
      const x = a[k];
      const y = b[k];
      return x instanceof Uint8Array && y instanceof Uint8Array ? sameBytes(x, y) : x === y;
    })
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
