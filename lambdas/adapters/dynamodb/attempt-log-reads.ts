/**
 * A connection's attempt log in attempt-time order (tables.ts `byAttemptTime`): its pages, its
 * recent attempts and a chart's window, each a Query of every partition of the connection on the
 * index, merged by position (attempt-reads.ts mergePages).
 *
 * A record's position is its `requestedAt`, then its table sort key: attempts that start in the
 * same millisecond tie on the index key, and DynamoDB returns a tie in no promised order, so a
 * partition that stops reading inside a tie drops that millisecond and says it has read down to
 * just above it; the next page reads the whole millisecond again. Only when a page would be all
 * one millisecond does it read that millisecond to its end instead, so every page moves on.
 */

import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AttemptPageQuery, MAX_RANGE_ITEMS, type RangeRead } from '../../core/stores';
import type { AttemptRecord } from '../../core/types';
import { recordOf } from './attempt-item';
import {
  addQueryFilters,
  type Item,
  type Key,
  mergePages,
  type PartialPage,
  PartitionReads,
  type QueryInput,
} from './attempt-reads';
import { ATTEMPTS_TABLE } from './tables';

const INDEX = ATTEMPTS_TABLE.byTimeIndex;
const SK = ATTEMPTS_TABLE.sortKey;
/** Pages `recent` reads at most, so a filter matching little cannot read forever. */
const MAX_PAGES_PER_CALL = 10;
/**
 * Sort keys that sort above and below every record's (each begins `dlv_`), in characters a cursor
 * may carry: `<time>|z` is just above millisecond `<time>`, `<time>|#` just below its records.
 */
const ABOVE_ANY_KEY = 'z';
const BELOW_ANY_KEY = '#';

const timeOf = (item: Item) => item.requestedAt as string;

/** Where an item sorts in its connection's log: attempt time, then sort key. */
export function logPosition(item: Item): string {
  return `${timeOf(item)}|${item[SK] as string}`;
}

/** A position as a cursor carries it (core/cursor.ts allows no `|`): time and sort key. */
export const positionParts = (position: string): [string, string] => {
  const at = position.indexOf('|');
  return [position.slice(0, at), position.slice(at + 1)];
};

/** The conditions of one listing: a time range on the index key, filters, and a position to stay below. */
export interface LogConditions {
  since?: string;
  /** The last millisecond in range: DynamoDB filters no key attribute, so `until` is a key bound. */
  through?: string;
  /** Resume strictly below this position. */
  below?: string;
  filters: string[];
  names: Key;
  values: Item;
}

/** A page's conditions from the API's query and the position its cursor resumes after. */
export function logConditions(
  query: Pick<AttemptPageQuery, 'since' | 'until' | 'outcome' | 'final'>,
  below?: string,
): LogConditions {
  const conditions: LogConditions = { filters: [], names: {}, values: {}, ...(below ? { below } : {}) };
  if (query.since) conditions.since = query.since.toISOString();
  if (query.until) conditions.through = new Date(query.until.getTime() - 1).toISOString();
  addQueryFilters(conditions, query);
  return conditions;
}

/**
 * The Query of one partition under `c`, newest first (or oldest), the time range as its key
 * condition; undefined when the range is empty.
 */
function queryOf(
  partition: string,
  c: LogConditions,
  newestFirst: boolean,
  exactTime?: string,
): QueryInput | undefined {
  const names: Key = { ...c.names, '#c': ATTEMPTS_TABLE.partitionKey };
  const values: Item = { ...c.values, ':c': partition };
  const filters = c.filters;
  // A cursor's time is inclusive too: its millisecond may hold more.
  const cursorTime = c.below ? positionParts(c.below)[0] : undefined;
  const hi =
    cursorTime !== undefined && (c.through === undefined || cursorTime < c.through) ? cursorTime : c.through;
  let key = '#c = :c';
  if (exactTime !== undefined) {
    key += ' AND #t = :at';
    values[':at'] = exactTime;
  } else if (c.since !== undefined && hi !== undefined) {
    if (c.since > hi) return undefined;
    key += ' AND #t BETWEEN :lo AND :hi';
    Object.assign(values, { ':lo': c.since, ':hi': hi });
  } else if (hi !== undefined) {
    key += ' AND #t <= :hi';
    values[':hi'] = hi;
  } else if (c.since !== undefined) {
    key += ' AND #t >= :lo';
    values[':lo'] = c.since;
  }
  if (key !== '#c = :c') names['#t'] = INDEX.sortKey;
  return {
    IndexName: INDEX.name,
    KeyConditionExpression: key,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
    ScanIndexForward: !newestFirst,
  };
}

