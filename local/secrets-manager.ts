/**
 * A local Secrets Manager endpoint speaking the AWS JSON 1.1 protocol, so the real
 * `@aws-sdk/client-secrets-manager` (pointed at it with `AWS_ENDPOINT_URL_SECRETS_MANAGER`)
 * works unchanged. It serves exactly the actions the product calls: CreateSecret,
 * GetSecretValue, PutSecretValue, DeleteSecret (forced).
 * No emulator for Secrets Manager is in reach (docs/design.md §6), hence this one.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { awsJsonListener } from './aws-json';
import { LOCAL_REGION } from './constants';
import { close, LOCAL_HOST, listen } from './listen';
import { makePrivate, privateDir, writePrivateFile } from './private-files';
import { SecretStore, SecretsManagerError, type SecretsSnapshot } from './secrets-store';

const TARGET_PREFIX = 'secretsmanager';
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
  const server = createServer(
    awsJsonListener({
      targetPrefix: TARGET_PREFIX,
      handle: (action, input) => store.handle(action, input),
      error: (type, message) => new SecretsManagerError(type, message),
      isServiceError: (error) => error instanceof SecretsManagerError,
    }),
  );
  const endpoint = await listen(server, options.port ?? 0, options.host ?? LOCAL_HOST);
  return { endpoint, stop: () => close(server) };
}

function openStore(region: string, persistDir: string | undefined): SecretStore {
  if (!persistDir) return new SecretStore(region);
  privateDir(persistDir);
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
  makePrivate(file);
  const save = (next: SecretsSnapshot) => writePrivateFile(file, JSON.stringify(next, null, 2));
  return new SecretStore(region, save, snapshot);
}
