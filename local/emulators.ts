/**
 * The local AWS endpoints of local mode (docs/design.md §6), on loopback and free ports: fauxqs
 * (SQS, SNS), dynalite (DynamoDB), the local Secrets Manager and the local KMS (the `kms`
 * secret store, docs/design.md §5 "The KMS secret store"). Runs under tsx or plain
 * Node (fauxqs is ESM-only), never inside Jest's sandbox.
 */
import { join } from 'node:path';
import dynalite from 'dynalite';
import { LOCAL_REGION, type LocalEndpoints } from './constants';

export type { LocalEndpoints } from './constants';

import { startLocalSqs } from './fauxqs';
import { startKms } from './kms';
import { close, listen } from './listen';
import { makePrivate, privateDir } from './private-files';
import { startSecretsManager } from './secrets-manager';

/**
 * How long dynalite keeps a table CREATING/UPDATING/DELETING. Its default (500 ms) only
 * slows start-up; the bootstrap still waits for ACTIVE, so the wait stays exercised.
 */
const TABLE_STATE_MS = 50;

export interface EmulatorOptions {
  /**
   * Keep state across restarts under this directory (`sqs/`, `dynamodb/`,
   * `secrets-manager.json`, `kms.json`). In memory when absent.
   */
  readonly persistDir?: string;
  /**
   * Keep the queues in `persistDir` too. Off unless asked for: fauxqs 2.4.1's persistence
   * refuses ChangeMessageVisibility on messages it received (ReceiptHandleIsInvalid), which
   * breaks `dlq list`. @default false
   */
  readonly persistQueues?: boolean;
  /** @default 'us-east-1' */
  readonly region?: string;
}

export interface LocalEmulators {
  readonly endpoints: LocalEndpoints;
  readonly region: string;
  /** Stops them all; resolves when every server has closed. */
  stop(): Promise<void>;
}

interface Running {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts the emulators; if one fails to start, the others are stopped before the error is rethrown. */
export async function startEmulators(options: EmulatorOptions = {}): Promise<LocalEmulators> {
  const region = options.region ?? LOCAL_REGION;
  const { persistDir } = options;
  if (persistDir) {
    privateDir(persistDir);
    // What these emulators write themselves follows the process's umask (ownerOnlyFromNowOn);
    // what an older version left is made owner-only here. Only their own directories: the
    // directory itself may be the user's (`--persist DIR`).
    for (const own of ['dynamodb', 'sqs']) makePrivate(join(persistDir, own));
  }

  const started = await Promise.allSettled([
    startLocalSqs({
      region,
      dataDir: options.persistQueues && persistDir ? join(persistDir, 'sqs') : undefined,
    }),
    startDynamo(persistDir && join(persistDir, 'dynamodb')),
    startSecretsManager({ region, persistDir }),
    startKms({ region, persistDir }),
  ]);
  const running = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopAll = async () => {
    const results = await Promise.allSettled(running.map((r) => r.stop()));
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    if (failed.length > 0) throw new AggregateError(failed, 'Some local emulators did not stop cleanly');
  };
  const failure = started.find((r) => r.status === 'rejected');
  if (failure) {
    await stopAll().catch(() => {});
    throw new Error('Local emulators failed to start', { cause: failure.reason });
  }
  const [sqs, dynamodb, secretsManager, kms] = running as [Running, Running, Running, Running];
  return {
    endpoints: {
      sqs: sqs.endpoint,
      dynamodb: dynamodb.endpoint,
      secretsManager: secretsManager.endpoint,
      kms: kms.endpoint,
    },
    region,
    stop: stopAll,
  };
}

/** dynalite on a free loopback port, in memory or persisted under `path` (the test harness's emulator host starts it alone). */
export async function startDynamo(path?: string): Promise<Running> {
  const server = dynalite({
    path,
    createTableMs: TABLE_STATE_MS,
    deleteTableMs: TABLE_STATE_MS,
    updateTableMs: TABLE_STATE_MS,
  });
  const endpoint = await listen(server);
  return { endpoint, stop: () => close(server) };
}
