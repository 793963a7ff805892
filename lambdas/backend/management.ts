/**
 * The composition root's management side: the stores, queues, secret keepers and readers the
 * management library, the HTTP API, the CLI and local mode work through (`ManagementBackend`,
 * declared in management/ports.ts), built from a deployment's resources with the same adapters
 * as the dispatcher's (adapters.ts) around one set of SDK clients. Local mode is the same code
 * with clients pointed at the emulators; tests hand `WebhookManagement` a backend of memory
 * ports instead.
 */

import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { SqsDeadLetterMessages } from '../adapters/sqs/dead-letter-messages';
import { type StatsClients, StoreStats } from '../adapters/stats/stores';
import { CONFIG_DEFAULTS } from '../config';
import type { Log } from '../core/ports';
import type { ManagementBackend } from '../management/ports';
import type { OperatorStatsSource } from '../management/stats-port';
import type { ManagementOptions, WebhookResources } from '../management/types';
import { WebhookPublisher } from '../publisher';
import { deploymentAdapters } from './adapters';
import { awsClients } from './clients';
import { wireTestSends } from './dispatcher';

export { resourcesFromStack, StackNotFoundError } from '../adapters/cloudformation/stack';
export type { StatsClients } from '../adapters/stats/stores';

export interface BackendOptions
  extends Pick<
    ManagementOptions,
    'resources' | 'clients' | 'ca' | 'allowLoopback' | 'allowedPorts' | 'attemptTimeoutMs' | 'attemptTtlDays'
  > {
  /**
   * Where `stats` reads its figures. @default the stack's stores and queues (StoreStats); the
   * CLI passes CloudWatch for a deployed stack (adapters/stats/cloudwatch.ts).
   */
  statsSource?: (resources: WebhookResources, clients: StatsClients) => OperatorStatsSource;
}

const silent: Log = { debug() {}, info() {}, warn() {}, error() {} };

/** The deployed stack's (or local mode's) backend: one SDK client per service, shared by every part. */
export function createBackend(options: BackendOptions): ManagementBackend {
  const { resources } = options;
  const clients = awsClients(options.clients, resources.secretStore?.kind === 'kms');
  const adapters = deploymentAdapters(clients);
  const connections = adapters.connections(resources.connectionsTable);
  const queues = adapters.queues(resources);
  const statsClients = { sqs: clients.sqs, doc: adapters.doc };
  return {
    connections,
    // A raise places deliveries a minute after it is made: an ordinary read is recent enough.
    attempts: adapters.attempts(resources.attemptsTable, (connectionId) => connections.get(connectionId)),
    ...(resources.parkedTable ? { parked: adapters.parked(resources.parkedTable) } : {}),
    retryQueue: queues,
    deadLetters: new SqsDeadLetterMessages({ ...resources, client: clients.sqs }),
    secrets: adapters.secretKeeper(resources.secretStore, resources.secretPrefix),
    ...(resources.eventsTopicArn ? { events: adapters.events(resources.eventsTopicArn) } : {}),
    ...(resources.rateWindowsTable ? { rateWindows: adapters.rateWindows(resources.rateWindowsTable) } : {}),
    async secretString(secretId) {
      const out = await clients.secretsManager.send(new GetSecretValueCommand({ SecretId: secretId }));
      return out.SecretString ?? '';
    },
    stats: options.statsSource
      ? options.statsSource(resources, statsClients)
      : new StoreStats(resources, statsClients),
    publisher: new WebhookPublisher({ queueUrl: resources.queueUrl, sqsClient: clients.sqs }),
    testSends: () =>
      wireTestSends(
        {
          retryQueueUrl: resources.retryQueueUrl,
          dlqUrl: resources.dlqUrl,
          attemptsTable: resources.attemptsTable,
          secretStore: resources.secretStore,
          headerPrefix: resources.headerPrefix ?? CONFIG_DEFAULTS.headerPrefix,
          attemptTimeoutMs: options.attemptTimeoutMs ?? CONFIG_DEFAULTS.attemptTimeoutMs,
          // A test send's record is kept as long as any failure: people look for it right after.
          attemptTtlDays: options.attemptTtlDays ?? CONFIG_DEFAULTS.attemptTtlDays,
          allowedPorts: options.allowedPorts ?? resources.allowedPorts ?? CONFIG_DEFAULTS.allowedPorts,
          allowLoopback: options.allowLoopback ?? false,
        },
        { adapters, ca: options.ca, deps: { log: silent } },
      ),
  };
}
