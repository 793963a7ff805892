/**
 * Creates the stack's resources in the local emulators: the delivery queue with its
 * dead-letter queue, the tables with the key schema of lambdas/tables.ts, and the SNS topic
 * of operational events with a local queue subscribed to it (local mode prints what arrives).
 * Idempotent, so it runs on every start, including over persisted state.
 */
import {
  type AttributeDefinition,
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  type KeySchemaElement,
  ResourceInUseException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type QueueAttributeName,
  QueueNameExists,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  ATTEMPTS_TABLE,
  CONNECTIONS_TABLE,
  PARKED_TABLE,
  RATE_WINDOWS_TABLE,
} from '../lambdas/adapters/dynamodb/tables';
import { ENV, type SecretStore } from '../lambdas/config';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localSdkEnv } from './constants';
import type { LocalEndpoints } from './emulators';
import { localKeyArn } from './kms-store';
import { finishInterruptedRebuild, rebuildWithIndexes } from './table-upgrade';
import { describeTable, untilTable } from './table-waits';

/** Resource names of local mode. */
export interface ResourceNames {
  /** The ingress queue, publishers' door. */
  readonly queue: string;
  /** The internal retry queue. @default `<queue>-retry` */
  readonly retryQueue?: string;
  readonly dlq: string;
  readonly connectionsTable: string;
  readonly attemptsTable: string;
  /** @default 'webhooks-parked' */
  readonly parkedTable?: string;
  /** @default 'webhooks-rate-windows' */
  readonly rateWindowsTable?: string;
  /** SNS topic of operational events. @default 'webhooks-events' */
  readonly eventsTopic?: string;
  /** Name prefix of connection secrets (`<prefix><connectionId>`). */
  readonly secretPrefix: string;
}

export const DEFAULT_RESOURCE_NAMES: ResourceNames = {
  queue: 'webhooks-deliveries',
  dlq: 'webhooks-deliveries-dlq',
  connectionsTable: 'webhooks-connections',
  attemptsTable: 'webhooks-attempts',
  secretPrefix: 'webhooks/local/',
};

/** Receives before SQS moves a record to the DLQ (docs/design.md §4, infrastructure errors). */
export const MAX_RECEIVE_COUNT = 5;
/** Local default; a deployed stack derives it from the function timeout. */
export const DEFAULT_VISIBILITY_TIMEOUT_S = 30;
/** The largest message SQS (and fauxqs) accept: 1 MiB. */
export const MAX_MESSAGE_BYTES = 1_048_576;
/** Longest retention SQS allows, so nothing ages out of the DLQ while someone looks at it. */
const DLQ_RETENTION_S = 1_209_600;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface BootstrapOptions {
  readonly names?: Partial<ResourceNames>;
  /** Visibility timeout of the delivery queue, seconds. @default 30 */
  readonly visibilityTimeoutSeconds?: number;
  /** @default 5 */
  readonly maxReceiveCount?: number;
  /** Give up waiting for the tables to become ACTIVE after this long. @default 30 000 ms */
  readonly timeoutMs?: number;
  /** Where connection secrets are kept: the local Secrets Manager, or sealed with the local KMS key. @default 'secrets-manager' */
  readonly secretStore?: SecretStore['kind'];
  /**
   * Told before a persisted table whose indexes changed is rebuilt (table-upgrade.ts) and after,
   * with the items it kept, and when a start finishes a rebuild an earlier one left: a large log
   * takes a while, and the user should know why.
   */
  readonly onRebuild?: (event: RebuildEvent) => void;
}

/** A step of a local table's rebuild (table-upgrade.ts), as {@link BootstrapOptions.onRebuild} hears it. */
export type RebuildEvent =
  | { table: string; step: 'started' }
  | { table: string; step: 'done' | 'finished-interrupted'; items: number };

