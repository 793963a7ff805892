/**
 * The attempt log's one write (attempts.ts append): a conditional PutItem that never replaces an
 * item, and what holds the key when the condition fails.
 */

import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AppendOutcome } from '../../core/ports';
import { type StoredValue, sameAsStored, sameItem } from './attempt-item';
import { isConditionFailed } from './client';
import { ATTEMPTS_TABLE } from './tables';

type Item = Record<string, unknown>;
const PK = ATTEMPTS_TABLE.partitionKey;
const SK = ATTEMPTS_TABLE.sortKey;

/**
 * Puts an item where no item holds its key: `written`, `duplicate` (the same item is there) or
 * `conflict` (a different one is, with the send id it carries).
 */
export async function putOnce(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Item,
): Promise<{ outcome: AppendOutcome; heldSendId?: unknown }> {
  let existing: Item | undefined;
  try {
    // Costs the same write unit as an unconditional put; no read on the normal path.
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#sk)',
        ExpressionAttributeNames: { '#sk': SK },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'written' };
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const old = (error as { Item?: Record<string, StoredValue> }).Item;
    if (old) {
      return sameAsStored(old, item)
        ? { outcome: 'duplicate' }
        : { outcome: 'conflict', heldSendId: old.sendId?.S };
    }
    existing = await readItem(client, tableName, item);
  }
  return existing && sameItem(existing, item)
    ? { outcome: 'duplicate' }
    : { outcome: 'conflict', heldSendId: existing?.sendId };
}

/**
 * The item under an item's key. Only for a store that does not return the old item with a
 * failed condition (the local emulator); DynamoDB does, so the stack grants no read.
 */
export async function readItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Item,
): Promise<Item | undefined> {
  const key = { [PK]: item[PK], [SK]: item[SK] };
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}
