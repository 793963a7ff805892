import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { CONFIG_DEFAULTS, CONFIG_LIMITS, SECRET_STORES } from '../lambdas/config';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS } from '../lambdas/core/constants';
import { ConfigurationError, ValidationError, type WebhookErrorOptions } from '../lambdas/core/errors';
import { HealthSettingsError, type HealthThresholds, validateThresholds } from '../lambdas/core/health';
import { checkProbeSchedule, DEFAULT_RECOVERY_PROBES_MS } from '../lambdas/core/probes';
import { DEFAULT_RATE_LIMIT_CEILING, MAX_RATE_LIMIT, MIN_RATE_LIMIT } from '../lambdas/core/rate-limit';
import { KEEP_BODIES, type KeepBodies } from '../lambdas/core/types';
import type { ManagementApiOptions } from './management-api';
import {
  checkCountedLogLevel,
  type OperationsProps,
  OperationsPropsError,
  type ResolvedOperationsProps,
  resolveOperationsProps,
} from './operations-props';
import { PROFILES, type ProfileName, withProfile } from './profiles';
import type { SecretStoreName } from './secret-store';

/** docs/protocol.md §6, §8: one delivery attempt gets at most 30 seconds. */
export const MAX_ATTEMPT_TIMEOUT = Duration.millis(CONFIG_LIMITS.attemptTimeoutMs.max);
/** The dispatcher's own floor for an attempt (config.ts); shorter deadlines are for tests. */
const MIN_ATTEMPT_TIMEOUT = Duration.millis(CONFIG_LIMITS.attemptTimeoutMs.min);
/**
 * What one invocation needs beyond its slowest attempt: reading the connection and its
 * secret, writing the attempt log, scheduling the retry.
 */
export const FUNCTION_TIMEOUT_MARGIN = Duration.seconds(10);
/**
 * AWS guidance for SQS event sources: a visibility timeout of at least six times the
 * function timeout, so a batch retried after throttling does not reappear while it still runs.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;
/** SQS maximum visibility timeout. */
const MAX_VISIBILITY_TIMEOUT = Duration.hours(12);
/**
 * SQS maximum message size. A delivery message embeds a body of up to 256 KiB
 * (docs/design.md §3) JSON-escaped inside its envelope: escaping at most doubles it (a JSON
 * text has no raw control characters or lone surrogates, so only `"` and `\` get escaped),
 * so 256 KiB would not always do.
 */
export const MAX_MESSAGE_SIZE_BYTES = 1_048_576;
/**
 * The most records an SQS event source takes without a batching window (an SQS rule). The
 * retry queue's source never has a window (retries keep the spec's 1, 2 and 4 s), so this is
 * also its largest batch.
 */
export const MAX_BATCH_SIZE_WITHOUT_WINDOW = 10;
/** Records per invocation by default: the SQS maximum without a batching window. */
export const BATCH_SIZE = MAX_BATCH_SIZE_WITHOUT_WINDOW;
/** The largest batch this construct allows (SQS allows 10 000; one invocation delivers them all). */
export const MAX_BATCH_SIZE = 100;
/**
 * Retention of the delivery queue (the SQS default). A standard queue's dead letter keeps
 * its original enqueue time, so the DLQ must keep messages longer than this.
 */
export const QUEUE_RETENTION = Duration.days(4);
/** SQS maximum retention. */
const MAX_RETENTION = Duration.days(14);
/** Lambda maximum function timeout. */
const MAX_FUNCTION_TIMEOUT = Duration.minutes(15);

/** Log levels of the Powertools logger the dispatcher uses. */
export const DISPATCHER_LOG_LEVELS = [
  'TRACE',
  'DEBUG',
  'INFO',
  'WARN',
  'ERROR',
  'CRITICAL',
  'SILENT',
] as const;
export type DispatcherLogLevel = (typeof DISPATCHER_LOG_LEVELS)[number];

/** Characters Secrets Manager allows in a secret name. */
const SECRET_NAME_CHARS = /^[A-Za-z0-9/_+=.@-]+$/;
/** Leaves room for the connection id under Secrets Manager's 512-character name limit. */
const MAX_SECRET_PREFIX_LENGTH = 256;

/**
 * Settings of {@link WebhookDelivery}. Every prop is optional; the defaults deploy the
 * spec's behaviour (30 s attempts, HTTPS on port 443, `X-Service-*` headers).
 * Values must be concrete (not CloudFormation tokens) so they can be checked at synth time.
 */
export interface WebhookDeliveryProps extends OperationsProps {
  /**
   * A named set of the props below, chosen together from the cost model (docs/cost.md,
   * "All-in cost per profile"): `lean` sets `batchSize: 100`, `maxBatchingWindow: 1 s`,
   * `batchConcurrency: 100`, `deliveredAttemptTtl: 3 days`, `keepBodies: 'failures'`,
   * `deliverySearch: false` and `secretStore: 'kms'` (choose it when you create the stack: the secret store cannot change
   * under existing connections). A prop you set yourself always wins over the profile's.
   * @default 'defaults' (every prop at its own default)
   */
  readonly profile?: ProfileName;