export interface LocalResources {
  /** Queue URLs use the emulator's origin, so SDK clients call it directly (see {@link localQueueUrl}). */
  readonly queueUrl: string;
  readonly queueArn: string;
  /** The internal retry queue (docs/design.md §3). */
  readonly retryQueueUrl: string;
  readonly retryQueueArn: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
  readonly connectionsTable: string;
  readonly attemptsTable: string;
  readonly parkedTable: string;
  readonly rateWindowsTable: string;
  readonly eventsTopicArn: string;
  /** A local queue subscribed to the events topic (raw delivery): local mode reads it. */
  readonly eventsQueueUrl: string;
  readonly secretPrefix: string;
  readonly secretStore: SecretStore;
}

/** Where the emulators are: what {@link startEmulators} returns. */
export interface EmulatorTarget {
  readonly endpoints: LocalEndpoints;
  readonly region: string;
}

/** Client settings for one emulator endpoint, for code that does not read the environment. */
export function localClientConfig(endpoint: string, region: string) {
  return { endpoint, region, credentials: LOCAL_CREDENTIALS };
}

/**
 * Rewrites a queue URL onto the emulator's origin. fauxqs answers with
 * `http://sqs.<region>.localhost:<port>/...`, a host that may not resolve; and the SQS
 * client sends each call to its QueueUrl's host (warning on every call) unless that
 * matches its endpoint. fauxqs finds a queue by the path alone, so this is safe.
 */
export function localQueueUrl(sqsEndpoint: string, queueUrl: string): string {
  return new URL(new URL(queueUrl).pathname, sqsEndpoint).href;
}

/** Creates (or updates) the queues and tables and resolves when all are ready. */
export async function bootstrapResources(
  target: EmulatorTarget,
  options: BootstrapOptions = {},
): Promise<LocalResources> {
  const names = { ...DEFAULT_RESOURCE_NAMES, ...options.names };
  const sqs = new SQSClient(localClientConfig(target.endpoints.sqs, target.region));
  const dynamodb = new DynamoDBClient(localClientConfig(target.endpoints.dynamodb, target.region));
  try {
    const dlq = await ensureQueue(sqs, target.endpoints.sqs, names.dlq, {
      MessageRetentionPeriod: String(DLQ_RETENTION_S),
      MaximumMessageSize: String(MAX_MESSAGE_BYTES),
    });
    // Both queues feed the dispatcher and share the DLQ: a dead letter names its queue.
    const consumed = {
      VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? DEFAULT_VISIBILITY_TIMEOUT_S),
      MaximumMessageSize: String(MAX_MESSAGE_BYTES),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: dlq.arn,
        maxReceiveCount: options.maxReceiveCount ?? MAX_RECEIVE_COUNT,
      }),
    };
    const queue = await ensureQueue(sqs, target.endpoints.sqs, names.queue, consumed);
    const retry = await ensureQueue(
      sqs,
      target.endpoints.sqs,
      names.retryQueue ?? `${names.queue}-retry`,
      consumed,
    );
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const parkedTable = names.parkedTable ?? 'webhooks-parked';
    const rateWindowsTable = names.rateWindowsTable ?? 'webhooks-rate-windows';
    const ensure = (input: CreateTableCommandInput) =>
      ensureTable(dynamodb, input, timeoutMs, options.onRebuild);
    await Promise.all([
      ensure(rateWindowsTableInput(rateWindowsTable)),
      ensure(connectionsTableInput(names.connectionsTable)),
      ensure(attemptsTableInput(names.attemptsTable)),
      ensure(parkedTableInput(parkedTable)),
    ]);
    const events = await ensureEventsTopic(sqs, target, names.eventsTopic ?? 'webhooks-events');
    return {
      queueUrl: queue.url,
      queueArn: queue.arn,
      retryQueueUrl: retry.url,
      retryQueueArn: retry.arn,
      dlqUrl: dlq.url,
      dlqArn: dlq.arn,
      connectionsTable: names.connectionsTable,
      attemptsTable: names.attemptsTable,
      parkedTable,
      rateWindowsTable,
      eventsTopicArn: events.topicArn,
      eventsQueueUrl: events.queueUrl,
      secretPrefix: names.secretPrefix,
      secretStore:
        options.secretStore === 'kms'
          ? { kind: 'kms', keyArn: localKeyArn(target.region) }
          : { kind: 'secrets-manager' },
    };
  } finally {
    sqs.destroy();
    dynamodb.destroy();
  }
}

