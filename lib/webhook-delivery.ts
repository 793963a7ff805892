import { Lazy, Stack, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  ATTEMPTS_TABLE,
  CONNECTIONS_TABLE,
  PARKED_TABLE,
  RATE_WINDOWS_TABLE,
} from '../lambdas/adapters/dynamodb/tables';
import { ENV } from '../lambdas/config';
import { formatProbeSchedule } from '../lambdas/core/probes';
import { AlarmRouting } from './alarm-routing';
import { createAlarms } from './alarms';
import { WebhookDashboard } from './dashboard';
import { dispatcherEnvironment } from './dispatcher-environment';
import { FailingConnectionsRule } from './failing-connections';
import { functionLogging } from './function-logging';
import { LAMBDA_HANDLER, lambdaCode } from './lambda-code';
import { createLogQueries } from './log-queries';
import { type ManagementApiOptions, WebhookManagementApi } from './management-api';
import { WebhookMetrics } from './metrics';
import { addDeliveryOutputs } from './outputs';
import { ConnectionSecretStore } from './secret-store';
import {
  MAX_BATCH_SIZE_WITHOUT_WINDOW,
  MAX_MESSAGE_SIZE_BYTES,
  type ResolvedWebhookDeliveryProps,
  resolveProps,
  type WebhookDeliveryProps,
} from './webhook-delivery-props';

export {
  DISPATCHER_LOG_LEVELS,
  type DispatcherLogLevel,
  type WebhookDeliveryProps,
  WebhookDeliveryPropsError,
} from './webhook-delivery-props';

/** `NODE_OPTIONS` of the dispatcher: stack traces point into the TypeScript sources. */
export const DISPATCHER_NODE_OPTIONS = '--enable-source-maps';

/**
 * The event source mappings' own counts (records polled, invoked, failed, deleted), off by
 * default in Lambda; the dashboard graphs them (docs/operations.md#dashboard).
 */
const EVENT_SOURCE_METRICS_CONFIG: lambda.MetricsConfig = { metrics: [lambda.MetricType.EVENT_COUNT] };

/** `service` of every dispatcher log line (Powertools). */
const POWERTOOLS_SERVICE_NAME = 'webhook-dispatcher';

/** Fan-out and delivery read a connection by id and the connections of an application. */
const CONNECTION_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'];
/** The management backend also lists every connection and saves, changes and deletes them. */
const CONNECTION_OPERATE_ACTIONS = [
  ...CONNECTION_READ_ACTIONS,
  'dynamodb:Scan',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];
/** Operators list parked deliveries, claim them for a recovery (UpdateItem) and remove them once re-queued. */
const PARKED_OPERATE_ACTIONS = [
  'dynamodb:Query',
  'dynamodb:GetItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];
/** Operators query the attempt log (every read is a Query); PutItem lets a test send record its own attempt. */
const ATTEMPT_OPERATE_ACTIONS = ['dynamodb:Query', 'dynamodb:PutItem'];
/**
 * Inspect and drain the dead-letter queue; redrive re-publishes each message to the queue it
 * belongs to (events to the ingress queue, deliveries and attempt records to the retry queue).
 * Listing receives messages and hands them straight back (ChangeMessageVisibility to 0),
 * so a look at the queue does not hide its messages for the visibility timeout.
 */
const DEAD_LETTER_OPERATE_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
];

/**
 * Outbound webhook delivery (docs/design.md §1): a delivery queue with its dead-letter queue,
 * the dispatcher function consuming it in batches, the connections and attempt log tables,
 * read access to the connection secrets, alarms with runbooks and a dashboard
 * (docs/operations.md).
 *
 * Upstream producers get `sqs:SendMessage` with {@link grantPublish} or {@link bindPublisher};
 * a management backend or operator role gets its permissions with {@link grantOperate}.
 */
/** A global secondary index of one of the construct's tables. */
interface TableIndex {
  name: string;
  partitionKey: string;
  sortKey: string;
  nonKeyAttributes?: string[];
  /** Every item writes to it, so it is provisioned like the table. */
  everyItem?: boolean;
}

/**
 * A provisioned index's write floor: the table's own when every item writes to it (`everyItem`),
 * else the sparse indexes' floor.
 */
function indexWriteFloor(
  index: TableIndex,
  capacity: { minWriteCapacity: number; minIndexWriteCapacity: number },
): number {
  return index.everyItem ? capacity.minWriteCapacity : capacity.minIndexWriteCapacity;
}

