/**
 * A persisted local table whose indexes changed (a new index in lambdas/adapters/dynamodb/tables.ts,
 * as `byAttemptTime` was added to the attempt log) is rebuilt in place: DynamoDB adds an index to a
 * live table and fills it from the items, but the local emulator cannot, so its items are read,
 * the table made again with the new indexes and the items written back. A table whose own key
 * changed is not: nothing could say where its items belong (bootstrap.ts refuses it).
 *
 * The items are first copied to a table of their own, kept until the rebuilt table holds them all,
 * so a rebuild cut short (Ctrl-C, a crash, a timeout) loses nothing: the next start finishes it
 * from the copy ({@link finishInterruptedRebuild}).
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
import { describeTable, untilTable } from './table-waits';

/** BatchWriteItem takes at most 25 items. */
const BATCH = 25;

/** The table a rebuild of `name` keeps its items in until it is done. */
export const rebuildCopyOf = (name: string) => `${name}-rebuild-copy`;

/** Rebuilds `input.TableName` with `input`'s indexes, keeping every item; returns how many it kept. */
export async function rebuildWithIndexes(
  dynamodb: DynamoDBClient,
  input: CreateTableCommandInput,
  timeoutMs: number,
): Promise<number> {
  const name = input.TableName!;
  const copy = rebuildCopyOf(name);
  const items = await scanAll(dynamodb, name);
  // The copy has the table's key and nothing else: it only holds the items for a while.
  const keyNames = new Set((input.KeySchema ?? []).map((k) => k.AttributeName));
  await create(dynamodb, timeoutMs, {
    TableName: copy,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: input.KeySchema,
    AttributeDefinitions: (input.AttributeDefinitions ?? []).filter((a) => keyNames.has(a.AttributeName)),
  });
  await writeAll(dynamodb, copy, items);
  await remove(dynamodb, name, timeoutMs);
  await create(dynamodb, timeoutMs, input);
  await writeAll(dynamodb, name, items);
  await remove(dynamodb, copy, timeoutMs);
  return items.length;
}

/**
 * Finishes a rebuild an earlier start left unfinished (its copy is still there): the table is made
 * with `input` if it is gone, given every item of the copy (writing an item it still holds changes
 * nothing), and the copy removed. Returns the items restored, or undefined when nothing was left.
 */
export async function finishInterruptedRebuild(
  dynamodb: DynamoDBClient,
  input: CreateTableCommandInput,
  timeoutMs: number,
): Promise<number | undefined> {
  const name = input.TableName!;
  const copy = rebuildCopyOf(name);
  if (!(await describeTable(dynamodb, copy))) return undefined;
  if (!(await describeTable(dynamodb, name))) await create(dynamodb, timeoutMs, input);
  const items = await scanAll(dynamodb, copy);
  await writeAll(dynamodb, name, items);
  await remove(dynamodb, copy, timeoutMs);
  return items.length;
}

async function scanAll(dynamodb: DynamoDBClient, name: string): Promise<WriteRequest[]> {
  const items: WriteRequest[] = [];
  for await (const page of paginateScan({ client: dynamodb }, { TableName: name, ConsistentRead: true })) {
    for (const Item of page.Items ?? []) items.push({ PutRequest: { Item } });
  }
  return items;
}

async function create(dynamodb: DynamoDBClient, timeoutMs: number, input: CreateTableCommandInput) {
  const name = input.TableName!;
  await dynamodb.send(new CreateTableCommand(input));
  await untilTable(
    dynamodb,
    name,
    timeoutMs,
    (table) => table?.TableStatus === 'ACTIVE',
    () => `Local table ${name} is not active after making it`,
  );
}

async function remove(dynamodb: DynamoDBClient, name: string, timeoutMs: number) {
  await dynamodb.send(new DeleteTableCommand({ TableName: name }));
  await untilTable(
    dynamodb,
    name,
    timeoutMs,
    (table) => table === undefined,
    () => `Local table ${name} is still there after deleting it`,
  );
}

async function writeAll(dynamodb: DynamoDBClient, name: string, items: readonly WriteRequest[]) {
  for (let i = 0; i < items.length; i += BATCH) {
    let pending: WriteRequest[] | undefined = items.slice(i, i + BATCH);
    while (pending?.length) {
      const out: BatchWriteItemCommandOutput = await dynamodb.send(
        new BatchWriteItemCommand({ RequestItems: { [name]: pending } }),
      );
      pending = out.UnprocessedItems?.[name];
    }
  }
}