/**
 * The environment that points unchanged AWS SDK v3 clients (via `AWS_ENDPOINT_URL_<SERVICE>`)
 * and the dispatcher's config (lambdas/config.ts) at the emulators and resources.
 */
export function localEnv(
  endpoints: LocalEndpoints,
  resources: LocalResources,
  region = LOCAL_REGION,
): Record<string, string> {
  return {
    ...localSdkEnv(endpoints, region),
    [ENV.queueUrl]: resources.queueUrl,
    [ENV.retryQueueUrl]: resources.retryQueueUrl,
    [ENV.dlqUrl]: resources.dlqUrl,
    [ENV.connectionsTable]: resources.connectionsTable,
    [ENV.attemptsTable]: resources.attemptsTable,
    [ENV.parkedTable]: resources.parkedTable,
    [ENV.rateWindowsTable]: resources.rateWindowsTable,
    [ENV.eventsTopicArn]: resources.eventsTopicArn,
    [ENV.secretPrefix]: resources.secretPrefix,
    [ENV.secretStore]: resources.secretStore.kind,
    ...(resources.secretStore.kind === 'kms' ? { [ENV.secretKeyArn]: resources.secretStore.keyArn } : {}),
  };
}

async function ensureQueue(
  sqs: SQSClient,
  endpoint: string,
  name: string,
  attributes: Partial<Record<QueueAttributeName, string>>,
): Promise<{ url: string; arn: string }> {
  let url: string | undefined;
  try {
    url = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl;
  } catch (error) {
    // Same name, other attributes (a persisted queue from an earlier run): bring it up to date.
    if (!isQueueNameExists(error)) throw error;
    url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  }
  if (!url) throw new Error(`The local SQS returned no URL for queue ${name}`);
  url = localQueueUrl(endpoint, url);
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`The local SQS returned no ARN for queue ${name}`);
  return { url, arn };
}

/**
 * SQS's JSON protocol is "query compatible": the SDK names the error after the legacy
 * code (`AWS.SimpleQueueService.QueueNameExists`), so the class check alone misses it.
 */
function isQueueNameExists(error: unknown): boolean {
  return (
    error instanceof QueueNameExists ||
    /QueueNameExists|QueueAlreadyExists/.test((error as Error)?.name ?? '')
  );
}

const keySchema = (partitionKey: string, sortKey?: string): KeySchemaElement[] => [
  { AttributeName: partitionKey, KeyType: 'HASH' },
  ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
];

/** Every key attribute of the project's tables is a string. */
const stringAttributes = (...names: string[]): AttributeDefinition[] =>
  [...new Set(names)].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));

function connectionsTableInput(tableName: string): CreateTableCommandInput {
  const index = CONNECTIONS_TABLE.byApplicationIndex;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(CONNECTIONS_TABLE.partitionKey),
    AttributeDefinitions: stringAttributes(CONNECTIONS_TABLE.partitionKey, index.partitionKey, index.sortKey),
    GlobalSecondaryIndexes: [
      {
        IndexName: index.name,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

function attemptsTableInput(tableName: string): CreateTableCommandInput {
  const failures = ATTEMPTS_TABLE.finalFailuresIndex;
  const byTime = ATTEMPTS_TABLE.byTimeIndex;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(ATTEMPTS_TABLE.partitionKey, ATTEMPTS_TABLE.sortKey),
    AttributeDefinitions: stringAttributes(
      ATTEMPTS_TABLE.partitionKey,
      ATTEMPTS_TABLE.sortKey,
      failures.partitionKey,
      failures.sortKey,
      byTime.partitionKey,
      byTime.sortKey,
    ),
    GlobalSecondaryIndexes: [
      {
        IndexName: failures.name,
        KeySchema: keySchema(failures.partitionKey, failures.sortKey),
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: byTime.name,
        KeySchema: keySchema(byTime.partitionKey, byTime.sortKey),
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...byTime.projected] },
      },
    ],
  };
}

