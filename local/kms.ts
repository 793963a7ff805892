/**
 * A local KMS endpoint speaking the AWS JSON 1.1 protocol (`TrentService.*`), so the real
 * `@aws-sdk/client-kms` (pointed at it with `AWS_ENDPOINT_URL_KMS`) works unchanged. It serves
 * exactly the actions the kms secret store calls, Encrypt and Decrypt, with one key whose
 * material is kept in local state (`kms.json`), so persisted connections still decrypt after a
 * restart. kms-store.ts holds the rules.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { awsJsonListener } from './aws-json';
import { LOCAL_REGION } from './constants';
import { KmsError, type KmsSnapshot, KmsStore } from './kms-store';
import { close, LOCAL_HOST, listen } from './listen';
import { makePrivate, privateDir, writePrivateFile } from './private-files';

const TARGET_PREFIX = 'TrentService';
const PERSIST_FILE = 'kms.json';

export interface KmsOptions {
  /** @default 0 (any free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Directory to keep the key in (`kms.json`); in memory only when absent. */
  readonly persistDir?: string;
  /** Region written into the key ARN. @default 'us-east-1' */
  readonly region?: string;
}

export interface LocalKms {
  /** `http://127.0.0.1:<port>`: the value for `AWS_ENDPOINT_URL_KMS`. */
  readonly endpoint: string;
  /** The ARN of the one key. */
  readonly keyArn: string;
  stop(): Promise<void>;
}

/** Starts the endpoint and resolves once it listens. */
export async function startKms(options: KmsOptions = {}): Promise<LocalKms> {
  const store = openStore(options.region ?? LOCAL_REGION, options.persistDir);
  const server = createServer(
    awsJsonListener({
      targetPrefix: TARGET_PREFIX,
      handle: (action, input) => store.handle(action, input),
      error: (type, message) => new KmsError(type, message),
      isServiceError: (error) => error instanceof KmsError,
    }),
  );
  const endpoint = await listen(server, options.port ?? 0, options.host ?? LOCAL_HOST);
  return { endpoint, keyArn: store.keyArn, stop: () => close(server) };
}

function openStore(region: string, persistDir: string | undefined): KmsStore {
  if (!persistDir) return new KmsStore(region);
  privateDir(persistDir);
  const file = join(persistDir, PERSIST_FILE);
  let snapshot: KmsSnapshot | undefined;
  try {
    snapshot = JSON.parse(readFileSync(file, 'utf8')) as KmsSnapshot;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`Cannot read the local KMS key from ${file}; delete the file to start empty.`, {
        cause: error,
      });
    }
  }
  makePrivate(file);
  const save = (next: KmsSnapshot) => writePrivateFile(file, JSON.stringify(next));
  return new KmsStore(region, save, snapshot);
}
