/** AttemptLog on the DynamoDB attempt table: one PutItem per attempt, nothing else. */

import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AttemptLog, AttemptRecord } from '../../core/types';
import { attemptItem, fitRecord } from './attempt-item';
import { documentClient } from './client';

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
    // the same key instead of duplicating it, and costs no read. A successful attempt is
    // trimmed to one write unit here, where the item's size is known (attempt-item.ts).
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: attemptItem(fitRecord(record)) }),
    );
  }
}