  /**
   * Prefix of the service headers: `<prefix>-Event`, `<prefix>-Timestamp`,
   * `<prefix>-Signature`, `<prefix>-Delivery`, `<prefix>-Attempt`.
   * Letters, digits and single dashes.
   * @default 'X-Service'
   */
  readonly headerPrefix?: string;

  /**
   * Deadline of one delivery attempt, connection to last response byte.
   * At most 30 seconds (docs/protocol.md §6); at least 100 ms.
   * @default Duration.seconds(30)
   */
  readonly attemptTimeout?: Duration;

  /**
   * How long attempt log items are kept before DynamoDB's TTL removes them.
   * Whole days, 1 to 3650.
   * @default Duration.days(30)
   */
  readonly attemptTtl?: Duration;

  /**
   * How long the record of a delivery that arrived at its first attempt (its only record) is
   * kept: whole days, 1 to `attemptTtl`. Every record of a delivery with a failed attempt keeps
   * `attemptTtl`, so a history is never cut short. Most of the attempt log's storage is such
   * records (docs/cost.md, "successes kept 3 days").
   * @default - `attemptTtl`
   */
  readonly deliveredAttemptTtl?: Duration;

  /**
   * Which delivery bodies the attempt log keeps, once per delivery on its first attempt's
   * record, for the console's request view and for Resend: `all`, or only `failures`
   * (deliveries whose first attempt failed). A body costs about one more write unit and its
   * bytes of storage per delivery (docs/cost.md, "request bodies kept"); with `failures` a
   * delivered delivery shows no body and cannot be resent.
   * @default 'all'
   */
  readonly keepBodies?: KeepBodies;

  /**
   * Delivery search: find an application's deliveries by user id and event id (API `GET
   * /deliveries?userId=…`, console search, `webhooks attempts find`). Costs two small writes per
   * delivery (docs/cost.md "Delivery search"); off, those searches are refused by name, and
   * lookups by delivery id and the application's deliveries list still work.
   * @default true (`false` in the `lean` profile)
   */
  readonly deliverySearch?: boolean;

  /**
   * Point-in-time recovery of the attempt log table. The log is an audit trail that ages out
   * by TTL; without PITR, a table deleted by mistake loses it (docs/cost.md prices the choice).
   * The connections and parked-deliveries tables always have PITR.
   * @default true
   */
  readonly attemptLogPointInTimeRecovery?: boolean;

  /**
   * Provisioned capacity with auto-scaling for the attempt log and its index, instead of
   * on-demand. Cheaper only above 29 % use of what is provisioned over the day: 59 % less per
   * write at the 70 % target under steady traffic, but a sudden peak throttles for the minutes
   * auto-scaling takes to follow, and a floor sized for the peak costs more than on-demand once
   * the peak passes 2.4 times the mean (docs/cost.md "Provisioned or on-demand writes"). Writes
   * the table throttles are not lost: the dispatcher queues the record on the retry queue and
   * writes it later (the attempt-log-deferred alarm counts them).
   * @default - on-demand
   */
  readonly attemptLogCapacity?: AttemptLogCapacity;

  /**
   * Records per dispatcher invocation (1 to 100). Above 10, SQS requires a batching window
   * (`maxBatchingWindow` of at least 1 second). Larger batches spread one slow receiver's
   * 30 s over more deliveries; raise `batchConcurrency` with it.
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long the ingress queue's event source gathers records before invoking the dispatcher
   * (0 to 300 s). The retry queue's source has no window, so retries keep 1, 2 and 4 s, and takes
   * at most 10 records a batch.
   * @default - no window (at least 1 second when `batchSize` is above 10)
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Records of one batch the dispatcher delivers at the same time (1 to 100).
   * @default 10
   */
  readonly batchConcurrency?: number;

  /**
   * Deliveries per second each connection receives at most when it sets no `rateLimit` of its
   * own (a whole number from 1 to 10,000). The limit holds across every dispatcher container
   * and both queues; a delivery over it waits on the retry queue, never an attempt
   * (docs/design.md §4 "Rate limits").
   * @default - none: connections without their own limit are not limited
   */
  readonly defaultRateLimit?: number;

  /**
   * The highest `rateLimit` a tenant may give a connection (a whole number from 1 to 10,000, at
   * least `defaultRateLimit`). A tenant asking for more is refused (422, field `rateLimit`); a
   * limit saved before the ceiling was lowered is held to it. It also bounds what one look at a
   * connection's rate-limit activity reads (docs/design.md "Rate limits").
   * @default 1000
   */
  readonly rateLimitCeiling?: number;

  /**
   * How long the dispatcher caches a connection and its secret before reading them again.
   * A disabled connection or a rotated secret takes effect within this time. 0 to 30 seconds.
   * @default Duration.seconds(30)
   */
  readonly connectionCacheTtl?: Duration;

