/**
 * Shapes attempt-log items (DESIGN.md §5) and keeps a successful attempt within one
 * DynamoDB write unit: the item, keys included, stays at or under 1 KB.
 */

import { ATTEMPTS_TABLE } from '../tables';
import { WRITE_UNIT_BYTES } from './constants';
import { truncateUtf8 } from './redact';
import type { AttemptRecord } from './types';

/** Sort key of an attempt: delivery id, then the attempt number zero-padded so it sorts. */
export function attemptSortKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${String(attempt).padStart(4, '0')}`;
}

/** The DynamoDB item of a record: keys added, the sparse failure index only on final failures. */
export function attemptItem(record: AttemptRecord): Record<string, unknown> {
  const item: Record<string, unknown> = {
    ...record,
    [ATTEMPTS_TABLE.sortKey]: attemptSortKey(record.deliveryId, record.attempt),
  };
  for (const [key, value] of Object.entries(item)) if (value === undefined) delete item[key];
  if (record.final && record.outcome !== 'delivered') {
    item[ATTEMPTS_TABLE.finalFailuresIndex.partitionKey] = record.requestedAt.slice(0, 10);
    item[ATTEMPTS_TABLE.finalFailuresIndex.sortKey] = `${record.requestedAt}#${record.deliveryId}`;
  }
  return item;
}

/** DynamoDB's item size: attribute name bytes plus value bytes (numbers approximated from above). */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
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
 * Trims a successful attempt's response snippet, then its target, until the item fits one
 * write unit. Failed attempts keep their full 1 KiB snippet: it is what an operator reads.
 */
export function fitRecord(record: AttemptRecord): AttemptRecord {
  if (record.outcome !== 'delivered') return record;
  let over = itemSize(attemptItem(record)) - WRITE_UNIT_BYTES;
  if (over <= 0) return record;
  const fitted = { ...record };
  if (fitted.responseSnippet) {
    const keep = Math.max(0, Buffer.byteLength(fitted.responseSnippet, 'utf8') - over);
    fitted.responseSnippet = truncateUtf8(fitted.responseSnippet, keep);
    if (!fitted.responseSnippet) delete fitted.responseSnippet;
    over = itemSize(attemptItem(fitted)) - WRITE_UNIT_BYTES;
  }
  if (over > 0) {
    // '…' is 3 bytes: make room for it too.
    const keep = Math.max(0, Buffer.byteLength(fitted.target, 'utf8') - over - 3);
    fitted.target = `${truncateUtf8(fitted.target, keep)}…`;
  }
  return fitted;
}
