/**
 * Parked deliveries on their DynamoDB table (tables.ts PARKED_TABLE, decisions.md D23): the
 * dispatcher parks, the management library lists, claims and removes. A recovery claims an
 * item (conditional update with a lease) before it re-queues it and deletes it after, so two
 * recoveries never re-queue the same parked delivery, and one interrupted between the claim
 * and the send is picked up again once its lease has passed.
 */

import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ParkedDelivery, ParkedItem } from '../../core/parking';
import type { ParkedDeliveries } from '../../core/ports';
import { documentClient, isConditionFailed } from './client';
import { PARKED_TABLE } from './tables';

export interface DynamoParkedStoreOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
}

/** Where a page of a listing ends: the key to start the next one after. */
export type PageKey = Record<string, string>;

export interface ParkedPage {
  items: ParkedDelivery[];
  nextKey?: PageKey;
}

/** Listing attributes read from the table (never the body). */
const LISTED = [
  ...new Set<string>([
    PARKED_TABLE.partitionKey,
    PARKED_TABLE.sortKey,
    'applicationId',
    ...PARKED_TABLE.byApplicationIndex.projected,
  ]),
];

export class DynamoParkedStore implements ParkedDeliveries {
  private readonly client: DynamoDBDocumentClient;
  readonly tableName: string;

