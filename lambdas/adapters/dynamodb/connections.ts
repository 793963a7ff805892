/**
 * The connections table (docs/design.md §5, tables.ts CONNECTIONS_TABLE): every read and write
 * of it, for the dispatcher (its cached reads), the health tracker and the management library.
 * Key names, the by-application index and every expression stay in this file.
 *
 * Health (docs/design.md §9) is one map attribute, `health`, of the connection's item.
 * Dispatchers already read the item (cached) for every delivery, so a delivery learns the health
 * it needs at no extra read; health is written only on failures and state changes, each write
 * conditional on the version read (core/health.ts), so concurrent dispatchers neither lose a
 * count nor announce a transition twice. Disabling also sets `enabled` to false, which every
 * reader of the connection already honours.
 */

import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../../core/cursor';
import type { ConnectionHealth } from '../../core/health';
import type { HealthStore, HealthWrite } from '../../core/ports';
import type { ConnectionChanges, ConnectionTable, Page, SecretChange, SeenSecrets } from '../../core/stores';
import type { Connection } from '../../core/types';
import { documentClient, isConditionFailed } from './client';
import { CONNECTIONS_TABLE } from './tables';

const ID = CONNECTIONS_TABLE.partitionKey;
const BY_APPLICATION = CONNECTIONS_TABLE.byApplicationIndex;
/** The listing a connections cursor belongs to (core/cursor.ts). */
const LISTING = 'connections';

export interface DynamoConnectionsOptions {
  tableName: string;
  /** A document client; one is built from the default chain when absent (docs/design.md §2, rule 2). */
  client?: DynamoDBDocumentClient;
}

export class DynamoConnections implements ConnectionTable {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  readonly health: HealthStore;

  constructor(options: DynamoConnectionsOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
    this.health = {
      read: (connectionId) => this.readHealth(connectionId),
      write: (connectionId, next, expectedVersion, enable) =>
        this.writeHealth(connectionId, next, expectedVersion, enable),
    };
  }

  private key(connectionId: string) {
    return { [ID]: connectionId };
  }

