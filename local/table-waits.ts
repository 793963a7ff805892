/**
 * Reading and waiting on local tables, for the bootstrap (bootstrap.ts) and the in-place rebuild
 * of an upgraded table (table-upgrade.ts): one description read, one wait loop.
 */

import {
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';

const POLL_MS = 25;

/** The table's description, or undefined when there is no such table. */
export async function describeTable(
  dynamodb: DynamoDBClient,
  name: string,
): Promise<TableDescription | undefined> {
  try {
    return (await dynamodb.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/**
 * Reads the table's description until `done` says so; after `timeoutMs`, throws what `problem`
 * says of the last description read.
 */
export async function untilTable(
  dynamodb: DynamoDBClient,
  name: string,
  timeoutMs: number,
  done: (table: TableDescription | undefined) => boolean,
  problem: (table: TableDescription | undefined) => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const table = await describeTable(dynamodb, name);
    if (done(table)) return;
    if (Date.now() > deadline) throw new Error(problem(table));
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
