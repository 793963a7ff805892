/**
 * The composition root of the management side (docs/design.md §2, rule 8): the one place that builds
 * the stores, queues, secret keepers and readers the management library, the HTTP API, the CLI
 * and local mode work through, from a deployment's resources and SDK clients. Local mode is the
 * same code with clients pointed at the emulators; tests hand `WebhookManagement` a backend of
 * memory ports instead. The dispatcher's side is built by wiring.ts from the same adapters.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoAttempts } from './adapters/dynamodb/attempts';
import { documentClient } from './adapters/dynamodb/client';
import { DynamoConnections } from './adapters/dynamodb/connections';
import { DynamoParked } from './adapters/dynamodb/parked';
import { DynamoRateWindows } from './adapters/dynamodb/rate-windows';
import { KmsKeeper, SecretsManagerKeeper } from './adapters/secrets/keepers';
import { KmsSecretSealer } from './adapters/secrets/kms-sealed';
import { SnsOperationalEvents } from './adapters/sns/operational-events';
import { SqsDeadLetterMessages } from './adapters/sqs/dead-letter-messages';
import { SqsQueues } from './adapters/sqs/queues';
import { type StatsClients, StoreStats } from './adapters/stats/stores';
import { CONFIG_DEFAULTS } from './config';
import { attemptShardSteps } from './core/attempt-shards';
import type { Log } from './core/ports';
import type { ManagementBackend, SecretKeeper } from './management/ports';
import type { OperatorStatsSource } from './management/stats-port';
import type { ManagementOptions, WebhookResources } from './management/types';
import { WebhookPublisher } from './publisher';
import { type AwsClients, wireTestSends } from './wiring';

export { resourcesFromStack, StackNotFoundError } from './adapters/cloudformation/stack';
export type { StatsClients } from './adapters/stats/stores';

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
  const doc = documentClient(clients.dynamodb);
  const connections = new DynamoConnections({ tableName: resources.connectionsTable, client: doc });
  const queues = new SqsQueues({
    retryQueueUrl: resources.retryQueueUrl,
    dlqUrl: resources.dlqUrl,
    client: clients.sqs,
  });
  const statsClients = { sqs: clients.sqs, doc };
  return {
    connections,
    attempts: new DynamoAttempts({
      tableName: resources.attemptsTable,
      client: doc,
      // A raise places deliveries a minute after it is made: an ordinary read is recent enough.
      shards: async (connectionId) => attemptShardSteps(await connections.get(connectionId)),
    }),
    ...(resources.parkedTable
      ? { parked: new DynamoParked({ tableName: resources.parkedTable, client: doc }) }
      : {}),
    retryQueue: queues,
    deadLetters: new SqsDeadLetterMessages({ ...resources, client: clients.sqs }),
    secrets: secretKeeper(resources, clients),
    ...(resources.eventsTopicArn
      ? { events: new SnsOperationalEvents({ topicArn: resources.eventsTopicArn, client: clients.sns }) }
      : {}),
    ...(resources.rateWindowsTable
      ? { rateWindows: new DynamoRateWindows({ tableName: resources.rateWindowsTable, client: doc }) }
      : {}),
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
        { clients, ca: options.ca, deps: { log: silent } },
      ),
  };
}

/**
 * The given SDK clients, and one of each missing service from the default credential chain and
 * endpoints (`AWS_ENDPOINT_URL_*`): one set a process shares. A KMS client only where asked for.
 */
export function awsClients(given: AwsClients = {}, withKms = true) {
  return {
    sqs: given.sqs ?? new SQSClient({}),
    dynamodb: given.dynamodb ?? new DynamoDBClient({}),
    secretsManager: given.secretsManager ?? new SecretsManagerClient({}),
    sns: given.sns ?? new SNSClient({}),
    ...(withKms ? { kms: given.kms ?? new KMSClient({}) } : {}),
  };
}

/** The keeper of the deployment's secret store (docs/design.md §5 "The KMS secret store"). */
function secretKeeper(resources: WebhookResources, clients: ReturnType<typeof awsClients>): SecretKeeper {
  const store = resources.secretStore;
  if (store?.kind === 'kms') return new KmsKeeper(new KmsSecretSealer(clients.kms!, store.keyArn));
  return new SecretsManagerKeeper(clients.secretsManager, resources.secretPrefix);
}