  constructor(options: DynamoParkedStoreOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  async park(item: ParkedItem): Promise<void> {
    // Unconditional: parking the same delivery again (after a recovery, or a redelivered
    // record) replaces the item with the latest facts; the body is the same bytes.
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async get(connectionId: string, deliveryId: string): Promise<ParkedItem | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [PARKED_TABLE.partitionKey]: connectionId, [PARKED_TABLE.sortKey]: deliveryId },
        ConsistentRead: true,
      }),
    );
    return out.Item ? stripClaim(out.Item) : undefined;
  }

  /** One parked delivery as listings show it (never the body), or undefined when it is not parked. */
  async find(connectionId: string, deliveryId: string): Promise<ParkedDelivery | undefined> {
    const names = projectionNames();
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [PARKED_TABLE.partitionKey]: connectionId, [PARKED_TABLE.sortKey]: deliveryId },
        ProjectionExpression: names.expression,
        ExpressionAttributeNames: names.names,
        ConsistentRead: true,
      }),
    );
    return out.Item ? listed(out.Item) : undefined;
  }

  /** A connection's parked deliveries, newest first, from `fromDeliveryId` (exclusive lower bound) on. */
  async listByConnection(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; startKey?: PageKey },
  ): Promise<ParkedPage> {
    const names = projectionNames();
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: query.afterDeliveryId ? '#pk = :c AND #sk > :after' : '#pk = :c',
        ExpressionAttributeNames: {
          ...names.names,
          '#pk': PARKED_TABLE.partitionKey,
          ...(query.afterDeliveryId ? { '#sk': PARKED_TABLE.sortKey } : {}),
        },
        ExpressionAttributeValues: {
          ':c': connectionId,
          ...(query.afterDeliveryId ? { ':after': query.afterDeliveryId } : {}),
        },
        ProjectionExpression: names.expression,
        ScanIndexForward: false,
        Limit: query.limit,
        ExclusiveStartKey: query.startKey,
      }),
    );
    return { items: (out.Items ?? []).map(listed), nextKey: out.LastEvaluatedKey as PageKey | undefined };
  }

  /** An application's parked deliveries, newest first (the by-application index). */
  async listByApplication(
    applicationId: string,
    query: { limit: number; startKey?: PageKey },
  ): Promise<ParkedPage> {
    const index = PARKED_TABLE.byApplicationIndex;
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#app = :app',
        ExpressionAttributeNames: { '#app': index.partitionKey },
        ExpressionAttributeValues: { ':app': applicationId },
        ScanIndexForward: false,
        Limit: query.limit,
        ExclusiveStartKey: query.startKey,
      }),
    );
    return { items: (out.Items ?? []).map(listed), nextKey: out.LastEvaluatedKey as PageKey | undefined };
  }

  /**
   * Keys of the parked deliveries of a connection after `afterDeliveryId`, oldest first: the
   * recovery's work list (keys only, so the read costs little whatever the bodies weigh).
   */
  async keysOldestFirst(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; startKey?: PageKey },
  ): Promise<{ deliveryIds: string[]; nextKey?: PageKey }> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: query.afterDeliveryId ? '#pk = :c AND #sk > :after' : '#pk = :c',
        ExpressionAttributeNames: { '#pk': PARKED_TABLE.partitionKey, '#sk': PARKED_TABLE.sortKey },
        ExpressionAttributeValues: {
          ':c': connectionId,
          ...(query.afterDeliveryId ? { ':after': query.afterDeliveryId } : {}),
        },
        ProjectionExpression: '#sk',
        ScanIndexForward: true,
        Limit: query.limit,
        ExclusiveStartKey: query.startKey,
      }),
    );
    return {
      deliveryIds: (out.Items ?? []).map((i) => i[PARKED_TABLE.sortKey] as string),
      nextKey: out.LastEvaluatedKey as PageKey | undefined,
    };
  }

  /**
   * Claims a parked delivery for re-queueing until `untilMs`: returns it (with its body) when
   * no other recovery holds an unexpired claim on it, else undefined.
   */
  async claim(
    connectionId: string,
    deliveryId: string,
    nowMs: number,
    untilMs: number,
  ): Promise<ParkedItem | undefined> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARKED_TABLE.partitionKey]: connectionId, [PARKED_TABLE.sortKey]: deliveryId },
          UpdateExpression: 'SET claimedUntil = :until',
          ConditionExpression:
            'attribute_exists(#sk) AND (attribute_not_exists(claimedUntil) OR claimedUntil < :now)',
          ExpressionAttributeNames: { '#sk': PARKED_TABLE.sortKey },
          ExpressionAttributeValues: { ':until': untilMs, ':now': nowMs },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? stripClaim(out.Attributes) : undefined;
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  /** Removes a re-queued delivery, unless it was parked again meanwhile (its claim is gone). */
  async release(connectionId: string, deliveryId: string, claimedUntil: number): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { [PARKED_TABLE.partitionKey]: connectionId, [PARKED_TABLE.sortKey]: deliveryId },
          ConditionExpression: 'claimedUntil = :until',
          ExpressionAttributeValues: { ':until': claimedUntil },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }

  /** How many parked deliveries a connection has after `afterDeliveryId` (a count query, keys only). */
  async count(connectionId: string, afterDeliveryId?: string): Promise<number> {
    let total = 0;
    let startKey: PageKey | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: afterDeliveryId ? '#pk = :c AND #sk > :after' : '#pk = :c',
          ExpressionAttributeNames: {
            '#pk': PARKED_TABLE.partitionKey,
            ...(afterDeliveryId ? { '#sk': PARKED_TABLE.sortKey } : {}),
          },
          ExpressionAttributeValues: {
            ':c': connectionId,
            ...(afterDeliveryId ? { ':after': afterDeliveryId } : {}),
          },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      total += out.Count ?? 0;
      startKey = out.LastEvaluatedKey as PageKey | undefined;
    } while (startKey);
    return total;
  }
}

function projectionNames() {
  const names: Record<string, string> = {};
  const parts = LISTED.map((attribute, i) => {
    names[`#a${i}`] = attribute;
    return `#a${i}`;
  });
  return { names, expression: parts.join(', ') };
}

function listed(item: Record<string, unknown>): ParkedDelivery {
  const view: ParkedDelivery = {
    deliveryId: item.deliveryId as string,
    connectionId: item.connectionId as string,
    applicationId: item.applicationId as string,
    eventId: item.eventId as string,
    reason: item.reason as ParkedDelivery['reason'],
    attempts: item.attempts as number,
    parkedAt: item.parkedAt as string,
  };
  if (typeof item.lastError === 'string') view.lastError = item.lastError;
  if (typeof item.lastOutcome === 'string')
    view.lastOutcome = item.lastOutcome as ParkedDelivery['lastOutcome'];
  if (typeof item.lastStatusCode === 'number') view.lastStatusCode = item.lastStatusCode;
  return view;
}

function stripClaim(item: Record<string, unknown>): ParkedItem & { claimedUntil?: number } {
  return item as unknown as ParkedItem & { claimedUntil?: number };
}