export class LogReads {
  private readonly reads: PartitionReads;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.reads = new PartitionReads(client, tableName);
  }

  /** One page of the log across `partitions`, newest attempt first; `next` resumes below it. */
  async page(
    partitions: readonly string[],
    c: LogConditions,
    limit: number,
  ): Promise<{ items: Item[]; next?: string }> {
    const parts = await Promise.all(partitions.map((p) => this.partitionPage(p, c, limit)));
    return mergePages(parts, limit, logPosition);
  }

  /** The newest `limit` attempts under `c`: pages, since one can hold fewer than asked. */
  async recent(partitions: readonly string[], c: LogConditions, limit: number): Promise<Item[]> {
    const items: Item[] = [];
    let below = c.below;
    for (let pages = 0; items.length < limit && pages < MAX_PAGES_PER_CALL; pages++) {
      const page = await this.page(partitions, { ...c, ...(below ? { below } : {}) }, limit - items.length);
      items.push(...page.items);
      if (!page.next) break;
      below = page.next;
    }
    return items;
  }

  private async partitionPage(partition: string, c: LogConditions, limit: number): Promise<PartialPage> {
    const input = queryOf(partition, c, true);
    if (!input) return { items: [] };
    const { below } = c;
    const part = await this.reads.filteredPage(input, limit, {
      ...(below === undefined ? {} : { keep: (item) => logPosition(item) < below }),
      // The millisecond it stopped in: the item's, or the page cap's key's (it holds the index key).
      frontierOf: timeOf,
    });
    return part.frontier === undefined ? part : this.stopAt(partition, c, part.items, part.frontier);
  }

  /**
   * A partition's part when it stops reading inside millisecond `time`: what it read above that
   * millisecond, or, when that is nothing, the whole millisecond.
   */
  private async stopAt(
    partition: string,
    c: LogConditions,
    items: Item[],
    time: string,
  ): Promise<PartialPage> {
    const above = items.filter((item) => timeOf(item) > time);
    if (above.length > 0) return { items: above, frontier: `${time}|${ABOVE_ANY_KEY}` };
    const { below } = c;
    const tied = await this.reads.collect(queryOf(partition, c, true, time)!, Number.MAX_SAFE_INTEGER);
    return {
      items: below === undefined ? tied : tied.filter((item) => logPosition(item) < below),
      frontier: `${time}|${BELOW_ANY_KEY}`,
    };
  }

  /**
   * A chart's read: the attempts of `partitions` requested in [since, until), up to
   * MAX_RANGE_ITEMS records, with the read units the store reported; oldest first.
   */
  async range(partitions: readonly string[], query: { since: Date; until: Date }): Promise<RangeRead> {
    const items: Item[] = [];
    let readUnits = 0;
    let startKey: Key | undefined;
    const c = logConditions(query);
    for (const partition of partitions) {
      const input = queryOf(partition, c, false);
      if (!input) break;
      do {
        const out = await this.client.send(
          new QueryCommand({
            ...input,
            TableName: this.tableName,
            ExclusiveStartKey: startKey,
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        readUnits += out.ConsumedCapacity?.CapacityUnits ?? 0;
        items.push(...(out.Items ?? []));
        startKey = out.LastEvaluatedKey as Key | undefined;
      } while (startKey && items.length < MAX_RANGE_ITEMS);
      if (startKey) break;
    }
    items.sort((a, b) => (logPosition(a) < logPosition(b) ? -1 : 1));
    const records: AttemptRecord[] = items.map(recordOf);
    return { items: records, scanned: records.length, readUnits, truncated: startKey !== undefined };
  }
}