  /**
   * How long a rotated-out secret keeps signing when a rotation names no switch time: the new
   * secret is shown at once and signs from then on, so receivers have this long to take it
   * (docs/protocol.md "Rotating the secret"). `Duration.seconds(0)` turns the overlap off: a
   * rotated secret signs at once. Whole seconds, 0 to 30 days.
   * @default Duration.hours(24)
   */
  readonly secretRotationOverlap?: Duration;

  /**
   * Most dispatcher instances each SQS event source runs at once (2 to 1000). Use it to
   * protect receivers and the account's Lambda concurrency from a burst. The dispatcher has
   * two event sources (the delivery queue and the retry queue), each with this limit, so up
   * to twice this many instances run at once in all (docs/scale.md).
   * @default - no limit beyond the account's unreserved concurrency
   */
  readonly maxConcurrency?: number;

  /**
   * Destination ports the dispatcher may connect to. Anything else is refused by the
   * egress policy and dead-lettered as `blocked`.
   * @default [443]
   */
  readonly allowedPorts?: number[];

  /**
   * Timeout of the dispatcher function. Must be more than `attemptTimeout` plus a 10 second
   * margin, and at most 15 minutes.
   * @default Duration.seconds(90)
   */
  readonly functionTimeout?: Duration;

  /**
   * Memory of the dispatcher function, in MiB (128 to 10240).
   * @default 256
   */
  readonly memorySize?: number;

  /**
   * Visibility timeout of the delivery queue. Must be at least six times `functionTimeout`
   * (AWS guidance for SQS event sources) and at most 12 hours.
   * @default - six times `functionTimeout` (540 seconds with the defaults)
   */
  readonly queueVisibilityTimeout?: Duration;

  /**
   * Times SQS hands a message to the dispatcher before moving it to the dead-letter queue.
   * Only infrastructure failures use these receives: failed HTTP attempts are retried with
   * new delayed messages. 1 to 1000.
   * @default 5
   */
  readonly maxReceiveCount?: number;

  /**
   * How long the dead-letter queue keeps a message. More than the delivery queue's
   * 4 days (a dead letter keeps its original enqueue time) and at most 14 days.
   * @default Duration.days(14)
   */
  readonly dlqRetention?: Duration;

  /**
   * Retention of the dispatcher's log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;

  /**
   * AWS X-Ray tracing, opt-in: active tracing on the dispatcher (linked to the SQS messages it
   * consumes) with one subsegment per attempt, annotated with the connection and delivery ids,
   * the attempt number and its outcome, and the trace id kept in the attempt record; active
   * tracing on the management API Lambda too. No trace header is ever sent to a receiver.
   * X-Ray bills traces recorded and read (docs/operations.md). Off: no X-Ray permission and no
   * X-Ray code runs.
   * @default false
   */
  readonly tracing?: boolean;

  /**
   * De-duplicate republished events: an event published again with the same `eventId` within 24
   * hours keeps its delivery ids (whatever its `occurredAt`) and is not sent again to a connection
   * whose delivery was already attempted or is in flight (docs/reliability.md "Republished
   * events"). Two DynamoDB writes per delivery (docs/cost.md). Off: a republished event is
   * delivered again, under the same ids only if its `occurredAt` is the same.
   * @default true (`false` in the `lean` profile)
   */
  readonly dedupeEvents?: boolean;

  /**
   * Log level of the dispatcher (`POWERTOOLS_LOG_LEVEL`, and Lambda's application log level of
   * its JSON logs). `TRACE`, `DEBUG`, `INFO` or `WARN`: above `WARN` the failed-attempt lines the
   * fleet failure alarm counts are not written, so those levels are refused.
   * @default 'INFO'
   */
  readonly logLevel?: DispatcherLogLevel;

  /**
   * Secrets Manager name prefix of the connection secrets, which the management API
   * creates at run time as `<prefix><connectionId>`. The dispatcher may read only secrets
   * under this prefix. Must end with `/`, so that one stack's prefix is never a prefix of
   * another's.
   * @default 'webhooks/<stackName>/'
   */
  readonly secretPrefix?: string;

  /**
   * Where connection secrets are kept (docs/design.md §5 "The KMS secret store").
   * `secrets-manager`: one secret per connection, with its own versions and CloudTrail trail (about
   * $0.40 a month each). `kms`: each secret encrypted with one customer managed key of the stack
   * (rotation enabled) in its connection item, bound to the connection and its application by the
   * encryption context ($1 a month for the key). The dispatcher then gets `kms:Decrypt` on that key
   * only, and no Secrets Manager permission. Choose it when the stack is created: connections
   * created under one store are not readable under the other.
   * @default 'secrets-manager'
   */
  readonly secretStore?: SecretStoreName;

