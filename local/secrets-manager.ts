/**
 * A local Secrets Manager endpoint speaking the AWS JSON 1.1 protocol, so the real
 * `@aws-sdk/client-secrets-manager` (pointed at it with `AWS_ENDPOINT_URL_SECRETS_MANAGER`)
 * works unchanged. It serves exactly the actions the product calls: CreateSecret,
 * GetSecretValue, PutSecretValue, DeleteSecret (forced).
 * No emulator for Secrets Manager is in reach (DESIGN.md §6), hence this one.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { LOCAL_REGION } from './constants';
import { close, LOCAL_HOST, listen } from './listen';
import { SecretStore, SecretsManagerError, type SecretsSnapshot } from './secrets-store';

const TARGET_PREFIX = 'secretsmanager.';
const CONTENT_TYPE = 'application/x-amz-json-1.1';
/** Far above any request the project makes (a secret is at most 64 KiB). */
const MAX_REQUEST_BYTES = 1_048_576;
const PERSIST_FILE = 'secrets-manager.json';

export interface SecretsManagerOptions {
  /** @default 0 (any free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Directory to keep the secrets in (`secrets-manager.json`); in memory only when absent. */
  readonly persistDir?: string;
  /** Region written into ARNs. @default 'us-east-1' */
  readonly region?: string;
}

export interface LocalSecretsManager {
  /** `http://127.0.0.1:<port>`: the value for `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts the endpoint and resolves once it listens. */
export async function startSecretsManager(options: SecretsManagerOptions = {}): Promise<LocalSecretsManager> {
  const store = openStore(options.region ?? LOCAL_REGION, options.persistDir);
  const server = createServer((req, res) => {
    handle(store, req, res).catch((error: unknown) => {
      // Only reached if writing the response itself failed; the client sees a reset.
      res.destroy(error instanceof Error ? error : undefined);
    });
  });
  const endpoint = await listen(server, options.port ?? 0, options.host ?? LOCAL_HOST);
  return { endpoint, stop: () => close(server) };
}

function openStore(region: string, persistDir: string | undefined): SecretStore {
  if (!persistDir) return new SecretStore(region);
  mkdirSync(persistDir, { recursive: true });
  const file = join(persistDir, PERSIST_FILE);
  let snapshot: SecretsSnapshot | undefined;
  try {
    snapshot = JSON.parse(readFileSync(file, 'utf8')) as SecretsSnapshot;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`Cannot read the local secrets from ${file}; delete the file to start empty.`, {
        cause: error,
      });
    }
  }
  // Write-then-rename, so a crash mid-write never leaves a truncated file behind.
  const save = (next: SecretsSnapshot) => {
    writeFileSync(`${file}.tmp`, JSON.stringify(next, null, 2), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  };
  return new SecretStore(region, save, snapshot);
}

async function handle(store: SecretStore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  try {
    if (req.method !== 'POST') {
      throw new SecretsManagerError(
        'UnknownOperationException',
        'The local Secrets Manager only accepts POST /.',
      );
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.startsWith(TARGET_PREFIX)) {
      throw new SecretsManagerError(
        'UnknownOperationException',
        `Missing or foreign X-Amz-Target "${target}".`,
      );
    }
    const input = await readJson(req);
    const output = store.handle(target.slice(TARGET_PREFIX.length), input);
    send(res, 200, requestId, output);
  } catch (error) {
    if (error instanceof SecretsManagerError) {
      send(res, 400, requestId, { __type: error.type, message: error.message });
    } else {
      send(res, 500, requestId, { __type: 'InternalServiceError', message: (error as Error).message });
    }
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) {
      throw new SecretsManagerError(
        'SerializationException',
        `Request body larger than ${MAX_REQUEST_BYTES} bytes.`,
      );
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
    throw new SecretsManagerError('SerializationException', 'The request body is not a JSON object.');
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
