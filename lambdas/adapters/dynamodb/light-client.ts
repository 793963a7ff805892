/**
 * The dispatcher's document client (docs/performance.md §11 "Lighter DynamoDB calls"): the SDK's
 * DynamoDBDocumentClient, whose Get, Put, Update, Delete, Query, BatchGet and BatchWrite go through
 * {@link WireCalls} instead of the SDK's per-call middleware stack. Same inputs, same outputs
 * (marshalled and unmarshalled by the SDK's own util-dynamodb, with the document client's
 * options), the same named errors and retries; every other command, a call with the API's
 * legacy parameters and any call with options go through the SDK as before.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { convertOutput, eachTable, WireCalls, writes } from './wire-calls';

type Json = Record<string, unknown>;
type Attributes = Parameters<typeof unmarshall>[0];

/**
 * The document client's marshalling: undefined attributes left out (client.ts documentClient).
 * Its own copy: the SDK's document commands write defaults into the options they are given.
 */
const MARSHALL = Object.freeze({ removeUndefinedValues: true });

const toWire = (values: unknown) => (values === undefined ? undefined : marshall(values as Json, MARSHALL));
const fromWire = (values: unknown) => (values === undefined ? undefined : unmarshall(values as Attributes));

/**
 * Left to the SDK: the API's first-version parameters (values nested in conditions) and item
 * collection metrics (keys in nested shapes); the dispatcher uses neither.
 */
const TO_SDK = [
  'Expected',
  'AttributeUpdates',
  'KeyConditions',
  'QueryFilter',
  'ReturnItemCollectionMetrics',
];

/** The input a document command carries, as DynamoDB's JSON operation takes it. */
function wireInput(command: unknown): { operation: string; input: Json } | undefined {
  const input = (command as { input: Json }).input;
  if (TO_SDK.some((name) => input[name] !== undefined)) return undefined;
  const values = { ExpressionAttributeValues: toWire(input.ExpressionAttributeValues) };
  if (command instanceof PutCommand)
    return { operation: 'PutItem', input: { ...input, Item: toWire(input.Item), ...values } };
  if (command instanceof UpdateCommand)
    return { operation: 'UpdateItem', input: { ...input, Key: toWire(input.Key), ...values } };
  if (command instanceof DeleteCommand)
    return { operation: 'DeleteItem', input: { ...input, Key: toWire(input.Key), ...values } };
  if (command instanceof QueryCommand) {
    const start = { ExclusiveStartKey: toWire(input.ExclusiveStartKey) };
    return { operation: 'Query', input: { ...input, ...values, ...start } };
  }
  if (command instanceof GetCommand)
    return { operation: 'GetItem', input: { ...input, Key: toWire(input.Key) } };
  if (command instanceof BatchGetCommand) {
    const RequestItems = eachTable(input.RequestItems, (r: Json & { Keys: Json[] }) => ({
      ...r,
      Keys: r.Keys.map(toWire),
    }));
    return { operation: 'BatchGetItem', input: { ...input, RequestItems } };
  }
  if (command instanceof BatchWriteCommand)
    return {
      operation: 'BatchWriteItem',
      input: { ...input, RequestItems: eachTable(input.RequestItems, writes(toWire)) },
    };
  return undefined;
}

/** An output as the document command returns it: items and attributes unmarshalled. */
const documentOutput = (output: Json) => convertOutput(output, fromWire);

class LightDocumentClient extends DynamoDBDocumentClient {
  private readonly wire: WireCalls;

  constructor(client: DynamoDBClient) {
    super(client, { marshallOptions: { ...MARSHALL } });
    this.wire = new WireCalls(client);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the SDK's overloaded send, passed through unchanged
  override send(command: any, ...rest: any[]): any {
    const call = rest.length === 0 ? wireInput(command) : undefined;
    if (!call) return (super.send as (...args: unknown[]) => unknown)(command, ...rest);
    return this.wire.call(call.operation, call.input).then(documentOutput);
  }
}

/** The dispatcher's document client around `client` (lambdas/backend/dispatcher.ts). */
export function lightDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return new LightDocumentClient(client);
}