  /**
   * What happens to the two tables and the dispatcher's log group when they leave the
   * stack. Connection secrets are created at run time and are never removed by the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * The oldest-message alarm fires when a message has waited this long on the delivery
   * queue. At least 1 minute, less than the queue's 4-day retention.
   * @default Duration.minutes(5)
   */
  readonly oldestMessageAgeAlarmThreshold?: Duration;

  /**
   * Deprecated alias: the topic of whichever of `pagingTopic` and `ticketTopic` is not given
   * (alone, every alarm notifies it, as before both existed).
   * @default - the construct's own paging and ticket topics
   * @deprecated use `pagingTopic` and `ticketTopic`
   */
  readonly alarmTopic?: ITopic;
  /**
   * Thresholds of the alarms an operator may want to tune (docs/operations.md#alarms).
   * @default - each threshold's own default
   */
  readonly alarmThresholds?: AlarmThresholds;
  /**
   * The CloudWatch dashboard of the pipeline (docs/operations.md#dashboard); `false` leaves it
   * out (a dashboard costs $3 a month beyond an account's first three).
   * @default true
   */
  readonly dashboard?: boolean;
  /**
   * Exhausted deliveries in a row (each one's 4th attempt failed) after which a connection's
   * health turns `failing` and `connection.failing` is published (docs/design.md §9).
   * @default 3
   */
  readonly failingAfter?: number;
  /**
   * Exhausted deliveries in a row after which a connection is disabled: `connection.disabled`
   * is published and its events are parked (`connection_disabled`), not sent, until an
   * operator enables it. At least `failingAfter`.
   * @default - never (opt-in)
   */
  readonly disableAfter?: number;
  /**
   * Recovery checks (docs/design.md §9 "Recovery probes"): while a connection has deliveries
   * parked because its endpoint failed, its oldest is sent again after each of these waits, and
   * a 2xx recovers the rest. `false`: never (Recover by hand). A connection opts out with its
   * own `recoveryProbes: false`.
   * @default - 1 min, 5 min, 15 min, 1 h, then 3 h eight times (about 25 h)
   */
  readonly recoveryProbes?: false | readonly Duration[];
  /**
   * SNS topic the operational events (`connection.failing`, `connection.disabled`,
   * `connection.recovered`) are published to.
   * @default - a topic the construct creates (stack output `EventsTopicArn`)
   */
  readonly eventsTopic?: ITopic;
  /**
   * The management HTTP API and web console (docs/design.md §8): `false` leaves them out, an
   * object sets the console and throttling.
   * @default - deployed, with the console, 25 requests/s and bursts of 50
   */
  readonly managementApi?: false | ManagementApiOptions;
}

/** Provisioned write (and read) capacity of the attempt log, auto-scaled between bounds. */
export interface AttemptLogCapacity {
  /**
   * Write units a second the table never scales below (1 to 40 000): your peak's write units
   * ÷ the target use, if the peak comes faster than auto-scaling follows (minutes per step).
   */
  readonly minWriteCapacity: number;
  /** Write units the table and its index never scale above: `minWriteCapacity` to 40 000. */
  readonly maxWriteCapacity: number;
  /**
   * Write units the sparse final-failures index never scales below (1 to `maxWriteCapacity`).
   * A wave of final failures above it throttles their records until the index scales. @default 1
   */
  readonly minIndexWriteCapacity?: number;
  /** Read units of the table and of its index, auto-scaled from 1 to this (1 to 40 000). @default 100 */
  readonly maxReadCapacity?: number;
  /** Use the auto-scaler aims at, percent (20 to 90). @default 70 */
  readonly targetUtilizationPercent?: number;
}

/**
 * Alarm thresholds, each counted over one 5-minute period (docs/operations.md#alarms). Every
 * count is a whole number of at least 1.
 */
export interface AlarmThresholds {
  /** Failed dispatcher invocations (Lambda `Errors`). @default 1 */
  readonly dispatcherErrors?: number;
  /** Failed calls to DynamoDB, SQS, Secrets Manager or SNS. @default 5 */
  readonly infrastructureFailures?: number;
  /** Attempt records deferred to the retry queue because the table refused them. @default 10 */
  readonly attemptLogDeferred?: number;
  /** Deliveries refused by the egress policy. @default 1 */
  readonly blockedDestinations?: number;
  /**
   * Share of all attempts that failed, above 0 and at most 1, for the fleet failure alarm.
   * @default 0.5
   */
  readonly fleetFailureRatio?: number;
  /**
   * Distinct connections with a failed attempt for the fleet failure alarm (2 to 10 000). Set it
   * above the number of connections any one customer has: one customer's outage must not raise it.
   * @default 10
   */
  readonly fleetFailureConnections?: number;
  /** 5xx answers of the management API. @default 5 */
  readonly managementApi5xx?: number;
}

/** {@link AlarmThresholds} with every default applied. */
export type ResolvedAlarmThresholds = Required<AlarmThresholds>;

