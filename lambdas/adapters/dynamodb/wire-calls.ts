/**
 * DynamoDB calls at a fraction of the SDK command stack's CPU (docs/performance.md §11 "Lighter
 * DynamoDB calls"): one JSON body, signed and sent with the client's own pieces. Everything that
 * decides behaviour comes from the DynamoDB client it wraps: its endpoint (resolved once per table
 * by the client's own endpoint middleware, so `AWS_ENDPOINT_URL_DYNAMODB` and every other setting
 * applies), its SigV4 signer and credential chain, its HTTP handler (one socket pool), its
 * standard retry strategy (the same backoff and retry quota) and the SDK's error classification.
 * What is skipped is the per-call middleware machinery; measured, that is most of the CPU.
 */

import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  DynamoDBServiceException,
  GetItemCommand,
} from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

type Json = Record<string, unknown>;
/** The parts of an HTTP request the client's handler and signer read. */
interface WireRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}
type Endpoint = Pick<WireRequest, 'protocol' | 'hostname' | 'port' | 'path'>;
interface Signer {
  sign(request: WireRequest, options: { signingDate: Date }): Promise<WireRequest>;
}
type RetryErrorType = 'THROTTLING' | 'TRANSIENT' | 'SERVER_ERROR' | 'CLIENT_ERROR';
interface RetryToken {
  getRetryCount(): number;
  getRetryDelay(): number;
}
interface RetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  refreshRetryTokenForRetry(
    token: RetryToken,
    info: { errorType: RetryErrorType; error: unknown },
  ): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}
/** What of the DynamoDB client's resolved configuration a call uses. */
interface ClientPieces {
  signer(): Promise<Signer>;
  retryStrategy(): Promise<RetryStrategy>;
  requestHandler: {
    handle(
      request: WireRequest,
    ): Promise<{ response: { statusCode: number; headers: Record<string, string>; body: unknown } }>;
  };
  streamCollector(body: unknown): Promise<Uint8Array>;
  systemClockOffset: number;
}
type Metadata = {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
  totalRetryDelay?: number;
  clockSkewCorrected?: boolean;
};

/** Errors whose name says the request's clock was off (the SDK's list). */
const CLOCK_SKEW = new Set([
  'AuthFailure',
  'InvalidSignatureException',
  'RequestExpired',
  'RequestInTheFuture',
  'RequestTimeTooSkewed',
  'SignatureDoesNotMatch',
]);
/** Clock skew the SDK corrects for (its threshold). */
const SKEW_MS = 300_000;

/** Calls DynamoDB's JSON operations (`PutItem`, `UpdateItem`, …) through one DynamoDB client's pieces. */
export class WireCalls {
  private readonly config: ClientPieces;
  private readonly endpoints = new Map<string, Promise<Endpoint>>();
  private signer?: Promise<Signer>;
  private strategy?: Promise<RetryStrategy>;

  constructor(private readonly client: DynamoDBClient) {
    this.config = client.config as unknown as ClientPieces;
  }