export class WebhookDelivery extends Construct {
  /**
   * The ingress queue: upstream services publish events here, and it carries `event` messages
   * only; anything else arriving on it is dead-lettered as poison (docs/design.md §3).
   */
  public readonly queue: sqs.Queue;
  /**
   * The internal retry queue: retries, deliveries handed back, queued attempt records and
   * redriven deliveries. Only the dispatcher and the roles given {@link grantOperate} may
   * send to it, by IAM and by its queue policy (docs/security.md).
   */
  public readonly retryQueue: sqs.Queue;
  /**
   * Exhausted deliveries, poison messages and records SQS gave up on, from both queues (one
   * DLQ: a dispatcher's dead letter names its queue, and SQS's own moves carry the source
   * queue's ARN as the `DeadLetterQueueSourceArn` attribute).
   */
  public readonly deadLetterQueue: sqs.Queue;
  /** Webhook connections, keyed by connection id, with the `byApplication` index for fan-out. */
  public readonly connectionsTable: dynamodb.Table;
  /** One item per delivery attempt, expired by TTL, with the sparse `finalFailures` index. */
  public readonly attemptsTable: dynamodb.Table;
  /**
   * Parked deliveries (docs/design.md §9): exhausted, disabled-connection and blocked deliveries
   * with their exact bodies, per connection, expired with the attempt log's TTL.
   */
  public readonly parkedTable: dynamodb.Table;
  /**
   * Rate-limit windows (docs/design.md §4 "Rate limits"): one short-lived counter item per rate-limited
   * connection and second, shared by every dispatcher. Unlimited connections never write it.
   */
  public readonly rateWindowsTable: dynamodb.Table;
  /** SNS topic of the operational events (`connection.failing`, `.disabled`, `.recovered`). */
  public readonly eventsTopic: sns.ITopic;
  /** The dispatcher function. */
  public readonly dispatcher: lambda.Function;
  /** Execution role of the dispatcher: only the permissions listed on this construct. */
  public readonly dispatcherRole: iam.Role;
  /** The dispatcher's log group. */
  public readonly logGroup: logs.LogGroup;
  /** The SQS event source feeding the dispatcher from the ingress queue. */
  public readonly eventSource: SqsEventSource;
  /** The SQS event source feeding the dispatcher from the retry queue. */
  public readonly retryEventSource: SqsEventSource;
  /** Fires when at least one message is in the dead-letter queue. */
  public readonly deadLetterAlarm: cloudwatch.Alarm;
  /** Fires when the oldest message on the delivery queue is older than the threshold. */
  public readonly oldestMessageAgeAlarm: cloudwatch.Alarm;
  /**
   * Every notifying alarm of the construct by key, each with its severity and its runbook in
   * docs/operations.md (`managementApi5xx` only with the management API).
   */
  public readonly alarms: Readonly<Record<string, cloudwatch.AlarmBase>>;
  /** Topic of the `page` alarms: `pagingTopic`, or one the construct created (output `PagingTopicArn`). */
  public readonly pagingTopic: sns.ITopic;
  /** Topic of the `ticket` alarms: `ticketTopic`, or one the construct created (output `TicketTopicArn`). */
  public readonly ticketTopic: sns.ITopic;
  /** The alarms with their severities and runbooks, and the topics they notify. */
  public readonly alarmRouting: AlarmRouting;
  /** Saved CloudWatch Logs Insights queries over the dispatcher's log (docs/operations.md#logs-and-alarms). */
  public readonly logQueries: Readonly<Record<string, logs.QueryDefinition>>;
  /** The pipeline's metrics in namespace `Webhooks`, for this stack (lambdas/adapters/metrics/catalogue.ts). */
  public readonly metrics: WebhookMetrics;
  /** Contributor Insights rule over the dispatcher's failed attempts, keyed on the connection. */
  public readonly failingConnections: FailingConnectionsRule;
  /** The CloudWatch dashboard; undefined when `dashboard` is `false`. */
  public readonly dashboard?: WebhookDashboard;
  /** Name prefix of the connection secrets (ends with `/`). */
  public readonly secretPrefix: string;
  /** ARN pattern matching every connection secret of this construct (`…:secret:<prefix>*`). */
  public readonly secretArnPattern: string;
  /** Where connection secrets are kept: the `secretStore` prop. */
  public readonly secretStore: 'secrets-manager' | 'kms';
  /** The key that seals connection secrets when `secretStore` is `kms`. */
  public readonly secretKey?: kms.IKey;
  /** Prefix of the service headers, e.g. `X-Service`. */
  public readonly headerPrefix: string;
  /** Destination ports the dispatcher's egress policy allows. */
  public readonly allowedPorts: readonly number[];
  /** Deliveries per second for a connection with no `rateLimit` of its own; none when unset. */
  public readonly defaultRateLimit?: number;
  /** The highest rate limit a connection may have, deliveries per second. */
  public readonly rateLimitCeiling: number;
  /** Seconds a rotated-out secret keeps signing by default (`secretRotationOverlap`; 0: none). */
  public readonly secretRotationOverlapSeconds: number;
  /** Whether deliveries are findable by user and event id (`deliverySearch` prop). */
  public readonly deliverySearch: boolean;
  /** The management HTTP API and console; undefined when `managementApi` is `false`. */
  public readonly managementApi?: WebhookManagementApi;
  /** Whether the dispatcher (and management API) run with active X-Ray tracing (`tracing` prop). */
  public readonly tracing: boolean;

