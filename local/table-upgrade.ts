/**
 * A persisted local table whose indexes changed (a new index in lambdas/adapters/dynamodb/tables.ts,
 * as `byAttemptTime` was added to the attempt log) is rebuilt in place: DynamoDB adds an index to a
 * live table and fills it from the items, but the local emulator cannot, so its items are read,
 * the table made again with the new indexes and the items written back. A table whose own key
 * changed is not: nothing could say where its items belong (bootstrap.ts refuses it).
 */

import {
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  type DynamoDBClient,
  paginateScan,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { untilTable } from './table-waits';

/** BatchWriteItem takes at most 25 items. */
const BATCH = 25;

/** Rebuilds `input.TableName` with `input`'s indexes, keeping every item; returns how many it kept. */
export async function rebuildWithIndexes(
  dynamodb: DynamoDBClient,
  input: CreateTableCommandInput,
  timeoutMs: number,
): Promise<number> {
  const name = input.TableName!;
  const items: WriteRequest[] = [];
  for await (const page of paginateScan({ client: dynamodb }, { TableName: name, ConsistentRead: true })) {
    for (const Item of page.Items ?? []) items.push({ PutRequest: { Item } });
  }
  await dynamodb.send(new DeleteTableCommand({ TableName: name }));
  await untilTable(
    dynamodb,
    name,
    timeoutMs,
    (table) => table === undefined,
    () => `Local table ${name} is still there after deleting it`,
  );
  await dynamodb.send(new CreateTableCommand(input));
  await untilTable(
    dynamodb,
    name,
    timeoutMs,
    (table) => table?.TableStatus === 'ACTIVE',
    () => `Local table ${name} is not active after making it again`,
  );
  for (let i = 0; i < items.length; i += BATCH) {
    let pending: WriteRequest[] | undefined = items.slice(i, i + BATCH);
    while (pending?.length) {
      const out: BatchWriteItemCommandOutput = await dynamodb.send(
        new BatchWriteItemCommand({ RequestItems: { [name]: pending } }),
      );
      pending = out.UnprocessedItems?.[name];
    }
  }
  return items.length;
}
