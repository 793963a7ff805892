/**
 * AttemptLog on the DynamoDB attempt table: one conditional PutItem per attempt. A record is
 * never replaced (docs/security.md): the put succeeds only where no item holds the key, so
 * a forged or replayed `attempt-log` message cannot rewrite history. When the key is taken,
 * the item that holds it (returned by the failed put itself, no read) tells a true duplicate
 * (the same record written again after a redelivery: nothing to do) from a different record
 * (refused; the caller logs it). A successful attempt is trimmed to one write unit here,
 * where the item's size is known (attempt-item.ts).
 */

import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AppendOutcome, AttemptLog } from '../../core/ports';
import type { AttemptRecord } from '../../core/types';
import { attemptItem, fitRecord } from './attempt-item';
import { documentClient, isConditionFailed } from './client';
import { ATTEMPTS_TABLE } from './tables';

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

  async append(record: AttemptRecord): Promise<AppendOutcome> {
    const item = attemptItem(fitRecord(record));
    let existing: Record<string, unknown> | undefined;
    try {
      // Costs the same write unit as an unconditional put; no read on the normal path.
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#sk)',
          ExpressionAttributeNames: { '#sk': ATTEMPTS_TABLE.sortKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'written';
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const old = (error as { Item?: Record<string, StoredValue> }).Item;
      if (old) return sameAsStored(old, item) ? 'duplicate' : 'conflict';
      existing = await this.read(item);
    }
    return existing && sameItem(existing, item) ? 'duplicate' : 'conflict';
  }

  /**
   * The item under a record's key. Only for a store that does not return the old item with a
   * failed condition (the local emulator); DynamoDB does, so the stack grants no read.
   */
  private async read(item: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const key = {
      [ATTEMPTS_TABLE.partitionKey]: item[ATTEMPTS_TABLE.partitionKey],
      [ATTEMPTS_TABLE.sortKey]: item[ATTEMPTS_TABLE.sortKey],
    };
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }
}

/** An attribute as DynamoDB returns it in an error (not unmarshalled by the document client). */
type StoredValue = { S?: string; N?: string; BOOL?: boolean };

/** Attempt items hold strings, numbers and booleans only: compared attribute by attribute. */
function sameAsStored(stored: Record<string, StoredValue>, item: Record<string, unknown>): boolean {
  const keys = Object.keys(item);
  if (keys.length !== Object.keys(stored).length) return false;
  return keys.every((k) => {
    const v = item[k];
    const s = stored[k];
    if (!s) return false;
    if (typeof v === 'string') return s.S === v;
    if (typeof v === 'number') return s.N !== undefined && Number(s.N) === v;
    if (typeof v === 'boolean') return s.BOOL === v;
    return false;
  });
}

/** Attempt items hold scalars only: equal when every attribute is equal. */
function sameItem(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
