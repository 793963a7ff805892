/**
 * The local AWS side of a reliability run: fauxqs in one process, dynalite and the local
 * Secrets Manager in another (so a load run uses both cores), and the shared tables.
 * Queues are per scenario ({@link createQueues}), so runs never steal each other's messages.
 */
import { randomBytes } from 'node:crypto';
import { bootstrapResources, type LocalResources } from '../../local/bootstrap';
import { LOCAL_REGION } from '../../local/constants';
import type { LocalEndpoints } from '../../local/emulators';
import { type ReadyChild, spawnReady } from './child';
import type { ServicesReady } from './services-process';

const SCRIPT = 'bench/reliability/services-process.ts';

/** Where the services are and the names of the shared resources: JSON-safe (Jest passes it through env). */
export interface ServicesInfo {
  readonly region: string;
  readonly endpoints: LocalEndpoints;
  readonly connectionsTable: string;
  readonly attemptsTable: string;
  readonly parkedTable: string;
  readonly secretPrefix: string;
}

export interface RunningServices {
  readonly info: ServicesInfo;
  stop(): Promise<void>;
}

/** Name of the environment variable the faults project's global setup passes {@link ServicesInfo} in. */
export const SERVICES_ENV = 'WEBHOOKS_RELIABILITY_SERVICES';

export async function startServices(options: { timeoutMs?: number } = {}): Promise<RunningServices> {
  const started = await Promise.allSettled([
    spawnReady<ServicesReady>(SCRIPT, ['sqs'], { timeoutMs: options.timeoutMs }),
    spawnReady<ServicesReady>(SCRIPT, ['dynamodb,secretsManager'], { timeoutMs: options.timeoutMs }),
  ]);
  const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async () => {
    await Promise.all(children.map((c: ReadyChild<ServicesReady>) => c.stop(5_000)));
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const endpoints = Object.assign({}, ...children.map((c) => c.ready.endpoints)) as LocalEndpoints;
  try {
    const resources = await bootstrapResources(
      { endpoints, region: LOCAL_REGION },
      { names: { queue: 'reliability-deliveries', dlq: 'reliability-deliveries-dlq' } },
    );
    return {
      info: {
        region: LOCAL_REGION,
        endpoints,
        connectionsTable: resources.connectionsTable,
        attemptsTable: resources.attemptsTable,
        parkedTable: resources.parkedTable,
        secretPrefix: resources.secretPrefix,
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A fresh delivery queue and DLQ (redrive after `maxReceiveCount`) beside the shared tables. */
export async function createQueues(
  services: ServicesInfo,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount?: number; label?: string },
): Promise<LocalResources> {
  const suffix = `${options.label ?? 'r'}-${randomBytes(4).toString('hex')}`;
  return bootstrapResources(
    { endpoints: services.endpoints, region: services.region },
    {
      names: {
        queue: `rel-${suffix}`,
        dlq: `rel-${suffix}-dlq`,
        connectionsTable: services.connectionsTable,
        attemptsTable: services.attemptsTable,
        parkedTable: services.parkedTable,
        // A topic (and its local queue) per run: no run reads another's events.
        eventsTopic: `rel-${suffix}-events`,
        secretPrefix: services.secretPrefix,
      },
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      maxReceiveCount: options.maxReceiveCount,
    },
  );
}