  /** One operation with the SDK's retries: its output as DynamoDB wrote it, or the SDK's named error. */
  async call(operation: string, input: Json): Promise<Json & { $metadata: Metadata }> {
    const body = JSON.stringify(input, blobsAsBase64);
    // A batch call's endpoint is its first table's (they are all one account's and region's).
    const table = input.TableName ?? Object.keys((input.RequestItems as Json | undefined) ?? {})[0];
    const endpoint = await this.endpoint(String(table ?? ''));
    this.signer ??= this.config.signer();
    this.strategy ??= this.config.retryStrategy();
    const [signer, strategy] = await Promise.all([this.signer, this.strategy]);
    let token = await strategy.acquireInitialRetryToken('');
    let totalRetryDelay = 0;
    for (;;) {
      const attempts = token.getRetryCount() + 1;
      try {
        const output = await this.once(signer, endpoint, operation, body);
        strategy.recordSuccess(token);
        return { ...output, $metadata: { ...output.$metadata, attempts, totalRetryDelay } };
      } catch (error) {
        const errorType = retryErrorType(error);
        try {
          token = await strategy.refreshRetryTokenForRetry(token, { errorType, error });
        } catch {
          const failed = error as { $metadata?: Metadata };
          failed.$metadata = { ...failed.$metadata, attempts, totalRetryDelay };
          throw error;
        }
        const delay = token.getRetryDelay();
        totalRetryDelay += delay;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** One attempt: signed at the client's skew-corrected time, sent on its handler. */
  private async once(signer: Signer, endpoint: Endpoint, operation: string, body: string) {
    const host = endpoint.port ? `${endpoint.hostname}:${endpoint.port}` : endpoint.hostname;
    const request = await signer.sign(
      {
        method: 'POST',
        ...endpoint,
        query: {},
        headers: {
          host,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${operation}`,
          'content-length': String(Buffer.byteLength(body)),
        },
        body,
      },
      { signingDate: new Date(Date.now() + this.config.systemClockOffset) },
    );
    const { response } = await this.config.requestHandler.handle(request);
    const bytes = await this.config.streamCollector(response.body);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    const $metadata: Metadata = {
      httpStatusCode: response.statusCode,
      requestId: response.headers['x-amzn-requestid'],
    };
    let parsed: Json;
    try {
      parsed = withBlobs((text ? JSON.parse(text) : {}) as Json);
    } catch {
      // A proxy's HTML 502 is still a 502 (retried, by its status); an unreadable success is not one.
      if (response.statusCode < 300)
        throw Object.assign(new Error(`unreadable DynamoDB answer: ${text.slice(0, 80)}`), { $metadata });
      parsed = {};
    }
    if (response.statusCode < 300) return { ...parsed, $metadata };
    throw this.serviceError(parsed, response, $metadata);
  }

  /** The SDK's error for a refused call: ConditionalCheckFailedException with the item it found. */
  private serviceError(
    parsed: Json,
    response: { statusCode: number; headers: Record<string, string> },
    $metadata: Metadata,
  ): Error {
    const type = String(parsed.__type ?? response.headers['x-amzn-errortype'] ?? 'UnknownError');
    const name = type.split('#').pop()!.split(':')[0]!;
    const message = String(parsed.message ?? parsed.Message ?? name);
    const $fault = response.statusCode >= 500 ? 'server' : 'client';
    // Marked as the SDK marks it, so its classification retries the call at the corrected time.
    if (CLOCK_SKEW.has(name) && this.correctClock(response.headers.date)) $metadata.clockSkewCorrected = true;
    if (name === 'ConditionalCheckFailedException') {
      const { __type: _, message: _m, Message: _M, ...fields } = parsed;
      return new ConditionalCheckFailedException({ message, $metadata, ...fields });
    }
    const error = new DynamoDBServiceException({ name, $fault, message, $metadata });
    return Object.assign(error, { __type: parsed.__type });
  }

  /** As the SDK's signer does on a skew error: the client's offset moves to the server's clock. */
  private correctClock(date: string | undefined): boolean {
    const server = date ? Date.parse(date) : Number.NaN;
    if (Number.isNaN(server)) return false;
    const offset = server - Date.now();
    if (Math.abs(offset - this.config.systemClockOffset) < SKEW_MS) return false;
    this.config.systemClockOffset = offset;
    return true;
  }

  /**
   * Where the client sends a table's calls: resolved by its own middleware stack (endpoint rules,
   * `AWS_ENDPOINT_URL_DYNAMODB`, account-based endpoints) on a call that stops before the network.
   */
  private endpoint(tableName: string): Promise<Endpoint> {
    let found = this.endpoints.get(tableName);
    if (!found) {
      found = this.resolve(tableName);
      found.catch(() => this.endpoints.delete(tableName));
      this.endpoints.set(tableName, found);
    }
    return found;
  }

  private async resolve(tableName: string): Promise<Endpoint> {
    const command = new GetItemCommand({ TableName: tableName, Key: {} });
    let endpoint: Endpoint | undefined;
    command.middlewareStack.add(
      () => async (args) => {
        const { protocol, hostname, port, path } = args.request as WireRequest;
        endpoint = { protocol, hostname, ...(port ? { port } : {}), path };
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'build', priority: 'low', name: 'wireCallsEndpoint' },
    );
    await this.client.send(command);
    if (!endpoint) throw new Error(`no DynamoDB endpoint resolved for table ${tableName}`);
    return endpoint;
  }
}

/** JSON.stringify's replacer: binary values (B, BS) as base64, as the JSON protocol carries them. */
function blobsAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array
    ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
    : value;
}

/** An attribute value with its binary values as bytes again, as the SDK's deserializer returns them. */
function bytesOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const v = value as { B?: string; BS?: string[]; M?: Json; L?: unknown[] };
  const bytes = (b: string) => new Uint8Array(Buffer.from(b, 'base64'));
  if (typeof v.B === 'string') return { B: bytes(v.B) };
  if (Array.isArray(v.BS)) return { BS: v.BS.map(bytes) };
  if (v.M) return { M: attributesOf(v.M) };
  if (v.L) return { L: v.L.map(bytesOf) };
  return value;
}

const attributesOf = (map: Json) => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, bytesOf(v)]));

/** An output's items and keys (Item, Items, Attributes, LastEvaluatedKey, BatchGet's) with bytes for binary values. */
const withBlobs = (output: Json) => convertOutput(output, (map) => attributesOf((map ?? {}) as Json));

type WriteRequest = { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } };
/** `each` applied to every table's entry of a batch call's map. */
export const eachTable = <T>(tables: unknown, each: (entry: T) => unknown) =>
  Object.fromEntries(Object.entries(tables as Record<string, T>).map(([table, v]) => [table, each(v)]));
/** A BatchWrite list with its items and keys converted by `convert`. */
export const writes = (convert: (values: unknown) => unknown) => (list: WriteRequest[]) =>
  list.map((r) =>
    r.PutRequest
      ? { PutRequest: { ...r.PutRequest, Item: convert(r.PutRequest.Item) } }
      : { DeleteRequest: { ...r.DeleteRequest, Key: convert(r.DeleteRequest?.Key) } },
  );

/**
 * An output with each of its attribute maps (Item, Attributes, Items, LastEvaluatedKey, and the
 * batch calls' Responses, UnprocessedItems and UnprocessedKeys) passed through `convert`.
 */
export function convertOutput(output: Json, convert: (map: unknown) => unknown): Json {
  const out = { ...output };
  if (out.Item !== undefined) out.Item = convert(out.Item);
  if (out.Attributes !== undefined) out.Attributes = convert(out.Attributes);
  if (out.Items !== undefined) out.Items = (out.Items as unknown[]).map((item) => convert(item));
  if (out.LastEvaluatedKey !== undefined) out.LastEvaluatedKey = convert(out.LastEvaluatedKey);
  if (out.Responses !== undefined)
    out.Responses = eachTable(out.Responses, (items: unknown[]) => items.map((item) => convert(item)));
  if (out.UnprocessedItems !== undefined)
    out.UnprocessedItems = eachTable(out.UnprocessedItems, writes(convert));
  if (out.UnprocessedKeys !== undefined)
    out.UnprocessedKeys = eachTable(out.UnprocessedKeys, (r: Json & { Keys: unknown[] }) => ({
      ...r,
      Keys: r.Keys.map((key) => convert(key)),
    }));
  return out;
}

/** The SDK retry middleware's classification (it retries THROTTLING and TRANSIENT). */
function retryErrorType(error: unknown): RetryErrorType {
  const e = error as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(e)) return 'THROTTLING';
  if (isTransientError(e)) return 'TRANSIENT';
  if (isServerError(e)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}