/** The defaults of {@link AlarmThresholds}. */
export const ALARM_THRESHOLD_DEFAULTS: ResolvedAlarmThresholds = {
  dispatcherErrors: 1,
  infrastructureFailures: 5,
  attemptLogDeferred: 10,
  blockedDestinations: 1,
  fleetFailureRatio: 0.5,
  fleetFailureConnections: 10,
  managementApi5xx: 5,
};

/** {@link WebhookDeliveryProps} with every default applied and every rule checked. */
export interface ResolvedWebhookDeliveryProps {
  readonly headerPrefix: string;
  readonly attemptTimeout: Duration;
  readonly attemptTtl: Duration;
  readonly deliveredAttemptTtl: Duration;
  readonly keepBodies: KeepBodies;
  readonly deliverySearch: boolean;
  readonly attemptLogPointInTimeRecovery: boolean;
  readonly attemptLogCapacity: Required<AttemptLogCapacity> | undefined;
  readonly batchSize: number;
  readonly maxBatchingWindow: Duration | undefined;
  readonly batchConcurrency: number;
  readonly defaultRateLimit: number | undefined;
  readonly rateLimitCeiling: number;
  readonly connectionCacheTtl: Duration;
  readonly secretRotationOverlap: Duration;
  readonly maxConcurrency: number | undefined;
  readonly allowedPorts: readonly number[];
  readonly functionTimeout: Duration;
  readonly memorySize: number;
  readonly queueVisibilityTimeout: Duration;
  readonly maxReceiveCount: number;
  readonly dlqRetention: Duration;
  readonly logRetention: RetentionDays;
  readonly logLevel: DispatcherLogLevel;
  readonly tracing: boolean;
  readonly dedupeEvents: boolean;
  readonly secretPrefix: string;
  readonly secretStore: SecretStoreName;
  readonly removalPolicy: RemovalPolicy;
  readonly oldestMessageAgeAlarmThreshold: Duration;
  readonly alarmTopic: ITopic | undefined;
  readonly alarmThresholds: ResolvedAlarmThresholds;
  readonly dashboard: boolean;
  readonly health: HealthThresholds;
  /** Waits between recovery checks, ms; false: off. */
  readonly recoveryProbes: readonly number[] | false;
  readonly eventsTopic: ITopic | undefined;
  readonly operations: ResolvedOperationsProps;
}

/** Thrown by the {@link WebhookDelivery} constructor when a prop is invalid or contradicts another. */
export class WebhookDeliveryPropsError extends ConfigurationError {
  override readonly name = 'WebhookDeliveryPropsError';
  constructor(
    readonly prop: keyof WebhookDeliveryProps,
    problem: string,
    options?: WebhookErrorOptions,
  ) {
    super('invalid_prop', `WebhookDelivery: ${prop} ${problem}`, options);
  }
}

type Prop = keyof WebhookDeliveryProps;

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
const UNITS = [
  ['day', DAY_MS],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', SECOND_MS],
] as const;

/** "30 seconds", "9 minutes", "14 days": the largest unit that divides the duration. */
function human(d: Duration): string {
  const ms = d.toMilliseconds();
  for (const [unit, size] of UNITS) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}

function integerIn(prop: Prop, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new WebhookDeliveryPropsError(prop, `must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}

interface DurationRange {
  readonly min: Duration;
  readonly max: Duration;
  /** The duration must be strictly more than `min`. */
  readonly aboveMin?: boolean;
  /** The duration must be strictly less than `max`. */
  readonly belowMax?: boolean;
  /** Granularity the AWS setting takes, in milliseconds. */
  readonly unitMs?: number;
}

function durationIn(prop: Prop, value: Duration, range: DurationRange): Duration {
  const ms = value.toMilliseconds();
  const min = range.min.toMilliseconds();
  const max = range.max.toMilliseconds();
  if ((range.aboveMin ? ms <= min : ms < min) || (range.belowMax ? ms >= max : ms > max)) {
    const low = `${range.aboveMin ? 'more than' : 'at least'} ${human(range.min)}`;
    const high = `${range.belowMax ? 'less than' : 'at most'} ${human(range.max)}`;
    throw new WebhookDeliveryPropsError(prop, `must be ${low} and ${high}, got ${human(value)}`);
  }
  const unitMs = range.unitMs ?? 1;
  if (ms % unitMs !== 0) {
    const unit = unitMs === DAY_MS ? 'days' : 'seconds';
    throw new WebhookDeliveryPropsError(prop, `must be whole ${unit}, got ${human(value)}`);
  }
  return value;
}

function checkSecretPrefix(prefix: string): string {
  if (Token.isUnresolved(prefix)) return prefix;
  if (!prefix.endsWith('/')) {
    throw new WebhookDeliveryPropsError(
      'secretPrefix',
      `must end with "/" so it cannot match another stack's secrets, got "${prefix}"`,
    );
  }
  if (!SECRET_NAME_CHARS.test(prefix) || prefix.length > MAX_SECRET_PREFIX_LENGTH) {
    throw new WebhookDeliveryPropsError(
      'secretPrefix',
      `must be at most ${MAX_SECRET_PREFIX_LENGTH} characters of A-Z a-z 0-9 / _ + = . @ -, got "${prefix}"`,
    );
  }
  return prefix;
}