  /** @throws WebhookDeliveryPropsError when a prop is invalid or contradicts another. */
  constructor(scope: Construct, id: string, props: WebhookDeliveryProps = {}) {
    super(scope, id);
    const p = resolveProps(props, Stack.of(this).stackName);
    this.secretPrefix = p.secretPrefix;
    this.headerPrefix = p.headerPrefix;
    this.allowedPorts = [...p.allowedPorts];
    this.defaultRateLimit = p.defaultRateLimit;
    this.rateLimitCeiling = p.rateLimitCeiling;
    this.secretRotationOverlapSeconds = p.secretRotationOverlap.toSeconds();
    this.deliverySearch = p.deliverySearch;
    this.tracing = p.tracing;
    this.secrets = new ConnectionSecretStore(this, p.secretStore, p.secretPrefix, p.removalPolicy);
    this.secretArnPattern = this.secrets.secretArnPattern;
    this.secretStore = p.secretStore;
    this.secretKey = this.secrets.key;

    this.deadLetterQueue = this.createDeadLetterQueue(p);
    this.queue = this.createConsumedQueue('Queue', p);
    this.retryQueue = this.createConsumedQueue('RetryQueue', p);
    this.connectionsTable = this.createConnectionsTable(p);
    this.attemptsTable = this.createAttemptsTable(p);
    this.parkedTable = this.createParkedTable(p);
    this.rateWindowsTable = this.createRateWindowsTable(p);
    this.eventsTopic = p.eventsTopic ?? this.createEventsTopic();

    this.dispatcherRole = this.createDispatcherRole();
    this.logGroup = this.createLogGroup(p);
    this.dispatcher = this.createDispatcher(p);
    this.grantDispatcher(this.dispatcherRole, p);
    this.closeRetryQueue();
    this.eventSource = this.createEventSource(p);
    this.retryEventSource = this.createRetryEventSource(p);

    if (props.managementApi !== false) this.managementApi = this.createManagementApi(props.managementApi, p);

    this.metrics = new WebhookMetrics(Stack.of(this).stackName);
    this.failingConnections = new FailingConnectionsRule(this, 'FailingConnections', this.logGroup);
    this.alarmRouting = new AlarmRouting(this, 'Alarms', {
      topics: {
        page: props.pagingTopic ?? p.alarmTopic,
        ticket: props.ticketTopic ?? p.alarmTopic,
      },
      runbookBaseUrl: p.operations.runbookBaseUrl,
    });
    this.pagingTopic = this.alarmRouting.topics.page;
    this.ticketTopic = this.alarmRouting.topics.ticket;
    createAlarms({
      routing: this.alarmRouting,
      metrics: this.metrics,
      queue: this.queue,
      retryQueue: this.retryQueue,
      deadLetterQueue: this.deadLetterQueue,
      dlqRetention: p.dlqRetention,
      dispatcher: this.dispatcher,
      functionTimeout: p.functionTimeout,
      maxConcurrency: p.maxConcurrency,
      eventSources: this.eventSourceIds(),
      tables: this.tablesByName(),
      failingConnections: this.failingConnections,
      managementApi: this.managementApi?.api,
      thresholds: p.alarmThresholds,
      oldestMessageAge: p.oldestMessageAgeAlarmThreshold,
      operations: p.operations,
    });
    this.alarms = Object.fromEntries(
      Object.entries(this.alarmRouting.alarms).map(([key, routed]) => [key, routed.alarm]),
    );
    this.deadLetterAlarm = this.alarms.deadLetterQueue as cloudwatch.Alarm;
    this.oldestMessageAgeAlarm = this.alarms.oldestMessageAge as cloudwatch.Alarm;
    this.logQueries = createLogQueries(this, 'LogQueries', [this.logGroup]);
    if (p.dashboard) this.dashboard = this.createDashboard(p);
  }

