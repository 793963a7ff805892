/**
 * Local AWS for tests and benchmarks, on the one emulator host (emulators-process.ts):
 * - {@link startLocalAws}: the three services in one process with local mode's resource
 *   names, and the environment that points unchanged SDK clients and `loadConfig` at them
 *   (the integration and browser projects, the end-to-end and API-call benchmarks);
 * - {@link startServices}: fauxqs in one process, dynalite and the local Secrets Manager in
 *   another (so a load run uses both cores), with the shared tables; queues are per scenario
 *   ({@link createQueues}), so runs never steal each other's messages (the faults project,
 *   `npm run load`); {@link createQueue}: one queue of a test's own, with the attributes it gives.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type QueueAttributeName,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { ENV } from '../../lambdas/config';
import { bootstrapResources, type LocalResources, localEnv, localQueueUrl } from '../../local/bootstrap';
import { LOCAL_REGION } from '../../local/constants';
import type { LocalEndpoints } from '../../local/emulators';
import { type ReadyChild, spawnReady } from './child';
import type { EmulatorsReady, ServiceName } from './emulators-process';

const SCRIPT = 'test/support/emulators-process.ts';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

interface Hosts {
  readonly endpoints: LocalEndpoints;
  stop(): Promise<void>;
}

/** Starts one host process per group of services; if one fails, the others are stopped. */
async function startHosts(groups: ServiceName[][], timeoutMs = READY_TIMEOUT_MS): Promise<Hosts> {
  const started = await Promise.allSettled(
    groups.map((group) => spawnReady<EmulatorsReady>(SCRIPT, [group.join(',')], { timeoutMs })),
  );
  const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async () => {
    await Promise.all(children.map((c: ReadyChild<EmulatorsReady>) => c.stop(STOP_GRACE_MS)));
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { endpoints: Object.assign({}, ...children.map((c) => c.ready.endpoints)) as LocalEndpoints, stop };
}

export interface LocalAws {
  readonly endpoints: LocalEndpoints;
  readonly region: string;
  readonly resources: LocalResources;
  /** `AWS_ENDPOINT_URL_*`, credentials, region and the dispatcher's config keys. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/** The three services in one process, with local mode's queues, tables and secret prefix. */
export async function startLocalAws(
  options: { visibilityTimeoutSeconds?: number; secretStore?: 'secrets-manager' | 'kms' } = {},
): Promise<LocalAws> {
  const hosts = await startHosts([['sqs', 'dynamodb', 'secretsManager', 'kms']]);
  try {
    const resources = await bootstrapResources(
      { endpoints: hosts.endpoints, region: LOCAL_REGION },
      { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds, secretStore: options.secretStore },
    );
    return {
      endpoints: hosts.endpoints,
      region: LOCAL_REGION,
      resources,
      env: localEnv(hosts.endpoints, resources, LOCAL_REGION),
      stop: hosts.stop,
    };
  } catch (error) {
    await hosts.stop();
    throw error;
  }
}

/**
 * Sets `vars` in `process.env` (a {@link LocalAws}'s `env`: unchanged SDK clients and
 * `loadConfig` then find the emulators); the function it returns puts back what was there.
 */
export function useEnv(vars: Readonly<Record<string, string>>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/** Where the services are and the names of the shared resources: JSON-safe (Jest passes it through env). */
export interface ServicesInfo {
  readonly region: string;
  readonly endpoints: LocalEndpoints;
  readonly connectionsTable: string;
  readonly attemptsTable: string;
  readonly parkedTable: string;
  readonly rateWindowsTable: string;
  readonly secretPrefix: string;
}

export interface RunningServices {
  readonly info: ServicesInfo;
  stop(): Promise<void>;
}

/** Name of the environment variable the faults project's global setup passes {@link ServicesInfo} in. */
export const SERVICES_ENV = 'WEBHOOKS_RELIABILITY_SERVICES';

export async function startServices(options: { timeoutMs?: number } = {}): Promise<RunningServices> {
  const hosts = await startHosts([['sqs'], ['dynamodb', 'secretsManager', 'kms']], options.timeoutMs);
  try {
    const resources = await bootstrapResources(
      { endpoints: hosts.endpoints, region: LOCAL_REGION },
      { names: { queue: 'reliability-deliveries', dlq: 'reliability-deliveries-dlq' } },
    );
    return {
      info: {
        region: LOCAL_REGION,
        endpoints: hosts.endpoints,
        connectionsTable: resources.connectionsTable,
        attemptsTable: resources.attemptsTable,
        parkedTable: resources.parkedTable,
        rateWindowsTable: resources.rateWindowsTable,
        secretPrefix: resources.secretPrefix,
      },
      stop: hosts.stop,
    };
  } catch (error) {
    await hosts.stop();
    throw error;
  }
}

/**
 * The services and shared resources as the integration project's global setup exported them
 * ({@link startLocalAws}'s `env`): for harnesses inside Jest workers.
 */
export function servicesFromEnv(env: NodeJS.ProcessEnv = process.env): ServicesInfo {
  const read = (key: string) => {
    const value = env[key];
    if (!value) throw new Error(`${key} is not set: run through the integration project (its global setup)`);
    return value;
  };
  return {
    region: read('AWS_REGION'),
    endpoints: {
      sqs: read('AWS_ENDPOINT_URL_SQS'),
      dynamodb: read('AWS_ENDPOINT_URL_DYNAMODB'),
      secretsManager: read('AWS_ENDPOINT_URL_SECRETS_MANAGER'),
      kms: read('AWS_ENDPOINT_URL_KMS'),
    },
    connectionsTable: read(ENV.connectionsTable),
    attemptsTable: read(ENV.attemptsTable),
    parkedTable: read(ENV.parkedTable),
    rateWindowsTable: read(ENV.rateWindowsTable),
    secretPrefix: read(ENV.secretPrefix),
  };
}

/** A name of this run's own, e.g. `t-runner-1a2b3c4d`: queues of two runs never meet. */
export const uniqueName = (label: string, prefix = 't') =>
  `${prefix}-${label}-${randomBytes(4).toString('hex')}`;

/** A fresh delivery queue and DLQ (redrive after `maxReceiveCount`) beside the shared tables. */
export async function createQueues(
  services: ServicesInfo,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount?: number; label?: string },
): Promise<LocalResources> {
  const name = uniqueName(options.label ?? 'r', 'rel');
  return bootstrapResources(
    { endpoints: services.endpoints, region: services.region },
    {
      names: {
        queue: name,
        dlq: `${name}-dlq`,
        connectionsTable: services.connectionsTable,
        attemptsTable: services.attemptsTable,
        parkedTable: services.parkedTable,
        rateWindowsTable: services.rateWindowsTable,
        // A topic (and its local queue) per run: no run reads another's events.
        eventsTopic: `${name}-events`,
        secretPrefix: services.secretPrefix,
      },
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      maxReceiveCount: options.maxReceiveCount,
    },
  );
}

/**
 * One queue of a test's own (no dispatcher of another test file consumes it), with the given
 * attributes, on the emulator named by `AWS_ENDPOINT_URL_SQS` (the integration project's):
 * its URL on that origin and its ARN.
 */
export async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Partial<Record<QueueAttributeName, string>> = {},
): Promise<{ readonly url: string; readonly arn: string }> {
  const endpoint = process.env.AWS_ENDPOINT_URL_SQS;
  if (!endpoint)
    throw new Error('AWS_ENDPOINT_URL_SQS is not set: run through the integration project (global-setup)');
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const url = localQueueUrl(endpoint, QueueUrl!);
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes!.QueueArn! };
}