function checkPorts(ports: readonly number[]): readonly number[] {
  if (ports.length === 0) {
    throw new WebhookDeliveryPropsError('allowedPorts', 'must list at least one port (443 for HTTPS)');
  }
  for (const port of ports) integerIn('allowedPorts', port, 1, 65_535);
  if (new Set(ports).size !== ports.length) {
    throw new WebhookDeliveryPropsError('allowedPorts', `lists a port twice: ${ports.join(', ')}`);
  }
  return Object.freeze([...ports]);
}

function checkSecretStore(store: string): SecretStoreName {
  const known: readonly string[] = SECRET_STORES;
  if (!known.includes(store)) {
    throw new WebhookDeliveryPropsError('secretStore', `must be one of ${known.join(', ')}, got "${store}"`);
  }
  return store as SecretStoreName;
}

function checkKeepBodies(keep: string | undefined): KeepBodies {
  if (keep === undefined) return 'all';
  if (!(KEEP_BODIES as readonly string[]).includes(keep)) {
    throw new WebhookDeliveryPropsError(
      'keepBodies',
      `must be one of ${KEEP_BODIES.join(', ')}, got "${keep}"`,
    );
  }
  return keep as KeepBodies;
}

function checkLogLevel(level: string): DispatcherLogLevel {
  const known: readonly string[] = DISPATCHER_LOG_LEVELS;
  if (!known.includes(level)) {
    throw new WebhookDeliveryPropsError('logLevel', `must be one of ${known.join(', ')}, got "${level}"`);
  }
  return level as DispatcherLogLevel;
}

/**
 * Applies the defaults and rejects invalid props and invalid combinations, naming the prop.
 * @param stackName name of the enclosing stack, for the default secret prefix.
 * @throws WebhookDeliveryPropsError
 */
