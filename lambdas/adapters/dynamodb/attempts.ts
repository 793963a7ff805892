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
 * a redelivery: nothing to do) from a different record (refused; the caller logs it). A
 * successful attempt is trimmed to one write unit here, where the item's size is known.
 *
 * Every read is a Query, never a Scan: a connection's attempts are its partition, newest first
 * because delivery ids are time-ordered; a delivery's are a prefix of it; final failures are a
 * sparse index with one partition per UTC day.
 */

import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { MAX_ATTEMPT } from '../../core/constants';
import { decodeCursor, encodeCursor } from '../../core/cursor';
import { connectionIdOf, deliveryIdTimePrefix } from '../../core/ids';
import type { AppendOutcome } from '../../core/ports';
import {
  type AttemptPageQuery,
  type AttemptTable,
  MAX_RANGE_ITEMS,
  type Page,
  RANGE_LOOKBACK_MS,
  type RangeRead,
} from '../../core/stores';
import type { AttemptRecord } from '../../core/types';
import { attemptItem, deliveryKeyPrefix, fitRecord, recordOf } from './attempt-item';
import { documentClient, isConditionFailed } from './client';
import { ATTEMPTS_TABLE } from './tables';

const PK = ATTEMPTS_TABLE.partitionKey;
const SK = ATTEMPTS_TABLE.sortKey;
const FAILURES = ATTEMPTS_TABLE.finalFailuresIndex;
/** The listing an attempt page's cursor belongs to (core/cursor.ts). */
const LISTING = 'attempts';
const DAY_MS = 86_400_000;
/** Pages read at most for one unpaged listing, so a filter that matches little cannot read forever. */
const MAX_PAGES = 50;
/** Items one page reads while filtering. */
const FILTER_PAGE_ITEMS = 100;
/** Pages read at most per API page, so a filter matching little cannot read forever. */
const MAX_PAGES_PER_CALL = 10;

type Item = Record<string, unknown>;
type Key = Record<string, string>;

export interface DynamoAttemptsOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoAttempts implements AttemptTable {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoAttemptsOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  async append(record: AttemptRecord): Promise<AppendOutcome> {
    const item = attemptItem(fitRecord(record));
    let existing: Item | undefined;
    try {
      // Costs the same write unit as an unconditional put; no read on the normal path.
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#sk)',
          ExpressionAttributeNames: { '#sk': SK },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'written';
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const old = (error as { Item?: Record<string, StoredValue> }).Item;
      if (old) return sameAsStored(old, item) ? 'duplicate' : 'conflict';
      existing = await this.read(item);
    }
    return existing && sameItem(existing, item) ? 'duplicate' : 'conflict';
  }

  /**
   * The item under a record's key. Only for a store that does not return the old item with a
   * failed condition (the local emulator); DynamoDB does, so the stack grants no read.
   */
  private async read(item: Item): Promise<Item | undefined> {
    const key = { [PK]: item[PK], [SK]: item[SK] };
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }

