/**
 * Parked deliveries on their table (tables.ts PARKED_TABLE, docs/design.md §9): the dispatcher
 * parks, the management library lists, claims and removes. Key names, the by-application index
 * and every expression stay here; listings resume from opaque cursors (core/cursor.ts).
 *
 * A recovery claims an item (a conditional update with a lease) before it re-queues it and
 * deletes it after, so two recoveries never re-queue the same parked delivery, and one
 * interrupted between the claim and the send is picked up again once its lease has passed.
 */

import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../../core/cursor';
import { type ParkedDelivery, type ParkedItem, parkedListing } from '../../core/parking';
import type { ClaimedDelivery, Page, ParkedTable } from '../../core/stores';
import { documentClient, isConditionFailed } from './client';
import { PARKED_TABLE } from './tables';

const PK = PARKED_TABLE.partitionKey;
const SK = PARKED_TABLE.sortKey;
const BY_APPLICATION = PARKED_TABLE.byApplicationIndex;
/** The listings a parked cursor may belong to (core/cursor.ts). */
const LISTING = { connection: 'parked', application: 'parked-of-application', ids: 'parked-ids' } as const;

/** Listing attributes read from the table (never the body). */
const LISTED = [...new Set<string>([PK, SK, 'applicationId', ...BY_APPLICATION.projected])];

type Key = Record<string, string>;

export interface DynamoParkedOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoParked implements ParkedTable {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoParkedOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  private key(connectionId: string, deliveryId: string): Key {
    return { [PK]: connectionId, [SK]: deliveryId };
  }

  async park(item: ParkedItem): Promise<void> {
    // Unconditional: parking the same delivery again (after a recovery, or a redelivered
    // record) replaces the item with the latest facts, and drops any claim; the body is the same bytes.
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async get(connectionId: string, deliveryId: string): Promise<ParkedItem | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(connectionId, deliveryId),
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return undefined;
    const { claimedUntil: _claim, ...item } = out.Item;
    return item as ParkedItem;
  }

  async find(connectionId: string, deliveryId: string): Promise<ParkedDelivery | undefined> {
    const names = projectionNames();
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(connectionId, deliveryId),
        ProjectionExpression: names.expression,
        ExpressionAttributeNames: names.names,
        ConsistentRead: true,
      }),
    );
    return out.Item ? parkedListing(out.Item) : undefined;
  }

  async listByConnection(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; cursor?: string },
  ): Promise<Page<ParkedDelivery>> {
    const after = decodeCursor(query.cursor, LISTING.connection, connectionId, 1);
    const names = projectionNames();
    const partition = this.partition(connectionId, query.afterDeliveryId);
    const out = await this.client.send(
      new QueryCommand({
        ...partition,
        ExpressionAttributeNames: { ...partition.ExpressionAttributeNames, ...names.names },
        ProjectionExpression: names.expression,
        ScanIndexForward: false,
        Limit: query.limit,
        ExclusiveStartKey: after ? this.key(connectionId, after[0]!) : undefined,
      }),
    );
    const last = out.LastEvaluatedKey as Key | undefined;
    return {
      items: (out.Items ?? []).map(parkedListing),
      ...(last ? { nextCursor: encodeCursor(LISTING.connection, connectionId, [last[SK]!]) } : {}),
    };
  }

  async listByApplication(
    applicationId: string,
    query: { limit: number; cursor?: string },
  ): Promise<Page<ParkedDelivery>> {
    const after = decodeCursor(query.cursor, LISTING.application, applicationId, 2);
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: BY_APPLICATION.name,
        KeyConditionExpression: '#app = :app',
        ExpressionAttributeNames: { '#app': BY_APPLICATION.partitionKey },
        ExpressionAttributeValues: { ':app': applicationId },
        ScanIndexForward: false,
        Limit: query.limit,
        // The index's key (application, delivery id) and the table's (connection, delivery id).
        ExclusiveStartKey: after
          ? { [BY_APPLICATION.partitionKey]: applicationId, ...this.key(after[1]!, after[0]!) }
          : undefined,
      }),
    );
    const last = out.LastEvaluatedKey as Key | undefined;
    return {
      items: (out.Items ?? []).map(parkedListing),
      ...(last
        ? { nextCursor: encodeCursor(LISTING.application, applicationId, [last[SK]!, last[PK]!]) }
        : {}),
    };
  }

  async idsOldestFirst(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; cursor?: string },
  ): Promise<Page<string>> {
    const after = decodeCursor(query.cursor, LISTING.ids, connectionId, 1);
    const partition = this.partition(connectionId, query.afterDeliveryId);
    const out = await this.client.send(
      new QueryCommand({
        ...partition,
        ExpressionAttributeNames: { ...partition.ExpressionAttributeNames, '#sk': SK },
        // Keys only, so the read costs little whatever the bodies weigh.
        ProjectionExpression: '#sk',
        ScanIndexForward: true,
        Limit: query.limit,
        ExclusiveStartKey: after ? this.key(connectionId, after[0]!) : undefined,
      }),
    );
    const last = out.LastEvaluatedKey as Key | undefined;
    return {
      items: (out.Items ?? []).map((i) => i[SK] as string),
      ...(last ? { nextCursor: encodeCursor(LISTING.ids, connectionId, [last[SK]!]) } : {}),
    };
  }

  async claim(
    connectionId: string,
    deliveryId: string,
    nowMs: number,
    untilMs: number,
  ): Promise<ClaimedDelivery | undefined> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(connectionId, deliveryId),
          UpdateExpression: 'SET claimedUntil = :until',
          ConditionExpression:
            'attribute_exists(#sk) AND (attribute_not_exists(claimedUntil) OR claimedUntil < :now)',
          ExpressionAttributeNames: { '#sk': SK },
          ExpressionAttributeValues: { ':until': untilMs, ':now': nowMs },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes as ClaimedDelivery | undefined;
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  async release(connectionId: string, deliveryId: string, claimedUntil: number): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: this.key(connectionId, deliveryId),
          ConditionExpression: 'claimedUntil = :until',
          ExpressionAttributeValues: { ':until': claimedUntil },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }

  async count(connectionId: string, afterDeliveryId?: string): Promise<number> {
    let total = 0;
    let startKey: Key | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          ...this.partition(connectionId, afterDeliveryId),
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      total += out.Count ?? 0;
      startKey = out.LastEvaluatedKey as Key | undefined;
    } while (startKey);
    return total;
  }

  /** The Query of a connection's partition, from after `afterDeliveryId` when given. */
  private partition(connectionId: string, afterDeliveryId?: string) {
    return {
      TableName: this.tableName,
      KeyConditionExpression: afterDeliveryId ? '#pk = :c AND #sk > :after' : '#pk = :c',
      ExpressionAttributeNames: { '#pk': PK, ...(afterDeliveryId ? { '#sk': SK } : {}) } as Key,
      ExpressionAttributeValues: {
        ':c': connectionId,
        ...(afterDeliveryId ? { ':after': afterDeliveryId } : {}),
      },
    } satisfies QueryCommandInput;
  }
}

function projectionNames() {
  const names: Key = {};
  const parts = LISTED.map((attribute, i) => {
    names[`#a${i}`] = attribute;
    return `#a${i}`;
  });
  return { names, expression: parts.join(', ') };
}