export function resolveProps(given: WebhookDeliveryProps, stackName: string): ResolvedWebhookDeliveryProps {
  if (given.profile !== undefined && !(PROFILES as readonly string[]).includes(given.profile)) {
    throw new WebhookDeliveryPropsError(
      'profile',
      `must be one of ${PROFILES.join(', ')}, got "${given.profile}"`,
    );
  }
  const props = withProfile(given);
  const attemptTimeout = durationIn(
    'attemptTimeout',
    props.attemptTimeout ?? Duration.millis(CONFIG_DEFAULTS.attemptTimeoutMs),
    {
      min: MIN_ATTEMPT_TIMEOUT,
      max: MAX_ATTEMPT_TIMEOUT,
    },
  );

  const functionTimeout = props.functionTimeout ?? Duration.seconds(90);
  const minFunctionTimeout = attemptTimeout.plus(FUNCTION_TIMEOUT_MARGIN);
  if (functionTimeout.toMilliseconds() <= minFunctionTimeout.toMilliseconds()) {
    throw new WebhookDeliveryPropsError(
      'functionTimeout',
      `must be more than attemptTimeout (${human(attemptTimeout)}) plus a ${human(FUNCTION_TIMEOUT_MARGIN)} ` +
        `margin, got ${human(functionTimeout)}`,
    );
  }
  durationIn('functionTimeout', functionTimeout, {
    min: minFunctionTimeout,
    aboveMin: true,
    max: MAX_FUNCTION_TIMEOUT,
    unitMs: SECOND_MS,
  });

  const minVisibility = Duration.seconds(functionTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR);
  const queueVisibilityTimeout = props.queueVisibilityTimeout ?? minVisibility;
  if (queueVisibilityTimeout.toMilliseconds() < minVisibility.toMilliseconds()) {
    throw new WebhookDeliveryPropsError(
      'queueVisibilityTimeout',
      `must be at least ${VISIBILITY_TIMEOUT_FACTOR} times functionTimeout (${human(minVisibility)}), ` +
        `got ${human(queueVisibilityTimeout)}`,
    );
  }
  durationIn('queueVisibilityTimeout', queueVisibilityTimeout, {
    min: minVisibility,
    max: MAX_VISIBILITY_TIMEOUT,
    unitMs: SECOND_MS,
  });

  const attemptTtl = durationIn(
    'attemptTtl',
    props.attemptTtl ?? Duration.days(CONFIG_DEFAULTS.attemptTtlDays),
    {
      min: Duration.days(CONFIG_LIMITS.attemptTtlDays.min),
      max: Duration.days(CONFIG_LIMITS.attemptTtlDays.max),
      unitMs: DAY_MS,
    },
  );
  const { batchSize, maxBatchingWindow } = checkBatching(props);
  const rateLimitCeiling = integerIn(
    'rateLimitCeiling',
    props.rateLimitCeiling ?? DEFAULT_RATE_LIMIT_CEILING,
    MIN_RATE_LIMIT,
    MAX_RATE_LIMIT,
  );

  return {
    headerPrefix: props.headerPrefix ?? CONFIG_DEFAULTS.headerPrefix,
    attemptTimeout,
    attemptTtl,
    deliveredAttemptTtl: durationIn('deliveredAttemptTtl', props.deliveredAttemptTtl ?? attemptTtl, {
      min: Duration.days(1),
      max: attemptTtl,
      unitMs: DAY_MS,
    }),
    keepBodies: checkKeepBodies(props.keepBodies),
    deliverySearch: props.deliverySearch ?? true,
    attemptLogPointInTimeRecovery: props.attemptLogPointInTimeRecovery ?? true,
    attemptLogCapacity: checkCapacity(props.attemptLogCapacity),
    batchSize,
    maxBatchingWindow,
    batchConcurrency: integerIn(
      'batchConcurrency',
      props.batchConcurrency ?? CONFIG_DEFAULTS.batchConcurrency,
      CONFIG_LIMITS.batchConcurrency.min,
      CONFIG_LIMITS.batchConcurrency.max,
    ),
    defaultRateLimit:
      props.defaultRateLimit === undefined
        ? undefined
        : integerIn('defaultRateLimit', props.defaultRateLimit, MIN_RATE_LIMIT, rateLimitCeiling),
    rateLimitCeiling,
    connectionCacheTtl: durationIn(
      'connectionCacheTtl',
      props.connectionCacheTtl ?? Duration.millis(CONFIG_DEFAULTS.connectionCacheTtlMs),
      {
        min: Duration.millis(CONFIG_LIMITS.connectionCacheTtlMs.min),
        max: Duration.millis(CONFIG_LIMITS.connectionCacheTtlMs.max),
      },
    ),
    secretRotationOverlap: durationIn(
      'secretRotationOverlap',
      props.secretRotationOverlap ?? Duration.seconds(DEFAULT_SECRET_OVERLAP_SECONDS),
      { min: Duration.seconds(0), max: Duration.seconds(MAX_SECRET_OVERLAP_SECONDS), unitMs: 1000 },
    ),
    maxConcurrency:
      props.maxConcurrency === undefined
        ? undefined
        : integerIn('maxConcurrency', props.maxConcurrency, 2, 1000),
    allowedPorts: checkPorts(props.allowedPorts ?? CONFIG_DEFAULTS.allowedPorts),
    functionTimeout,
    memorySize: integerIn('memorySize', props.memorySize ?? 256, 128, 10_240),
    queueVisibilityTimeout,
    maxReceiveCount: integerIn('maxReceiveCount', props.maxReceiveCount ?? 5, 1, 1000),
    // A dead letter keeps its original enqueue time: a DLQ retention up to the delivery
    // queue's would drop dead letters as soon as they arrive.
    dlqRetention: durationIn('dlqRetention', props.dlqRetention ?? MAX_RETENTION, {
      min: QUEUE_RETENTION,
      aboveMin: true,
      max: MAX_RETENTION,
      unitMs: SECOND_MS,
    }),
    logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
    logLevel: checkLogLevel(props.logLevel ?? 'INFO'),
    tracing: props.tracing ?? false,
    dedupeEvents: props.dedupeEvents ?? true,
    secretPrefix: checkSecretPrefix(props.secretPrefix ?? `webhooks/${stackName}/`),
    secretStore: checkSecretStore(props.secretStore ?? 'secrets-manager'),
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    oldestMessageAgeAlarmThreshold: durationIn(
      'oldestMessageAgeAlarmThreshold',
      props.oldestMessageAgeAlarmThreshold ?? Duration.minutes(5),
      { min: Duration.minutes(1), max: QUEUE_RETENTION, belowMax: true, unitMs: SECOND_MS },
    ),
    alarmTopic: props.alarmTopic,
    alarmThresholds: checkAlarmThresholds(props.alarmThresholds ?? {}),
    dashboard: props.dashboard ?? true,
    health: checkHealth(props),
    recoveryProbes: checkRecoveryProbes(props.recoveryProbes),
    eventsTopic: props.eventsTopic,
    operations: checkOperations(props),
  };
}

function checkOperations(props: WebhookDeliveryProps): ResolvedOperationsProps {
  try {
    checkCountedLogLevel(props.logLevel ?? 'INFO');
    return resolveOperationsProps(props);
  } catch (error) {
    if (!(error instanceof OperationsPropsError)) throw error;
    throw new WebhookDeliveryPropsError(error.prop, error.problem);
  }
}

