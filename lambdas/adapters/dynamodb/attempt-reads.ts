/**
 * The attempt log's reads across shards (docs/design.md §5 "Shards"): Queries of one partition,
 * page by page, and the merge of several partitions' answers into one newest-first answer. A
 * connection's attempts sort by `sk` (delivery id, then attempt number) in every partition, and
 * delivery ids are time-ordered, so merging each partition's newest-first answer by `sk` gives the
 * connection's newest-first answer; a page's position is an `sk`, which means the same in every
 * shard, so one cursor resumes all of them.
 */

import {
  type DynamoDBDocumentClient,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { deliveryIdTimePrefix } from '../../core/ids';
import type { AttemptPageQuery } from '../../core/stores';
import { ATTEMPTS_TABLE } from './tables';

const SK = ATTEMPTS_TABLE.sortKey;
/** Pages read at most for one unpaged listing, so a filter that matches little cannot read forever. */
const MAX_PAGES = 50;
/** Items one page reads while filtering. */
const FILTER_PAGE_ITEMS = 100;
/** Pages read at most per API page, so a filter matching little cannot read forever. */
const MAX_PAGES_PER_CALL = 10;

export type Item = Record<string, unknown>;
export type Key = Record<string, string>;
export type QueryInput = Omit<QueryCommandInput, 'TableName'>;

/** One partition's part of a page: its items newest first, and how far it has looked. */
export interface PartialPage {
  items: Item[];
  /** The `sk` down to which (inclusive) the partition has been read; absent: read to its end. */
  frontier?: string;
}

const skOf = (item: Item) => item[SK] as string;
const newestFirst = (a: Item, b: Item) => (skOf(a) < skOf(b) ? 1 : skOf(a) > skOf(b) ? -1 : 0);

export class PartitionReads {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Items of a Query, page by page, until `limit` of them or MAX_PAGES pages. */
  async collect(input: QueryInput, limit: number): Promise<Item[]> {
    const items: Item[] = [];
    let pages = 0;
    for await (const page of paginateQuery(
      { client: this.client },
      { ...input, TableName: this.tableName },
    )) {
      items.push(...(page.Items ?? []));
      if (items.length >= limit || ++pages >= MAX_PAGES) break;
    }
    return items.slice(0, limit);
  }

  /**
   * Runs a filtered Query of one partition page by page until `limit` items, its end, or the
   * page cap. `keep` drops items on this side (a position no key condition can say); the frontier
   * is `frontierOf` the last item taken or the key the page cap stopped at (by default its `sk`).
   */
  async filteredPage(
    input: QueryInput,
    limit: number,
    { keep, frontierOf = skOf }: { keep?: (item: Item) => boolean; frontierOf?: (at: Item) => string } = {},
  ): Promise<PartialPage> {
    const items: Item[] = [];
    let startKey: Key | undefined;
    for (let pages = 0; pages < MAX_PAGES_PER_CALL; pages++) {
      const out = await this.client.send(
        new QueryCommand({
          ...input,
          TableName: this.tableName,
          ExclusiveStartKey: startKey,
          // One more than asked: a partition that ends at `limit` needs no frontier.
          Limit: input.FilterExpression ? Math.max(limit, FILTER_PAGE_ITEMS) : limit + 1,
        }),
      );
      const got = out.Items ?? [];
      for (const [i, item] of got.entries()) {
        if (keep && !keep(item)) continue;
        items.push(item);
        if (items.length === limit) {
          const more = i < got.length - 1 || out.LastEvaluatedKey !== undefined;
          return { items, ...(more ? { frontier: frontierOf(item) } : {}) };
        }
      }
      startKey = out.LastEvaluatedKey as Key | undefined;
      if (!startKey) return { items };
    }
    return { items, frontier: frontierOf(startKey!) };
  }
}

/**
 * The newest `limit` items of several partitions' answers, each record once (one found in two
 * shards, written twice across a raise, counts once).
 */
export function mergeNewestFirst(lists: readonly Item[][], limit: number): Item[] {
  const sorted = lists.flat().sort(newestFirst);
  return sorted.filter((item, i) => i === 0 || skOf(sorted[i - 1]!) !== skOf(item)).slice(0, limit);
}

/**
 * One page from each partition's part: everything every partition has looked at (down to the
 * least advanced frontier), newest first, up to `limit`; `next` is the `sk` to resume below
 * (absent when every partition is read to its end and nothing was left out).
 */
export function mergePages(
  parts: readonly PartialPage[],
  limit: number,
  positionOf: (item: Item) => string = skOf,
): { items: Item[]; next?: string } {
  const frontiers = parts.flatMap((p) => (p.frontier === undefined ? [] : [p.frontier]));
  // Items below the least advanced frontier may have unread neighbours in that partition.
  const floor = frontiers.sort().at(-1);
  const seen = parts
    .flatMap((p) => p.items)
    .filter((item) => floor === undefined || positionOf(item) >= floor)
    .sort((a, b) => (positionOf(a) < positionOf(b) ? 1 : positionOf(a) > positionOf(b) ? -1 : 0))
    // A record found in two shards (written twice across a raise) counts once.
    .filter((item, i, all) => i === 0 || positionOf(all[i - 1]!) !== positionOf(item));
  const items = seen.slice(0, limit);
  if (items.length === limit && (seen.length > limit || floor !== undefined)) {
    return { items, next: positionOf(items.at(-1)!) };
  }
  return floor === undefined ? { items } : { items, next: floor };
}

/**
 * A connection page's key bound and filters: every shard resumes below the same sort key (the
 * last one the previous page covered, `after`), and `until` bounds the key range too, since no
 * delivery created after it can have an attempt before it.
 */
export function pageConditions(
  query: Pick<AttemptPageQuery, 'since' | 'until' | 'outcome' | 'final'>,
  after: string | undefined,
  timeAttribute = 'requestedAt',
): { below?: string; filters: string[]; names: Key; values: Item } {
  const filters: string[] = [];
  const names: Key = { '#c': ATTEMPTS_TABLE.partitionKey };
  const values: Item = {};
  let below = after;
  if (query.until || query.since) names['#t'] = timeAttribute;
  if (query.until) {
    const hi = `${deliveryIdTimePrefix(query.until.getTime())}~`;
    if (below === undefined || hi < below) below = hi;
    filters.push('#t < :until');
    values[':until'] = query.until.toISOString();
  }
  if (below !== undefined) {
    names['#sk'] = ATTEMPTS_TABLE.sortKey;
    values[':below'] = below;
  }
  if (query.since) {
    filters.push('#t >= :since');
    values[':since'] = query.since.toISOString();
  }
  const conditions = { ...(below === undefined ? {} : { below }), filters, names, values };
  addQueryFilters(conditions, query);
  return conditions;
}

/** The API query's `outcome` and `final` as filters, the same in every attempt listing. */
export function addQueryFilters(
  c: { filters: string[]; names: Key; values: Item },
  query: Pick<AttemptPageQuery, 'outcome' | 'final'>,
): void {
  if (query.outcome) addFilter(c, 'outcome', '=', query.outcome);
  if (query.final !== undefined) addFilter(c, 'final', '=', query.final);
}

/** Adds a filter `attribute op value` to a listing's conditions, under names of its own. */
export function addFilter(
  c: { filters: string[]; names: Key; values: Item },
  attribute: string,
  op: '=' | '<>',
  value: unknown,
): void {
  const n = c.filters.length;
  c.filters.push(`#f${n} ${op} :f${n}`);
  c.names[`#f${n}`] = attribute;
  c.values[`:f${n}`] = value;
}

/** A page's conditions (pageConditions), with any filters the caller adds. */
export type PageConditions = ReturnType<typeof pageConditions>;

/**
 * Each partition's part of one newest-first page under the same conditions: every partition is
 * read below the same sort key, so mergePages can join the parts and one cursor resumes them all.
 */
export function partitionParts(
  reads: PartitionReads,
  partitions: readonly string[],
  { below, filters, names, values }: PageConditions,
  limit: number,
): Promise<PartialPage[]> {
  return Promise.all(
    partitions.map((partition) =>
      reads.filteredPage(
        {
          KeyConditionExpression: below === undefined ? '#c = :c' : '#c = :c AND #sk < :below',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':c': partition },
          ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
          ScanIndexForward: false,
        },
        limit,
      ),
    ),
  );
}