  ofDelivery(deliveryId: string): Promise<AttemptRecord[]> {
    return this.collect(
      {
        KeyConditionExpression: '#c = :c AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#c': PK, '#sk': SK },
        // The partition comes from the delivery id itself (core/ids.ts).
        ExpressionAttributeValues: {
          ':c': connectionIdOf(deliveryId),
          ':prefix': deliveryKeyPrefix(deliveryId),
        },
        ScanIndexForward: true,
      },
      // Attempt numbers never exceed MAX_ATTEMPT (envelope.ts), so this reads every one.
      MAX_ATTEMPT,
    );
  }

  recent(query: {
    connectionId: string;
    since?: Date;
    failed?: boolean;
    limit: number;
  }): Promise<AttemptRecord[]> {
    const filters: string[] = [];
    const values: Item = { ':c': query.connectionId };
    const names: Key = { '#c': PK };
    if (query.since) {
      filters.push('requestedAt >= :since');
      values[':since'] = query.since.toISOString();
    }
    if (query.failed) {
      filters.push('#o <> :delivered');
      names['#o'] = 'outcome';
      values[':delivered'] = 'delivered';
    }
    return this.collect(
      {
        KeyConditionExpression: '#c = :c',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
        ScanIndexForward: false,
        Limit: Math.min(query.limit, 100),
      },
      query.limit,
    );
  }

  async finalFailures(query: { days: number; limit: number; now: Date }): Promise<AttemptRecord[]> {
    const out: AttemptRecord[] = [];
    for (let d = 0; d < query.days && out.length < query.limit; d++) {
      const day = new Date(query.now.getTime() - d * DAY_MS).toISOString().slice(0, 10);
      const found = await this.collect(
        {
          IndexName: FAILURES.name,
          KeyConditionExpression: '#day = :day',
          ExpressionAttributeNames: { '#day': FAILURES.partitionKey },
          ExpressionAttributeValues: { ':day': day },
          ScanIndexForward: false,
        },
        query.limit - out.length,
      );
      out.push(...found);
    }
    return out;
  }

  async page(query: AttemptPageQuery): Promise<Page<AttemptRecord>> {
    const after = decodeCursor(query.cursor, LISTING, query.connectionId, 1);
    const filters: string[] = [];
    const names: Key = { '#c': PK };
    const values: Item = { ':c': query.connectionId };
    let keyCondition = '#c = :c';
    if (query.until) {
      // No delivery created after `until` can have an attempt before it: bound the key range.
      names['#sk'] = SK;
      values[':hi'] = `${deliveryIdTimePrefix(query.until.getTime())}~`;
      keyCondition += ' AND #sk <= :hi';
      filters.push('requestedAt < :until');
      values[':until'] = query.until.toISOString();
    }
    if (query.since) {
      filters.push('requestedAt >= :since');
      values[':since'] = query.since.toISOString();
    }
    if (query.outcome) {
      filters.push('#o = :o');
      names['#o'] = 'outcome';
      values[':o'] = query.outcome;
    }
    if (query.final !== undefined) {
      filters.push('#f = :f');
      names['#f'] = 'final';
      values[':f'] = query.final;
    }
    const page = await this.filteredPage(
      {
        KeyConditionExpression: keyCondition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
        ScanIndexForward: false,
        ExclusiveStartKey: after ? { [PK]: query.connectionId, [SK]: after[0]! } : undefined,
      },
      query.limit,
    );
    return {
      items: page.items.map(recordOf),
      ...(page.next ? { nextCursor: encodeCursor(LISTING, query.connectionId, [page.next[SK]!]) } : {}),
    };
  }

  async inRange(query: { connectionId: string; since: Date; until: Date }): Promise<RangeRead> {
    const items: AttemptRecord[] = [];
    let scanned = 0;
    let readUnits = 0;
    let startKey: Key | undefined;
    const since = query.since.toISOString();
    const until = query.until.toISOString();
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#c = :c AND #sk BETWEEN :lo AND :hi',
          ExpressionAttributeNames: { '#c': PK, '#sk': SK },
          ExpressionAttributeValues: {
            ':c': query.connectionId,
            ':lo': deliveryIdTimePrefix(query.since.getTime() - RANGE_LOOKBACK_MS),
            ':hi': `${deliveryIdTimePrefix(query.until.getTime())}~`,
          },
          ExclusiveStartKey: startKey,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      readUnits += out.ConsumedCapacity?.CapacityUnits ?? 0;
      for (const item of out.Items ?? []) {
        scanned++;
        const record = recordOf(item);
        if (record.requestedAt >= since && record.requestedAt < until) items.push(record);
      }
      startKey = out.LastEvaluatedKey as Key | undefined;
    } while (startKey && scanned < MAX_RANGE_ITEMS);
    return { items, scanned, readUnits, truncated: startKey !== undefined };
  }

  /** Records of a Query, page by page, until `limit` of them or MAX_PAGES pages. */
  private async collect(
    input: Omit<QueryCommandInput, 'TableName'>,
    limit: number,
  ): Promise<AttemptRecord[]> {
    const items: AttemptRecord[] = [];
    let pages = 0;
    for await (const page of paginateQuery(
      { client: this.client },
      { ...input, TableName: this.tableName },
    )) {
      items.push(...(page.Items ?? []).map(recordOf));
      if (items.length >= limit || ++pages >= MAX_PAGES) break;
    }
    return items.slice(0, limit);
  }

  /**
   * Runs a filtered Query page by page until `limit` items, the end, or the page cap; `next` is
   * the key to resume after (absent at the end).
   */
  private async filteredPage(
    input: Omit<QueryCommandInput, 'TableName'>,
    limit: number,
  ): Promise<{ items: Item[]; next?: Key }> {
    const items: Item[] = [];
    let startKey = input.ExclusiveStartKey as Key | undefined;
    for (let pages = 0; pages < MAX_PAGES_PER_CALL; pages++) {
      const out = await this.client.send(
        new QueryCommand({
          ...input,
          TableName: this.tableName,
          ExclusiveStartKey: startKey,
          Limit: input.FilterExpression ? Math.max(limit, FILTER_PAGE_ITEMS) : limit,
        }),
      );
      const got = out.Items ?? [];
      for (const [i, item] of got.entries()) {
        items.push(item);
        if (items.length === limit) {
          // More may follow: this item's key resumes exactly after it.
          const more = i < got.length - 1 || out.LastEvaluatedKey !== undefined;
          return { items, next: more ? { [PK]: item[PK] as string, [SK]: item[SK] as string } : undefined };
        }
      }
      startKey = out.LastEvaluatedKey as Key | undefined;
      if (!startKey) return { items };
    }
    return { items, next: startKey };
  }
}

/** An attribute as DynamoDB returns it in an error (not unmarshalled by the document client). */
type StoredValue = { S?: string; N?: string; BOOL?: boolean };

/** Attempt items hold strings, numbers and booleans only: compared attribute by attribute. */
function sameAsStored(stored: Record<string, StoredValue>, item: Item): boolean {
  const keys = Object.keys(item);
  if (keys.length !== Object.keys(stored).length) return false;
  return keys.every((k) => {
    const v = item[k];
    const s = stored[k];
    if (!s) return false;
    if (typeof v === 'string') return s.S === v;
    if (typeof v === 'number') return s.N !== undefined && Number(s.N) === v;
    if (typeof v === 'boolean') return s.BOOL === v;
    return false;
  });
}

/** Attempt items hold scalars only: equal when every attribute is equal. */
function sameItem(a: Item, b: Item): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
