/**
 * The attempt log in memory (core/stores.ts AttemptTable), behaving as
 * lambdas/adapters/dynamodb/attempts.ts does: a record is never replaced (the same one again is
 * a `duplicate`, another one of the same send a `conflict`, another send's kept beside it under
 * its send id); a connection's attempts come newest first by attempt time, a tie by delivery id
 * then attempt number; final failures by UTC day, newest first; pages resume from opaque cursors
 * bound to the connection; a chart reads the attempts of its window. The contract suite
 * (test/contract/attempts.test.ts) runs the same tests against both.
 *
 * One difference is DynamoDB's alone: a successful attempt's record is not trimmed to one
 * write unit (attempt-item.ts fitRecord), a limit of the item, not of the log.
 */

import { MAX_ATTEMPT } from '../../../lambdas/core/constants';
import { decodeCursor, encodeCursor } from '../../../lambdas/core/cursor';
import { connectionIdOf } from '../../../lambdas/core/ids';
import type { AppendOutcome } from '../../../lambdas/core/ports';
import {
  type AttemptPageQuery,
  type AttemptTable,
  type DeliveryPageQuery,
  type DeliveryRef,
  MAX_RANGE_ITEMS,
  type Page,
  type RangeRead,
} from '../../../lambdas/core/stores';
import type { AttemptRecord } from '../../../lambdas/core/types';
import { checkOutage, noOutage, type Outage } from './outage';

const LISTING = 'attempts';
const DAY_MS = 86_400_000;

/** The key of a repeated send's record (its attempt's key and `#<sendId>`), by the record stored. */
const repeatKeys = new WeakMap<AttemptRecord, string>();
/** Where a record sorts in its connection's log: delivery id, then the attempt number (then a repeat's send id). */
const position = (r: AttemptRecord) =>
  repeatKeys.get(r) ?? `${r.deliveryId}#${String(r.attempt).padStart(4, '0')}`;
const newestFirst = (a: AttemptRecord, b: AttemptRecord) => (position(a) < position(b) ? 1 : -1);
/** Where a record sorts in its connection's log: attempt time, then its position. */
const logPosition = (r: AttemptRecord) => `${r.requestedAt}|${position(r)}`;
const newestAttemptFirst = (a: AttemptRecord, b: AttemptRecord) => (logPosition(a) < logPosition(b) ? 1 : -1);

export class MemoryAttempts implements AttemptTable {
  /** Every record written, in the order written (tests may empty it; the log keeps them). */
  readonly records: AttemptRecord[] = [];
  private readonly byKey = new Map<string, AttemptRecord>();

  constructor(
    /** Operations: append, markResent, ofDelivery, recent, finalFailures, page, deliveries, inRange. */
    private readonly outage: Outage = noOutage,
    /** Delivery search on: first attempts are findable by user and event, as the DynamoDB log's lookup items make them. */
    private readonly lookups = true,
  ) {}

  private check(operation: string): void {
    checkOutage(this.outage, operation, 'DynamoDB');
  }

  /** Forgets every record (between benchmark rounds). */
  clear(): void {
    this.records.length = 0;
    this.byKey.clear();
  }

  async append(record: AttemptRecord): Promise<AppendOutcome> {
    this.check('append');
    const stored = defined(record);
    const key = `${record.connectionId} ${position(record)}`;
    const existing = this.byKey.get(key);
    if (!existing) return this.put(key, stored);
    if (same(existing, stored)) return 'duplicate';
    // Another send of the attempt holds the key: this send is kept beside it, keyed by its send id.
    if (record.sendId === undefined || existing.sendId === record.sendId) return 'conflict';
    const again = `${key}#${record.sendId}`;
    const held = this.byKey.get(again);
    if (!held) {
      repeatKeys.set(stored, `${position(stored)}#${record.sendId}`);
      return this.put(again, stored);
    }
    return same(held, stored) ? 'duplicate' : 'conflict';
  }

  private put(key: string, record: AttemptRecord): AppendOutcome {
    this.byKey.set(key, record);
    this.records.push(record);
    return 'written';
  }

  async markResent(deliveryId: string, attempt: number): Promise<boolean> {
    this.check('markResent');
    const key = `${connectionIdOf(deliveryId)} ${deliveryId}#${String(attempt).padStart(4, '0')}`;
    const existing = this.byKey.get(key);
    if (!existing || existing.resentAs !== undefined) return false;
    this.byKey.set(key, { ...existing, resentAs: attempt + 1 });
    return true;
  }

  async unmarkResent(deliveryId: string, attempt: number): Promise<void> {
    this.check('unmarkResent');
    const key = `${connectionIdOf(deliveryId)} ${deliveryId}#${String(attempt).padStart(4, '0')}`;
    const existing = this.byKey.get(key);
    if (existing?.resentAs !== attempt + 1) return;
    const { resentAs: _, ...rest } = existing;
    this.byKey.set(key, rest);
  }

  /** A connection's records, newest first. */
  private log(connectionId: string): AttemptRecord[] {
    return [...this.byKey.values()].filter((r) => r.connectionId === connectionId).sort(newestAttemptFirst);
  }