function parkedTableInput(tableName: string): CreateTableCommandInput {
  const index = PARKED_TABLE.byApplicationIndex;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(PARKED_TABLE.partitionKey, PARKED_TABLE.sortKey),
    AttributeDefinitions: stringAttributes(
      PARKED_TABLE.partitionKey,
      PARKED_TABLE.sortKey,
      index.partitionKey,
      index.sortKey,
    ),
    GlobalSecondaryIndexes: [
      {
        IndexName: index.name,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
      },
    ],
  };
}

function rateWindowsTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(RATE_WINDOWS_TABLE.partitionKey),
    AttributeDefinitions: stringAttributes(RATE_WINDOWS_TABLE.partitionKey),
  };
}

/** The events topic and a queue subscribed to it with raw delivery (both idempotent). */
async function ensureEventsTopic(
  sqs: SQSClient,
  target: EmulatorTarget,
  name: string,
): Promise<{ topicArn: string; queueUrl: string }> {
  const sns = new SNSClient(localClientConfig(target.endpoints.sqs, target.region));
  try {
    const topicArn = (await sns.send(new CreateTopicCommand({ Name: name }))).TopicArn;
    if (!topicArn) throw new Error(`The local SNS returned no ARN for topic ${name}`);
    const queue = await ensureQueue(sqs, target.endpoints.sqs, `${name}-local`, {});
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    return { topicArn, queueUrl: queue.url };
  } finally {
    sns.destroy();
  }
}

async function ensureTable(
  dynamodb: DynamoDBClient,
  input: CreateTableCommandInput,
  timeoutMs: number,
  onRebuild?: BootstrapOptions['onRebuild'],
): Promise<void> {
  const name = input.TableName!;
  const restored = await finishInterruptedRebuild(dynamodb, input, timeoutMs);
  if (restored !== undefined) onRebuild?.({ table: name, step: 'finished-interrupted', items: restored });
  const existing = await describeTable(dynamodb, name);
  if (existing) {
    // Same key, other indexes (persisted by an older version): rebuilt in place, items kept.
    if (!sameKeys(existing, input)) {
      onRebuild?.({ table: name, step: 'started' });
      const items = await rebuildWithIndexes(dynamodb, input, timeoutMs);
      onRebuild?.({ table: name, step: 'done', items });
    }
  } else {
    try {
      await dynamodb.send(new CreateTableCommand(input));
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
  await untilTable(
    dynamodb,
    name,
    timeoutMs,
    (table) =>
      table?.TableStatus === 'ACTIVE' &&
      (table.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE'),
    (table) => `Local table ${name} is still ${table?.TableStatus ?? 'missing'} after ${timeoutMs} ms`,
  );
}

/**
 * Whether a persisted table has the key schema and indexes `wanted` gives. Other indexes can be
 * rebuilt (table-upgrade.ts); another key would fail in confusing ways later, so it is refused now.
 */
function sameKeys(table: TableDescription, wanted: CreateTableCommandInput): boolean {
  const keys = (schema: KeySchemaElement[] | undefined) =>
    JSON.stringify((schema ?? []).map((k) => [k.AttributeName, k.KeyType]));
  const indexes = (list: { IndexName?: string; KeySchema?: KeySchemaElement[] }[] | undefined) =>
    JSON.stringify((list ?? []).map((i) => [i.IndexName, keys(i.KeySchema)]).sort());
  if (keys(table.KeySchema) !== keys(wanted.KeySchema)) {
    throw new Error(
      `Local table ${wanted.TableName} exists with another key than lambdas/adapters/dynamodb/tables.ts defines. ` +
        'It comes from an older persisted state: start with `npm start -- --fresh` (or delete the persist directory).',
    );
  }
  return indexes(table.GlobalSecondaryIndexes) === indexes(wanted.GlobalSecondaryIndexes);
}
