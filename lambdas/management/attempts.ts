/** The operator's three questions of the attempt log (docs/design.md §5), each a Query. */

import { type DynamoDBDocumentClient, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { deliveryKeyPrefix } from '../adapters/dynamodb/attempt-item';
import { documentClient } from '../adapters/dynamodb/client';
import { ATTEMPTS_TABLE } from '../adapters/dynamodb/tables';
import { MAX_ATTEMPT } from '../core/constants';
import { ValidationError } from '../core/errors';
import { connectionIdOf, isConnectionId } from '../core/ids';
import type { AttemptRecord } from '../core/types';
import {
  type AttemptPageQuery,
  attemptPage,
  attemptsInRange,
  type DynamoKey,
  finalFailurePage,
  type Page,
  type RangeRead,
} from './attempt-pages';
import type { ManagementOptions } from './types';

const DAY_MS = 86_400_000;
/** Pages read at most for one listing, so a filter that matches little cannot read forever. */
const MAX_PAGES = 50;

export interface AttemptQuery {
  connectionId: string;
  /** Only attempts at or after this time. */
  since?: Date;
  /** Only attempts that did not deliver. */
  failed?: boolean;
  /** @default 50 */
  limit?: number;
}

export class Attempts {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;

  constructor(options: ManagementOptions) {
    this.doc = documentClient(options.clients?.dynamodb);
    this.table = options.resources.attemptsTable;
  }

  private async collect(input: QueryCommandInput, limit: number): Promise<AttemptRecord[]> {
    const items: AttemptRecord[] = [];
    let pages = 0;
    for await (const page of paginateQuery({ client: this.doc }, input)) {
      items.push(...((page.Items ?? []) as AttemptRecord[]));
      if (items.length >= limit || ++pages >= MAX_PAGES) break;
    }
    return items.slice(0, limit);
  }

  /** Recent attempts of a connection, newest first. */
  list(query: AttemptQuery): Promise<AttemptRecord[]> {
    if (!isConnectionId(query.connectionId))
      throw new ValidationError('connectionId', 'must look like con_<id>');
    const limit = query.limit ?? 50;
    const filters: string[] = [];
    const values: Record<string, unknown> = { ':c': query.connectionId };
    const names: Record<string, string> = { '#c': ATTEMPTS_TABLE.partitionKey };
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
        TableName: this.table,
        KeyConditionExpression: '#c = :c',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
        ScanIndexForward: false,
        Limit: Math.min(limit, 100),
      },
      limit,
    );
  }

  /** One page of a connection's attempts, newest first, filtered (the HTTP API's attempt log). */
  page(query: AttemptPageQuery): Promise<Page<AttemptRecord>> {
    if (!isConnectionId(query.connectionId))
      throw new ValidationError('connectionId', 'must look like con_<id>');
    return attemptPage(this.doc, this.table, query);
  }

  /** Every attempt of a connection requested in [since, until), for charts; reports its read cost. */
  inRange(query: { connectionId: string; since: Date; until: Date }): Promise<RangeRead> {
    return attemptsInRange(this.doc, this.table, query);
  }

  /** One page of an application's final failures over the last `days` days, newest first. */
  finalFailuresOf(query: {
    applicationId: string;
    days: number;
    limit: number;
    now?: Date;
    startKey?: DynamoKey;
  }): Promise<Page<AttemptRecord>> {
    return finalFailurePage(this.doc, this.table, { ...query, now: query.now ?? new Date() });
  }

  /** Every attempt of one delivery, oldest first (the partition comes from the delivery id). */
  async ofDelivery(deliveryId: string): Promise<AttemptRecord[]> {
    const connectionId = connectionIdOf(deliveryId);
    return this.collect(
      {
        TableName: this.table,
        KeyConditionExpression: '#c = :c AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#c': ATTEMPTS_TABLE.partitionKey, '#sk': ATTEMPTS_TABLE.sortKey },
        ExpressionAttributeValues: { ':c': connectionId, ':prefix': deliveryKeyPrefix(deliveryId) },
        ScanIndexForward: true,
      },
      // Attempt numbers never exceed MAX_ATTEMPT (envelope.ts), so this reads every one.
      MAX_ATTEMPT,
    );
  }

  /** Final failures across connections (the sparse index), newest first, over the last `days` days. */
  async finalFailures(options: { days?: number; limit?: number; now?: Date } = {}): Promise<AttemptRecord[]> {
    const days = options.days ?? 1;
    const limit = options.limit ?? 50;
    const now = (options.now ?? new Date()).getTime();
    const index = ATTEMPTS_TABLE.finalFailuresIndex;
    const out: AttemptRecord[] = [];
    for (let d = 0; d < days && out.length < limit; d++) {
      const day = new Date(now - d * DAY_MS).toISOString().slice(0, 10);
      out.push(
        ...(await this.collect(
          {
            TableName: this.table,
            IndexName: index.name,
            KeyConditionExpression: '#day = :day',
            ExpressionAttributeNames: { '#day': index.partitionKey },
            ExpressionAttributeValues: { ':day': day },
            ScanIndexForward: false,
          },
          limit - out.length,
        )),
      );
    }
    return out;
  }
}