  async ofDelivery(deliveryId: string): Promise<AttemptRecord[]> {
    this.check('ofDelivery');
    return this.log(connectionIdOf(deliveryId))
      .filter((r) => r.deliveryId === deliveryId)
      .sort(newestFirst)
      .reverse()
      .slice(0, MAX_ATTEMPT);
  }

  async recent(query: {
    connectionId: string;
    since?: Date;
    failed?: boolean;
    limit: number;
  }): Promise<AttemptRecord[]> {
    this.check('recent');
    const since = query.since?.toISOString();
    return this.log(query.connectionId)
      .filter(
        (r) =>
          (since === undefined || r.requestedAt >= since) && (!query.failed || r.outcome !== 'delivered'),
      )
      .slice(0, query.limit);
  }

  async finalFailures(query: { days: number; limit: number; now: Date }): Promise<AttemptRecord[]> {
    this.check('finalFailures');
    const failures = [...this.byKey.values()].filter((r) => r.final && r.outcome !== 'delivered');
    const key = (r: AttemptRecord) => `${r.requestedAt}#${r.deliveryId}`;
    const out: AttemptRecord[] = [];
    for (let d = 0; d < query.days && out.length < query.limit; d++) {
      const day = new Date(query.now.getTime() - d * DAY_MS).toISOString().slice(0, 10);
      const ofDay = failures.filter((r) => r.requestedAt.slice(0, 10) === day);
      out.push(...ofDay.sort((a, b) => (key(a) < key(b) ? 1 : -1)).slice(0, query.limit - out.length));
    }
    return out;
  }

  async page(query: AttemptPageQuery): Promise<Page<AttemptRecord>> {
    this.check('page');
    const after = decodeCursor(query.cursor, LISTING, query.connectionId, 2)?.join('|');
    const since = query.since?.toISOString();
    const until = query.until?.toISOString();
    const rest = this.log(query.connectionId).filter(
      (r) =>
        (after === undefined || logPosition(r) < after) &&
        (until === undefined || r.requestedAt < until) &&
        (since === undefined || r.requestedAt >= since) &&
        (query.outcome === undefined || r.outcome === query.outcome) &&
        (query.final === undefined || r.final === query.final),
    );
    const items = rest.slice(0, query.limit);
    const last = items.at(-1)!;
    return rest.length > items.length
      ? { items, nextCursor: encodeCursor(LISTING, query.connectionId, [last.requestedAt, position(last)]) }
      : { items };
  }

  async deliveries(query: DeliveryPageQuery): Promise<Page<DeliveryRef>> {
    this.check('deliveries');
    const found = (r: AttemptRecord) =>
      query.userId !== undefined
        ? this.lookups && r.applicationId === query.applicationId && r.userId === query.userId
        : query.eventId !== undefined
          ? this.lookups && r.applicationId === query.applicationId && r.eventId === query.eventId
          : query.connectionIds.includes(r.connectionId);
    const lookup = query.userId ?? query.eventId;
    const listing = lookup === undefined ? 'deliveries' : 'deliveries-by';
    const scope = lookup === undefined ? query.applicationId : `${query.applicationId}#${lookup}`;
    const after = decodeCursor(query.cursor, listing, scope, 1)?.[0];
    const since = query.since?.toISOString();
    const until = query.until?.toISOString();
    const rest = [...this.byKey.values()]
      .filter(
        (r) =>
          r.attempt === 1 &&
          found(r) &&
          (query.connectionId === undefined || r.connectionId === query.connectionId) &&
          (after === undefined || r.deliveryId < after) &&
          (since === undefined || r.requestedAt >= since) &&
          (until === undefined || r.requestedAt < until),
      )
      .sort(newestFirst);
    const items = rest
      .slice(0, query.limit)
      .map(({ deliveryId, connectionId, eventId, userId, requestedAt }) => ({
        deliveryId,
        connectionId,
        eventId,
        userId,
        requestedAt,
      }));
    return rest.length > items.length
      ? { items, nextCursor: encodeCursor(listing, scope, [items.at(-1)!.deliveryId]) }
      : { items };
  }

  async inRange(query: { connectionId: string; since: Date; until: Date }): Promise<RangeRead> {
    this.check('inRange');
    const since = query.since.toISOString();
    const until = query.until.toISOString();
    const read = this.log(query.connectionId)
      .reverse()
      .filter((r) => r.requestedAt >= since && r.requestedAt < until);
    const items = read.slice(0, MAX_RANGE_ITEMS);
    return { items, scanned: items.length, readUnits: 0, truncated: read.length > items.length };
  }
}

/** The record without undefined fields, as a store keeps it. */
function defined(record: AttemptRecord): AttemptRecord {
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined),
  ) as unknown as AttemptRecord;
}

/** Records hold scalars and the request headers' list: the same when every field is. */
function same(a: AttemptRecord, b: AttemptRecord): boolean {
  const keys = Object.keys(a) as (keyof AttemptRecord)[];
  return (
    keys.length === Object.keys(b).length &&
    keys.every((k) => a[k] === b[k] || JSON.stringify(a[k]) === JSON.stringify(b[k]))
  );
}
