/**
 * Paged reads of the attempt log for the management HTTP API: one page of a connection's
 * attempts with filters, a time range for charts, and the application's final failures.
 * Every read is a Query (never a Scan); a page resumes from a DynamoDB key the caller got
 * from the previous page.
 */

import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTEMPTS_TABLE } from '../adapters/dynamodb/tables';
import { deliveryIdTimePrefix } from '../core/ids';
import type { AttemptRecord, Outcome } from '../core/types';

export type DynamoKey = Record<string, string>;

const DAY_MS = 86_400_000;
/** Items one DynamoDB page reads while filtering. */
const FILTER_PAGE_ITEMS = 100;
/** DynamoDB pages read at most per API page, so a filter matching little cannot read forever. */
const MAX_PAGES_PER_CALL = 10;
/**
 * How long before a chart's window its deliveries may have been created and still have
 * attempts inside it (the retry chain spans 7 s; a redrive can be much later). A key range
 * wider by this much bounds the read; attempts of older deliveries redriven into the window
 * are not in the chart.
 */
export const RANGE_LOOKBACK_MS = 3_600_000;
/** Items a chart reads at most; past it the answer says `truncated`. */
export const MAX_RANGE_ITEMS = 20_000;

export interface AttemptPageQuery {
  connectionId: string;
  outcome?: Outcome;
  since?: Date;
  until?: Date;
  final?: boolean;
  limit: number;
  startKey?: DynamoKey;
}

export interface Page<T> {
  items: T[];
  nextKey?: DynamoKey;
}

function keyOf(record: AttemptRecord & { sk?: string }): DynamoKey {
  return { [ATTEMPTS_TABLE.partitionKey]: record.connectionId, [ATTEMPTS_TABLE.sortKey]: record.sk ?? '' };
}

/** Runs a filtered Query page by page until `limit` items, the end, or the page cap. */
async function filteredPage(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  limit: number,
  keyOfItem: (item: Record<string, unknown>) => DynamoKey,
): Promise<Page<Record<string, unknown>>> {
  const items: Record<string, unknown>[] = [];
  let startKey = input.ExclusiveStartKey as DynamoKey | undefined;
  for (let pages = 0; pages < MAX_PAGES_PER_CALL; pages++) {
    const out = await doc.send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey: startKey,
        Limit: input.FilterExpression ? Math.max(limit, FILTER_PAGE_ITEMS) : limit,
      }),
    );
    const got = out.Items ?? [];
    for (const item of got) {
      items.push(item);
      if (items.length === limit) {
        const last = item;
        // More may follow: this item's key resumes exactly after it.
        const more = got.indexOf(last) < got.length - 1 || out.LastEvaluatedKey !== undefined;
        return { items, nextKey: more ? keyOfItem(last) : undefined };
      }
    }
    startKey = out.LastEvaluatedKey as DynamoKey | undefined;
    if (!startKey) return { items };
  }
  return { items, nextKey: startKey };
}

/** One page of a connection's attempts, newest first, with the API's filters. */
export async function attemptPage(
  doc: DynamoDBDocumentClient,
  table: string,
  query: AttemptPageQuery,
): Promise<Page<AttemptRecord>> {
  const filters: string[] = [];
  const names: Record<string, string> = { '#c': ATTEMPTS_TABLE.partitionKey };
  const values: Record<string, unknown> = { ':c': query.connectionId };
  let keyCondition = '#c = :c';
  if (query.until) {
    // No delivery created after `until` can have an attempt before it: bound the key range.
    names['#sk'] = ATTEMPTS_TABLE.sortKey;
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
  const page = await filteredPage(
    doc,
    {
      TableName: table,
      KeyConditionExpression: keyCondition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ScanIndexForward: false,
      ExclusiveStartKey: query.startKey,
    },
    query.limit,
    (item) => keyOf(item as unknown as AttemptRecord),
  );
  return { items: page.items as unknown as AttemptRecord[], nextKey: page.nextKey };
}

export interface RangeRead {
  items: AttemptRecord[];
  /** Items DynamoDB read (before the time filter). */
  scanned: number;
  /** Read capacity units DynamoDB reported for the whole read (0 when it reports none). */
  readUnits: number;
  truncated: boolean;
}

/** Every attempt of a connection requested in [since, until), for charts (a bounded key range). */
export async function attemptsInRange(
  doc: DynamoDBDocumentClient,
  table: string,
  query: { connectionId: string; since: Date; until: Date },
): Promise<RangeRead> {
  const items: AttemptRecord[] = [];
  let scanned = 0;
  let readUnits = 0;
  let startKey: DynamoKey | undefined;
  const since = query.since.toISOString();
  const until = query.until.toISOString();
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#c = :c AND #sk BETWEEN :lo AND :hi',
        ExpressionAttributeNames: { '#c': ATTEMPTS_TABLE.partitionKey, '#sk': ATTEMPTS_TABLE.sortKey },
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
    for (const item of (out.Items ?? []) as AttemptRecord[]) {
      scanned++;
      if (item.requestedAt >= since && item.requestedAt < until) items.push(item);
    }
    startKey = out.LastEvaluatedKey as DynamoKey | undefined;
  } while (startKey && scanned < MAX_RANGE_ITEMS);
  return { items, scanned, readUnits, truncated: startKey !== undefined };
}

/**
 * One page of an application's final failures (test sends left out) over the last `days` UTC days, newest first
 * (the sparse `finalFailures` index, one partition per day, filtered by application).
 * `startKey` carries the day to resume in (`failedOn`) and, inside it, the index key.
 */
export async function finalFailurePage(
  doc: DynamoDBDocumentClient,
  table: string,
  query: { applicationId: string; days: number; limit: number; now: Date; startKey?: DynamoKey },
): Promise<Page<AttemptRecord>> {
  const index = ATTEMPTS_TABLE.finalFailuresIndex;
  const today = query.now.getTime();
  const oldest = new Date(today - (query.days - 1) * DAY_MS).toISOString().slice(0, 10);
  let day = query.startKey?.[index.partitionKey] ?? new Date(today).toISOString().slice(0, 10);
  let startKey = query.startKey?.[ATTEMPTS_TABLE.sortKey] ? query.startKey : undefined;
  const items: AttemptRecord[] = [];
  while (day >= oldest) {
    const page = await filteredPage(
      doc,
      {
        TableName: table,
        IndexName: index.name,
        KeyConditionExpression: '#day = :day',
        // A failed Send Test is not a lost delivery: only real deliveries count here.
        FilterExpression: 'applicationId = :app AND (attribute_not_exists(#test) OR #test = :no)',
        ExpressionAttributeNames: { '#day': index.partitionKey, '#test': 'test' },
        ExpressionAttributeValues: { ':day': day, ':app': query.applicationId, ':no': false },
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      },
      query.limit - items.length,
      (item) => ({
        [ATTEMPTS_TABLE.partitionKey]: item[ATTEMPTS_TABLE.partitionKey] as string,
        [ATTEMPTS_TABLE.sortKey]: item[ATTEMPTS_TABLE.sortKey] as string,
        [index.partitionKey]: item[index.partitionKey] as string,
        [index.sortKey]: item[index.sortKey] as string,
      }),
    );
    items.push(...(page.items as unknown as AttemptRecord[]));
    if (page.nextKey) return { items, nextKey: { ...page.nextKey, [index.partitionKey]: day } };
    if (items.length >= query.limit) {
      const previous = new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
      return { items, nextKey: previous >= oldest ? { [index.partitionKey]: previous } : undefined };
    }
    day = new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
    startKey = undefined;
  }
  return { items };
}
