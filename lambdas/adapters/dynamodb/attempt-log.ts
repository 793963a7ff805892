/** AttemptLog on the DynamoDB attempt table: one PutItem per attempt, nothing else. */

import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { attemptItem } from '../../core/attempt-record';
import type { AttemptLog, AttemptRecord } from '../../core/types';
import { documentClient } from './connection-store';

export interface DynamoAttemptLogOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoAttemptLog implements AttemptLog {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoAttemptLogOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  async append(record: AttemptRecord): Promise<void> {
    // Unconditional put: writing the same attempt twice (a redelivered record) overwrites
    // the same key instead of duplicating it, and costs no read.
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: attemptItem(record) }));
  }
}