  /** The connection secrets and who may use them. */
  private readonly secrets: ConnectionSecretStore;

  /** Principal ARNs the retry queue's policy lets send: the dispatcher's role and operators. */
  private readonly retryWriters: string[] = [];

  /**
   * Adds the stack outputs by which the CLI (`npx webhooks --stack <name>`) and the management
   * library (`resourcesFromStack('<name>')`) find this delivery's resources: call it when the
   * construct lives in a stack of your own ({@link WebhookStack} calls it itself). The outputs
   * have fixed names, so a stack holds one WebhookDelivery that adds them.
   */
  public addOutputs(scope: Construct = Stack.of(this)): void {
    addDeliveryOutputs(scope, this);
  }

  /**
   * Lets `grantee` publish events to the ingress queue (`sqs:SendMessage`); sets nothing
   * else. The retry queue stays closed to it: publishers write events, nothing more.
   */
  public grantPublish(grantee: iam.IGrantable): iam.Grant {
    return this.queue.grant(grantee, 'sqs:SendMessage');
  }

  /**
   * Makes `fn` an upstream publisher: sets `WEBHOOKS_QUEUE_URL`, which the publisher client
   * reads, and grants {@link grantPublish}.
   */
  public bindPublisher(fn: lambda.Function): iam.Grant {
    fn.addEnvironment(ENV.queueUrl, this.queue.queueUrl);
    return this.grantPublish(fn);
  }

  /**
   * Permissions of a management backend or operator role: read and write connections,
   * read the attempt log and the rate-limit counts, manage the connection secrets under the
   * prefix, inspect and drain the dead-letter queue, publish events, and redrive to either
   * queue. The grantee is also added to the retry queue's policy, so it must be a role or a
   * user (its ARN is what the policy names).
   * @throws Error when the grantee's principal has no role or user ARN.
   */
  public grantOperate(grantee: iam.IGrantable): iam.Grant {
    this.retryWriters.push(principalArnOf(grantee));
    return (
      grantOn(grantee, CONNECTION_OPERATE_ACTIONS, this.connectionsTableArns())
        .combine(grantOn(grantee, ATTEMPT_OPERATE_ACTIONS, this.attemptsTableArns()))
        // Resend marks the delivery's last attempt (resentAs), on the table only.
        .combine(grantOn(grantee, ['dynamodb:UpdateItem'], [this.attemptsTable.tableArn]))
        .combine(grantOn(grantee, PARKED_OPERATE_ACTIONS, this.parkedTableArns()))
        // What the rate limit counted, read back for "waiting for the rate limit".
        .combine(grantOn(grantee, ['dynamodb:BatchGetItem'], [this.rateWindowsTable.tableArn]))
        .combine(this.eventsTopic.grantPublish(grantee))
        .combine(this.secrets.grantOperate(grantee))
        .combine(this.deadLetterQueue.grant(grantee, ...DEAD_LETTER_OPERATE_ACTIONS))
        .combine(this.grantPublish(grantee))
        .combine(this.retryQueue.grant(grantee, 'sqs:SendMessage'))
    );
  }

