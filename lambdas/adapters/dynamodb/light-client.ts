/**
 * The dispatcher's document client (docs/performance.md §11 "Lighter DynamoDB calls"): the SDK's
 * DynamoDBDocumentClient, whose Get, Put, Update, Delete, Query and BatchGet go through
 * {@link WireCalls} instead of the SDK's per-call middleware stack. Same inputs, same outputs
 * (marshalled and unmarshalled by the SDK's own util-dynamodb, with the document client's
 * options), the same named errors and retries; every other command, a call with the API's
 * legacy parameters and any call with options go through the SDK as before.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { WireCalls } from './wire-calls';

type Json = Record<string, unknown>;
type Attributes = Parameters<typeof unmarshall>[0];

/**
 * The document client's marshalling: undefined attributes left out (client.ts documentClient).
 * Its own copy: the SDK's document commands write defaults into the options they are given.
 */
const MARSHALL = Object.freeze({ removeUndefinedValues: true });

const toWire = (values: unknown) => (values === undefined ? undefined : marshall(values as Json, MARSHALL));
const fromWire = (values: unknown) => (values === undefined ? undefined : unmarshall(values as Attributes));

/** Parameters of the API's first version (values nested in conditions): left to the SDK. */
const LEGACY = ['Expected', 'AttributeUpdates', 'KeyConditions', 'QueryFilter'];

/** The input a document command carries, as DynamoDB's JSON operation takes it. */
function wireInput(command: unknown): { operation: string; input: Json } | undefined {
  const input = (command as { input: Json }).input;
  if (LEGACY.some((name) => input[name] !== undefined)) return undefined;
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
    const requests = input.RequestItems as Record<string, Json & { Keys: Json[] }>;
    const RequestItems = Object.fromEntries(
      Object.entries(requests).map(([table, r]) => [table, { ...r, Keys: r.Keys.map(toWire) }]),
    );
    return { operation: 'BatchGetItem', input: { ...input, RequestItems } };
  }
  return undefined;
}

/** An output as the document command returns it: items and attributes unmarshalled. */
function documentOutput(output: Json): Json {
  const out = { ...output };
  if (out.Attributes !== undefined) out.Attributes = fromWire(out.Attributes);
  if (out.Item !== undefined) out.Item = fromWire(out.Item);
  if (out.Items !== undefined) out.Items = (out.Items as unknown[]).map(fromWire);
  if (out.LastEvaluatedKey !== undefined) out.LastEvaluatedKey = fromWire(out.LastEvaluatedKey);
  if (out.Responses !== undefined) {
    const responses = out.Responses as Record<string, unknown[]>;
    out.Responses = Object.fromEntries(
      Object.entries(responses).map(([table, items]) => [table, items.map(fromWire)]),
    );
  }
  if (out.UnprocessedKeys !== undefined) {
    const unprocessed = out.UnprocessedKeys as Record<string, Json & { Keys: unknown[] }>;
    out.UnprocessedKeys = Object.fromEntries(
      Object.entries(unprocessed).map(([table, r]) => [table, { ...r, Keys: r.Keys.map(fromWire) }]),
    );
  }
  return out;
}

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