function checkAlarmThresholds(given: AlarmThresholds): ResolvedAlarmThresholds {
  const t = { ...ALARM_THRESHOLD_DEFAULTS, ...given };
  const count = (key: Exclude<keyof AlarmThresholds, 'fleetFailureRatio'>, min = 1) => {
    const value = t[key];
    if (!Number.isInteger(value) || value < min || value > 10_000) {
      throw new WebhookDeliveryPropsError(
        'alarmThresholds',
        `${key} must be a whole number from ${min} to 10000, got ${value}`,
      );
    }
    return value;
  };
  const ratio = t.fleetFailureRatio;
  if (!(Number.isFinite(ratio) && ratio > 0 && ratio <= 1)) {
    throw new WebhookDeliveryPropsError(
      'alarmThresholds',
      `fleetFailureRatio must be more than 0 and at most 1 (a share of all attempts), got ${ratio}`,
    );
  }
  return {
    dispatcherErrors: count('dispatcherErrors'),
    infrastructureFailures: count('infrastructureFailures'),
    attemptLogDeferred: count('attemptLogDeferred'),
    blockedDestinations: count('blockedDestinations'),
    fleetFailureRatio: ratio,
    // One failing connection is one customer's outage: the alarm needs at least two.
    fleetFailureConnections: count('fleetFailureConnections', 2),
    managementApi5xx: count('managementApi5xx'),
  };
}

function checkRecoveryProbes(waits: WebhookDeliveryProps['recoveryProbes']): readonly number[] | false {
  if (waits === false) return false;
  if (waits === undefined) return DEFAULT_RECOVERY_PROBES_MS;
  try {
    return checkProbeSchedule(waits.map((wait) => wait.toMilliseconds()));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new WebhookDeliveryPropsError('recoveryProbes', error.problem);
  }
}

function checkHealth(props: WebhookDeliveryProps): HealthThresholds {
  try {
    return validateThresholds({ failingAfter: props.failingAfter, disableAfter: props.disableAfter });
  } catch (error) {
    if (!(error instanceof HealthSettingsError)) throw error;
    throw new WebhookDeliveryPropsError(error.field, error.problem);
  }
}

/** SQS event source rules: up to 10 records without a window, up to 100 here with one of 1 s or more. */
function checkBatching(props: WebhookDeliveryProps): { batchSize: number; maxBatchingWindow?: Duration } {
  const batchSize = integerIn('batchSize', props.batchSize ?? BATCH_SIZE, 1, MAX_BATCH_SIZE);
  const window = props.maxBatchingWindow;
  if (window !== undefined) {
    durationIn('maxBatchingWindow', window, {
      min: Duration.seconds(0),
      max: Duration.seconds(300),
      unitMs: SECOND_MS,
    });
  }
  if (batchSize > MAX_BATCH_SIZE_WITHOUT_WINDOW && (window === undefined || window.toSeconds() < 1)) {
    throw new WebhookDeliveryPropsError(
      'maxBatchingWindow',
      `must be at least 1 second when batchSize is above ${MAX_BATCH_SIZE_WITHOUT_WINDOW} (an SQS rule), got ${window ? human(window) : 'none'}`,
    );
  }
  return { batchSize, maxBatchingWindow: window };
}

/** DynamoDB's default per-table quota of read and write units. */
const MAX_TABLE_UNITS = 40_000;

function checkCapacity(capacity: AttemptLogCapacity | undefined): Required<AttemptLogCapacity> | undefined {
  if (capacity === undefined) return undefined;
  if (typeof capacity !== 'object' || capacity === null) {
    throw new WebhookDeliveryPropsError(
      'attemptLogCapacity',
      `must be { minWriteCapacity, maxWriteCapacity, ... } (leave it out for on-demand), got ${String(capacity)}`,
    );
  }
  const check = (name: keyof AttemptLogCapacity, value: number, min: number, max: number, range?: string) => {
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new WebhookDeliveryPropsError(
        'attemptLogCapacity',
        `${name} must be a whole number from ${range ?? `${min} to ${max}`}, got ${value}`,
      );
    }
    return value;
  };
  const minWrite = check('minWriteCapacity', capacity.minWriteCapacity, 1, MAX_TABLE_UNITS);
  const maxWrite = check(
    'maxWriteCapacity',
    capacity.maxWriteCapacity,
    minWrite,
    MAX_TABLE_UNITS,
    `minWriteCapacity (${minWrite}) to ${MAX_TABLE_UNITS}`,
  );
  return {
    minWriteCapacity: minWrite,
    maxWriteCapacity: maxWrite,
    minIndexWriteCapacity: check(
      'minIndexWriteCapacity',
      capacity.minIndexWriteCapacity ?? 1,
      1,
      maxWrite,
      `1 to maxWriteCapacity (${maxWrite})`,
    ),
    maxReadCapacity: check('maxReadCapacity', capacity.maxReadCapacity ?? 100, 1, MAX_TABLE_UNITS),
    targetUtilizationPercent: check(
      'targetUtilizationPercent',
      capacity.targetUtilizationPercent ?? 70,
      20,
      90,
    ),
  };
}