  private createDeadLetterQueue(p: ResolvedWebhookDeliveryProps): sqs.Queue {
    return new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: p.dlqRetention,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
    });
  }

  /** A queue the dispatcher consumes (the ingress or the retry queue), with the dead-letter queue. */
  private createConsumedQueue(id: string, p: ResolvedWebhookDeliveryProps): sqs.Queue {
    return new sqs.Queue(this, id, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: p.queueVisibilityTimeout,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: p.maxReceiveCount },
    });
  }

  private createConnectionsTable(p: ResolvedWebhookDeliveryProps): dynamodb.Table {
    return this.createTable('ConnectionsTable', p, {
      partitionKey: CONNECTIONS_TABLE.partitionKey,
      indexes: [CONNECTIONS_TABLE.byApplicationIndex],
    });
  }

  /**
   * A successful attempt writes its item and its entry in the by-time index, one write unit each
   * (the index leaves out the body; docs/design.md §5).
   */
  private createAttemptsTable(p: ResolvedWebhookDeliveryProps): dynamodb.Table {
    const byTime = ATTEMPTS_TABLE.byTimeIndex;
    const indexes: TableIndex[] = [
      // Sparse: only final failures carry its keys, so successes never write to it.
      ATTEMPTS_TABLE.finalFailuresIndex,
      // Every record: the log in attempt-time order; it writes as often as the table.
      { ...byTime, nonKeyAttributes: [...byTime.projected], everyItem: true },
    ];
    const table = this.createTable('AttemptsTable', p, {
      partitionKey: ATTEMPTS_TABLE.partitionKey,
      sortKey: ATTEMPTS_TABLE.sortKey,
      timeToLiveAttribute: ATTEMPTS_TABLE.ttlAttribute,
      indexes,
      pointInTimeRecovery: p.attemptLogPointInTimeRecovery,
      capacity: p.attemptLogCapacity,
    });
    if (!p.attemptLogPointInTimeRecovery) {
      // The owner chose this prop: acknowledged through aws-cdk-lib's own Validations API (what
      // cdk-nag reads), so the construct needs no cdk-nag import to say why.
      Validations.of(table).acknowledge({
        id: 'AwsSolutions-DDB3',
        reason:
          'attemptLogPointInTimeRecovery: false: the attempt log is an audit trail that ages out by TTL; its owner ' +
          'chose to keep no point-in-time backups of it (docs/cost.md).',
      });
    }
    const capacity = p.attemptLogCapacity;
    if (capacity) {
      const target = capacity.targetUtilizationPercent;
      table
        .autoScaleWriteCapacity({
          minCapacity: capacity.minWriteCapacity,
          maxCapacity: capacity.maxWriteCapacity,
        })
        .scaleOnUtilization({ targetUtilizationPercent: target });
      table
        .autoScaleReadCapacity({ minCapacity: 1, maxCapacity: capacity.maxReadCapacity })
        .scaleOnUtilization({ targetUtilizationPercent: target });
      // Only final failures reach the sparse index: it scales from its own floor within the table's
      // ceiling; every record reaches the by-time index, so it scales like the table. Index writes
      // must be provisioned too: a throttled index throttles the table's writes.
      for (const index of indexes) {
        table
          .autoScaleGlobalSecondaryIndexWriteCapacity(index.name, {
            minCapacity: indexWriteFloor(index, capacity),
            maxCapacity: capacity.maxWriteCapacity,
          })
          .scaleOnUtilization({ targetUtilizationPercent: target });
        table
          .autoScaleGlobalSecondaryIndexReadCapacity(index.name, {
            minCapacity: 1,
            maxCapacity: capacity.maxReadCapacity,
          })
          .scaleOnUtilization({ targetUtilizationPercent: target });
      }
    }
    return table;
  }

  /**
   * Parked deliveries: one item per delivery under its connection, so parking writes the item
   * and its small by-application index entry (never the body), and nothing else (docs/design.md §9).
   */
  private createParkedTable(p: ResolvedWebhookDeliveryProps): dynamodb.Table {
    return this.createTable('ParkedTable', p, {
      partitionKey: PARKED_TABLE.partitionKey,
      sortKey: PARKED_TABLE.sortKey,
      timeToLiveAttribute: PARKED_TABLE.ttlAttribute,
      indexes: [
        {
          ...PARKED_TABLE.byApplicationIndex,
          nonKeyAttributes: [...PARKED_TABLE.byApplicationIndex.projected],
        },
      ],
    });
  }

  /**
   * Rate-limit windows: on demand (nothing billed while no connection is limited), no index,
   * expired by TTL. PITR is on like every table of the stack: billed by table size, which is a
   * few minutes of small counters (docs/cost.md).
   */
  private createRateWindowsTable(p: ResolvedWebhookDeliveryProps): dynamodb.Table {
    return new dynamodb.Table(this, 'RateWindowsTable', {
      partitionKey: { name: RATE_WINDOWS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: RATE_WINDOWS_TABLE.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: p.removalPolicy,
    });
  }

  /**
   * An on-demand, encrypted table with PITR and one index (ALL-projected unless it names its
   * non-key attributes); every key is a string.
   */
  private createTable(
    id: string,
    p: ResolvedWebhookDeliveryProps,
    keys: {
      partitionKey: string;
      sortKey?: string;
      timeToLiveAttribute?: string;
      indexes: TableIndex[];
      /** @default true */
      pointInTimeRecovery?: boolean;
      /** Provisioned (auto-scaled by the caller) instead of on-demand. */
      capacity?: { minWriteCapacity: number; minIndexWriteCapacity: number };
    },
  ): dynamodb.Table {
    const key = (name: string) => ({ name, type: dynamodb.AttributeType.STRING });
    const table = new dynamodb.Table(this, id, {
      partitionKey: key(keys.partitionKey),
      ...(keys.sortKey ? { sortKey: key(keys.sortKey) } : {}),
      ...(keys.timeToLiveAttribute ? { timeToLiveAttribute: keys.timeToLiveAttribute } : {}),
      ...(keys.capacity
        ? {
            billingMode: dynamodb.BillingMode.PROVISIONED,
            readCapacity: 1,
            writeCapacity: keys.capacity.minWriteCapacity,
          }
        : { billingMode: dynamodb.BillingMode.PAY_PER_REQUEST }),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: keys.pointInTimeRecovery ?? true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: p.removalPolicy,
    });
    for (const index of keys.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        ...(keys.capacity ? { readCapacity: 1, writeCapacity: indexWriteFloor(index, keys.capacity) } : {}),
        ...(index.nonKeyAttributes
          ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: index.nonKeyAttributes }
          : { projectionType: dynamodb.ProjectionType.ALL }),
      });
    }
    return table;
  }

  private createEventsTopic(): sns.Topic {
    return new sns.Topic(this, 'EventsTopic', {
      displayName: 'Webhook connection health events',
      enforceSSL: true,
    });
  }

  private createDispatcherRole(): iam.Role {
    return new iam.Role(this, 'DispatcherRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description:
        'Webhook dispatcher: consumes the delivery queue, reads connections and their secrets, logs attempts',
    });
  }

  private createLogGroup(p: ResolvedWebhookDeliveryProps): logs.LogGroup {
    const logGroup = new logs.LogGroup(this, 'DispatcherLogs', {
      retention: p.logRetention,
      removalPolicy: p.removalPolicy,
    });
    // Granted here instead of the AWSLambdaBasicExecutionRole managed policy, which allows
    // writing to every log group of the account.
    logGroup.grantWrite(this.dispatcherRole);
    return logGroup;
  }

  private createDispatcher(p: ResolvedWebhookDeliveryProps): lambda.Function {
    const environment = dispatcherEnvironment({
      retryQueueUrl: this.retryQueue.queueUrl,
      dlqUrl: this.deadLetterQueue.queueUrl,
      connectionsTable: this.connectionsTable.tableName,
      attemptsTable: this.attemptsTable.tableName,
      parkedTable: this.parkedTable.tableName,
      rateWindowsTable: this.rateWindowsTable.tableName,
      defaultRateLimit: p.defaultRateLimit === undefined ? '' : String(p.defaultRateLimit),
      rateLimitCeiling: String(p.rateLimitCeiling),
      eventsTopicArn: this.eventsTopic.topicArn,
      failingAfter: String(p.health.failingAfter),
      disableAfter: p.health.disableAfter === undefined ? '' : String(p.health.disableAfter),
      recoveryProbes: p.recoveryProbes === false ? 'off' : formatProbeSchedule(p.recoveryProbes),
      secretPrefix: p.secretPrefix,
      ...this.secrets.settings(),
      headerPrefix: p.headerPrefix,
      attemptTimeoutMs: String(p.attemptTimeout.toMilliseconds()),
      attemptTtlDays: String(p.attemptTtl.toDays()),
      deliveredTtlDays: String(p.deliveredAttemptTtl.toDays()),
      keepBodies: p.keepBodies,
      deliverySearch: String(p.deliverySearch),
      batchConcurrency: String(p.batchConcurrency),
      connectionCacheTtlMs: String(p.connectionCacheTtl.toMilliseconds()),
      allowedPorts: p.allowedPorts.join(','),
      stackName: Stack.of(this).stackName,
      tracing: String(p.tracing),
      dedupeEvents: String(p.dedupeEvents),
    });
    return new lambda.Function(this, 'Dispatcher', {
      description: 'Signs and sends webhook deliveries; schedules retries, dead-letters, logs every attempt',
      code: lambdaCode('dispatcher'),
      handler: LAMBDA_HANDLER,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: p.functionTimeout,
      memorySize: p.memorySize,
      role: this.dispatcherRole,
      logGroup: this.logGroup,
      ...functionLogging(p.logLevel),
      // Active tracing adds xray:PutTraceSegments and PutTelemetryRecords to the role; off, neither.
      ...(p.tracing ? { tracing: lambda.Tracing.ACTIVE } : {}),
      environment: {
        ...environment,
        POWERTOOLS_SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: p.logLevel,
        NODE_OPTIONS: DISPATCHER_NODE_OPTIONS,
      },
    });
  }

  /** Least privilege: each action on the one resource that needs it (docs/design.md §4). */
  private grantDispatcher(role: iam.IGrantable, p: ResolvedWebhookDeliveryProps): void {
    grantOn(role, CONNECTION_READ_ACTIONS, this.connectionsTableArns());
    grantOn(role, ['dynamodb:PutItem'], [this.attemptsTable.tableArn]);
    // Health: a conditional UpdateItem of the connection item, on failures and state changes only.
    grantOn(role, ['dynamodb:UpdateItem'], [this.connectionsTable.tableArn]);
    grantOn(role, ['dynamodb:PutItem'], [this.parkedTable.tableArn]);
    // Recovery checks: a connection's oldest parked delivery (Query), claimed (UpdateItem) and
    // removed once delivered (DeleteItem), as the console's Recover does; base table only.
    if (p.recoveryProbes !== false) {
      grantOn(
        role,
        ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        [this.parkedTable.tableArn],
      );
    }
    // Rate limits: one atomic ADD per send of a rate-limited connection, nothing else.
    grantOn(role, ['dynamodb:UpdateItem'], [this.rateWindowsTable.tableArn]);
    // kms: Decrypt on the stack's key with a connection's context; no Secrets Manager at all.
    this.secrets.grantRead(role);
    this.eventsTopic.grantPublish(role);
    // Retries are delayed messages on the retry queue; failed deliveries are parked. The DLQ
    // takes poison messages, and a failed delivery only when the parked table cannot take it.
    // The dispatcher never writes to the ingress queue (it only consumes it).
    this.retryQueue.grant(role, 'sqs:SendMessage');
    this.deadLetterQueue.grant(role, 'sqs:SendMessage');
  }

  /**
   * The retry queue's own policy refuses SendMessage to every principal but its writers (the
   * dispatcher's role, then operators), whatever identity policies an account grants (an
   * `sqs:*` admin, a broad publisher).
   */
  private closeRetryQueue(): void {
    this.retryWriters.push(this.dispatcherRole.roleArn);
    this.retryQueue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyDispatcherAndOperatorsSend',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [this.retryQueue.queueArn],
        conditions: {
          ArnNotEquals: { 'aws:PrincipalArn': Lazy.list({ produce: () => this.retryWriters }) },
        },
      }),
    );
  }

  /** Two event source mappings, one handler: each record's eventSourceARN names its queue. */
  private createEventSource(p: ResolvedWebhookDeliveryProps): SqsEventSource {
    const source = new SqsEventSource(this.queue, {
      batchSize: p.batchSize,
      ...(p.maxBatchingWindow ? { maxBatchingWindow: p.maxBatchingWindow } : {}),
      reportBatchItemFailures: true,
      maxConcurrency: p.maxConcurrency,
      metricsConfig: EVENT_SOURCE_METRICS_CONFIG,
    });
    this.dispatcher.addEventSource(source);
    return source;
  }

  /**
   * Retries keep the spec's 1, 2 and 4 s: no batching window on the retry queue (a window
   * would hold each retry up to its length), and so at most 10 records a batch (SQS needs a
   * window above 10). Retries never share a batch with first attempts either way.
   */
  private createRetryEventSource(p: ResolvedWebhookDeliveryProps): SqsEventSource {
    const source = new SqsEventSource(this.retryQueue, {
      batchSize: Math.min(p.batchSize, MAX_BATCH_SIZE_WITHOUT_WINDOW),
      reportBatchItemFailures: true,
      maxConcurrency: p.maxConcurrency,
      metricsConfig: EVENT_SOURCE_METRICS_CONFIG,
    });
    this.dispatcher.addEventSource(source);
    return source;
  }

  private createDashboard(p: ResolvedWebhookDeliveryProps): WebhookDashboard {
    return new WebhookDashboard(this, 'Dashboard', {
      metrics: this.metrics,
      alarms: Object.values(this.alarms),
      queues: { ingress: this.queue, retry: this.retryQueue, dlq: this.deadLetterQueue },
      eventSources: this.eventSourceIds(),
      dispatcher: this.dispatcher,
      functionTimeout: p.functionTimeout,
      // Two event sources, each with its own limit.
      ...(p.maxConcurrency ? { concurrencyCap: 2 * p.maxConcurrency } : {}),
      dispatcherLogs: this.logGroup,
      tables: this.tablesByName(),
      failingConnections: this.failingConnections,
      managementApi: this.managementApi?.api,
      objectives: p.operations.deliveryObjectives,
    });
  }

  /** The management HTTP API and console on this construct's resources; its role may redrive. */
  private createManagementApi(
    options: ManagementApiOptions | undefined,
    p: ResolvedWebhookDeliveryProps,
  ): WebhookManagementApi {
    const api = new WebhookManagementApi(this, 'ManagementApi', {
      ...options,
      resources: {
        queueUrl: this.queue.queueUrl,
        queueArn: this.queue.queueArn,
        retryQueueUrl: this.retryQueue.queueUrl,
        retryQueueArn: this.retryQueue.queueArn,
        deadLetterQueueUrl: this.deadLetterQueue.queueUrl,
        connectionsTableName: this.connectionsTable.tableName,
        connectionsTableArn: this.connectionsTable.tableArn,
        attemptsTableName: this.attemptsTable.tableName,
        attemptsTableArn: this.attemptsTable.tableArn,
        parkedTableName: this.parkedTable.tableName,
        parkedTableArn: this.parkedTable.tableArn,
        rateWindowsTableName: this.rateWindowsTable.tableName,
        rateWindowsTableArn: this.rateWindowsTable.tableArn,
        defaultRateLimit: p.defaultRateLimit,
        rateLimitCeiling: p.rateLimitCeiling,
        deliverySearch: p.deliverySearch,
        recoveryChecks: p.recoveryProbes !== false,
        eventsTopic: this.eventsTopic,
        secretPrefix: p.secretPrefix,
        secrets: this.secrets,
        headerPrefix: p.headerPrefix,
        allowedPorts: p.allowedPorts,
        attemptTimeout: p.attemptTimeout,
        attemptTtl: p.attemptTtl,
        connectionCacheTtl: p.connectionCacheTtl,
        secretRotationOverlap: p.secretRotationOverlap,
        logRetention: p.logRetention,
        removalPolicy: p.removalPolicy,
        tracing: p.tracing,
      },
    });
    this.retryWriters.push(api.role.roleArn);
    return api;
  }

  private eventSourceIds(): { ingress: string; retry: string } {
    return {
      ingress: this.eventSource.eventSourceMappingId,
      retry: this.retryEventSource.eventSourceMappingId,
    };
  }

  /** The tables as the dashboard and the alarms name them. */
  private tablesByName(): Record<string, dynamodb.ITable> {
    return {
      connections: this.connectionsTable,
      attempts: this.attemptsTable,
      parked: this.parkedTable,
      'rate windows': this.rateWindowsTable,
    };
  }

  /** The table and its index by name: no `index/*` wildcard. */
  private connectionsTableArns(): string[] {
    const arn = this.connectionsTable.tableArn;
    return [arn, `${arn}/index/${CONNECTIONS_TABLE.byApplicationIndex.name}`];
  }

  private parkedTableArns(): string[] {
    const arn = this.parkedTable.tableArn;
    return [arn, `${arn}/index/${PARKED_TABLE.byApplicationIndex.name}`];
  }

  private attemptsTableArns(): string[] {
    const arn = this.attemptsTable.tableArn;
    return [
      arn,
      `${arn}/index/${ATTEMPTS_TABLE.finalFailuresIndex.name}`,
      `${arn}/index/${ATTEMPTS_TABLE.byTimeIndex.name}`,
    ];
  }
}

/** The ARN a queue policy's `aws:PrincipalArn` condition sees for this grantee. */
function principalArnOf(grantee: iam.IGrantable): string {
  const principal = grantee.grantPrincipal as Partial<iam.IRole & iam.IUser>;
  const arn = principal.roleArn ?? principal.userArn;
  if (!arn) {
    throw new Error(
      'grantOperate needs a role or a user: the retry queue policy names the principals that may send to it',
    );
  }
  return arn;
}

function grantOn(grantee: iam.IGrantable, actions: string[], resourceArns: string[]): iam.Grant {
  return iam.Grant.addToPrincipal({ grantee, actions, resourceArns });
}