  async get(connectionId: string, options: { consistent?: boolean } = {}): Promise<Connection | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(connectionId),
        ...(options.consistent ? { ConsistentRead: true } : {}),
      }),
    );
    return out.Item as Connection | undefined;
  }

  async listByApplication(applicationId: string): Promise<Connection[]> {
    const items: Connection[] = [];
    const pages = paginateQuery({ client: this.client }, this.byApplication(applicationId));
    for await (const page of pages) items.push(...((page.Items ?? []) as Connection[]));
    return items;
  }

  async listAll(): Promise<Connection[]> {
    const items: Connection[] = [];
    for await (const page of paginateScan({ client: this.client }, { TableName: this.tableName })) {
      items.push(...((page.Items ?? []) as Connection[]));
    }
    return items;
  }

  async page(applicationId: string, query: { limit: number; cursor?: string }): Promise<Page<Connection>> {
    const after = decodeCursor(query.cursor, LISTING, applicationId, 1);
    const out = await this.client.send(
      new QueryCommand({
        ...this.byApplication(applicationId),
        Limit: query.limit,
        // The index's key and the table's: the application, then the connection id (both).
        ExclusiveStartKey: after
          ? {
              ...this.key(after[0]!),
              [BY_APPLICATION.partitionKey]: applicationId,
              [BY_APPLICATION.sortKey]: after[0]!,
            }
          : undefined,
      }),
    );
    const last = out.LastEvaluatedKey?.[BY_APPLICATION.sortKey] as string | undefined;
    return {
      items: (out.Items ?? []) as Connection[],
      ...(last ? { nextCursor: encodeCursor(LISTING, applicationId, [last]) } : {}),
    };
  }

  private byApplication(applicationId: string) {
    return {
      TableName: this.tableName,
      IndexName: BY_APPLICATION.name,
      KeyConditionExpression: '#app = :app',
      ExpressionAttributeNames: { '#app': BY_APPLICATION.partitionKey },
      ExpressionAttributeValues: { ':app': applicationId },
    };
  }

  async create(connection: Connection): Promise<'created' | 'exists'> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: connection,
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': ID },
        }),
      );
      return 'created';
    } catch (error) {
      if (isConditionFailed(error)) return 'exists';
      throw error;
    }
  }

  async update(
    connectionId: string,
    changes: ConnectionChanges,
    seenUpdatedAt: string,
  ): Promise<'updated' | 'conflict'> {
    // Refuse to overwrite a concurrent change (or resurrect a deleted connection).
    const written = await this.updateIf(connectionId, changes, {
      expression: '#seen = :seen',
      names: { '#seen': 'updatedAt' },
      values: { ':seen': seenUpdatedAt },
    });
    return written ? 'updated' : 'conflict';
  }

  async setSecret(
    connectionId: string,
    change: SecretChange,
    updatedAt: string,
    seen: SeenSecrets,
  ): Promise<'updated' | 'conflict' | 'missing'> {
    const same = (name: string, value: string | undefined) =>
      value === undefined
        ? { expression: `attribute_not_exists(${name})`, values: {} }
        : { expression: `${name} = :${name.slice(1)}`, values: { [`:${name.slice(1)}`]: value } };
    const current = same('#previous', seen.secretVersion);
    const next = same('#pending', seen.nextSecretVersion);
    const written = await this.updateIf(
      connectionId,
      { ...change, updatedAt },
      {
        expression: `attribute_exists(#id) AND ${current.expression} AND ${next.expression}`,
        names: { '#id': ID, '#previous': 'secretVersion', '#pending': 'nextSecretVersion' },
        values: { ...current.values, ...next.values },
      },
    );
    if (written) return 'updated';
    // Which half of the condition failed: one consistent read tells.
    return (await this.get(connectionId, { consistent: true })) ? 'conflict' : 'missing';
  }

  /** Sets `fields` if `condition` holds; false (nothing written) when it does not. */
  private async updateIf(
    connectionId: string,
    fields: Record<string, unknown>,
    condition: { expression: string; names: Record<string, string>; values: Record<string, unknown> },
  ): Promise<boolean> {
    const set = assignments(fields);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(connectionId),
          UpdateExpression: set.expression,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: { ...set.names, ...condition.names },
          ExpressionAttributeValues: { ...set.values, ...condition.values },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async delete(connectionId: string): Promise<Connection | undefined> {
    const out = await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: this.key(connectionId), ReturnValues: 'ALL_OLD' }),
    );
    return out.Attributes as Connection | undefined;
  }

  private async readHealth(connectionId: string): Promise<ConnectionHealth | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(connectionId),
        // The version the next write is conditioned on must be the latest.
        ConsistentRead: true,
        ProjectionExpression: '#h',
        ExpressionAttributeNames: { '#h': 'health' },
      }),
    );
    return out.Item?.health as ConnectionHealth | undefined;
  }

  private async writeHealth(
    connectionId: string,
    next: ConnectionHealth,
    expectedVersion: number,
    enable?: boolean,
  ): Promise<HealthWrite> {
    const disabling = next.state === 'disabled';
    // Disabling turns delivery off, and a delivered recovery check (enable) turns it back on.
    const switching = disabling || enable === true;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(connectionId),
          UpdateExpression: switching ? 'SET #h = :h, enabled = :on, updatedAt = :now' : 'SET #h = :h',
          ConditionExpression:
            expectedVersion === 0
              ? 'attribute_exists(#id) AND attribute_not_exists(#h)'
              : 'attribute_exists(#id) AND #h.#v = :seen',
          ExpressionAttributeNames: {
            '#id': ID,
            '#h': 'health',
            ...(expectedVersion === 0 ? {} : { '#v': 'version' }),
          },
          ExpressionAttributeValues: {
            ':h': next,
            ...(expectedVersion === 0 ? {} : { ':seen': expectedVersion }),
            ...(switching ? { ':on': !disabling, ':now': new Date().toISOString() } : {}),
          },
        }),
      );
      return 'written';
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    const exists = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(connectionId),
        ProjectionExpression: '#id',
        ExpressionAttributeNames: { '#id': ID },
      }),
    );
    return exists.Item ? 'conflict' : 'missing';
  }
}

/** `SET #f0 = :f0, …` for the fields given (undefined ones left out). */
/** SET for each defined field, REMOVE for each `null` one (a cleared optional field). */
function assignments(fields: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const set: string[] = [];
  const remove: string[] = [];
  Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .forEach(([name, value], i) => {
      names[`#f${i}`] = name;
      if (value === null) {
        remove.push(`#f${i}`);
        return;
      }
      values[`:f${i}`] = value;
      set.push(`#f${i} = :f${i}`);
    });
  const expression = `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`;
  return { expression, names, values };
}
