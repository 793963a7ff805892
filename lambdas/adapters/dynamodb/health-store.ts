/**
 * HealthStore on the connections table: a connection's health is one map attribute, `health`,
 * of its item. Dispatchers already read the item (cached) for every delivery, so a delivery
 * learns the health it needs at no extra read; health is written only on failures and state
 * changes, each write conditional on the version read (core/health.ts), so concurrent
 * dispatchers neither lose a count nor announce a transition twice. Disabling also sets
 * `enabled` to false, which every reader of the connection already honours.
 */

import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConnectionHealth } from '../../core/health';
import type { HealthStore, HealthWrite } from '../../core/ports';
import { documentClient, isConditionFailed } from './client';
import { CONNECTIONS_TABLE } from './tables';

export interface DynamoHealthStoreOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoHealthStore implements HealthStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoHealthStoreOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  private key(connectionId: string) {
    return { [CONNECTIONS_TABLE.partitionKey]: connectionId };
  }

  async read(connectionId: string): Promise<ConnectionHealth | undefined> {
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

  async write(connectionId: string, next: ConnectionHealth, expectedVersion: number): Promise<HealthWrite> {
    const disabling = next.state === 'disabled';
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(connectionId),
          UpdateExpression: disabling ? 'SET #h = :h, enabled = :off, updatedAt = :now' : 'SET #h = :h',
          ConditionExpression:
            expectedVersion === 0
              ? 'attribute_exists(#id) AND attribute_not_exists(#h)'
              : 'attribute_exists(#id) AND #h.#v = :seen',
          ExpressionAttributeNames: {
            '#id': CONNECTIONS_TABLE.partitionKey,
            '#h': 'health',
            ...(expectedVersion === 0 ? {} : { '#v': 'version' }),
          },
          ExpressionAttributeValues: {
            ':h': next,
            ...(expectedVersion === 0 ? {} : { ':seen': expectedVersion }),
            ...(disabling ? { ':off': false, ':now': new Date().toISOString() } : {}),
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
        ExpressionAttributeNames: { '#id': CONNECTIONS_TABLE.partitionKey },
      }),
    );
    return exists.Item ? 'conflict' : 'missing';
  }
}
