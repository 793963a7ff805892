/** ConnectionStore on the DynamoDB connections table (docs/design.md §5). */

import { type DynamoDBDocumentClient, GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { ConnectionStore } from '../../core/ports';
import type { Connection } from '../../core/types';
import { documentClient } from './client';
import { CONNECTIONS_TABLE } from './tables';

export interface DynamoConnectionStoreOptions {
  tableName: string;
  /** A document client; one is built from the default chain when absent (docs/design.md §2, rule 2). */
  client?: DynamoDBDocumentClient;
}

export class DynamoConnectionStore implements ConnectionStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoConnectionStoreOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  async get(connectionId: string): Promise<Connection | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [CONNECTIONS_TABLE.partitionKey]: connectionId } }),
    );
    return out.Item as Connection | undefined;
  }

  async listByApplication(applicationId: string): Promise<Connection[]> {
    const index = CONNECTIONS_TABLE.byApplicationIndex;
    const items: Connection[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#app = :app',
        ExpressionAttributeNames: { '#app': index.partitionKey },
        ExpressionAttributeValues: { ':app': applicationId },
      },
    );
    for await (const page of pages) items.push(...((page.Items ?? []) as Connection[]));
    return items;
  }
}
