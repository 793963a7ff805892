/**
 * The AWS JSON 1.1 protocol as local endpoints serve it: POST /, the action in `X-Amz-Target`
 * (`<prefix>.<Action>`), a JSON object in and out, errors as `{ __type, message }`. The local
 * Secrets Manager and the local KMS share it, so the real SDK clients work unchanged.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isLoopbackHost } from './listen';

const CONTENT_TYPE = 'application/x-amz-json-1.1';
/** Far above any request the project makes. */
const MAX_REQUEST_BYTES = 1_048_576;

/** An error the service would return: `type` is the `__type` the SDK maps to its named exception. */
export interface ServiceError {
  readonly type: string;
  readonly message: string;
}

export interface AwsJsonService {
  /** `secretsmanager`, `TrentService`. */
  readonly targetPrefix: string;
  /** Runs one action; throws a service error (see `isServiceError`) for a 400. */
  handle(action: string, input: Record<string, unknown>): Record<string, unknown>;
  /** Builds the service's own error for a malformed request. */
  error(type: string, message: string): Error & ServiceError;
  isServiceError(error: unknown): error is ServiceError;
}

/** A request listener serving one service; a failure to write the response resets the socket. */
export function awsJsonListener(service: AwsJsonService): RequestListener {
  return (req, res) => {
    handle(service, req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function handle(service: AwsJsonService, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  const prefix = `${service.targetPrefix}.`;
  // These endpoints hand out secrets and keys: a page re-pointed at 127.0.0.1 gets none (listen.ts).
  if (!isLoopbackHost(req.headers.host)) {
    send(res, 421, requestId, {
      __type: 'MisdirectedRequestException',
      message: 'This local endpoint answers only requests addressed to 127.0.0.1, localhost or [::1].',
    });
    return;
  }
  try {
    if (req.method !== 'POST') {
      throw service.error('UnknownOperationException', 'This local endpoint only accepts POST /.');
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.startsWith(prefix)) {
      throw service.error('UnknownOperationException', `Missing or foreign X-Amz-Target "${target}".`);
    }
    const input = await readJson(service, req);
    send(res, 200, requestId, service.handle(target.slice(prefix.length), input));
  } catch (error) {
    if (service.isServiceError(error)) {
      send(res, 400, requestId, { __type: error.type, message: error.message });
    } else {
      send(res, 500, requestId, { __type: 'InternalServiceError', message: (error as Error).message });
    }
  }
}

async function readJson(service: AwsJsonService, req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) {
      throw service.error('SerializationException', `Request body larger than ${MAX_REQUEST_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw service.error('SerializationException', 'The request body is not a JSON object.');
  }
}

function send(res: ServerResponse, status: number, requestId: string, body: Record<string, unknown>): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': CONTENT_TYPE,
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': requestId,
  });
  res.end(payload);
}
