/**
 * The one place that reads `process.env`. Everything else receives a frozen, typed
 * {@link DispatcherConfig}. Endpoints and credentials of the AWS services are *not*
 * here: the AWS SDK reads them itself (default credential chain, `AWS_REGION`,
 * `AWS_ENDPOINT_URL_SQS`, `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_SECRETS_MANAGER`,
 * `AWS_ENDPOINT_URL_KMS`),
 * which is how local mode points the unchanged adapters at the emulators.
 */

import {
  ConfigError,
  type Env,
  flag,
  flagOn,
  integer,
  ports,
  probeSchedule,
  required,
  whole,
} from './config-values';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_HEADER_PREFIX } from './core/constants';
import { HealthSettingsError, type HealthThresholds, validateThresholds } from './core/health';
import { DEFAULT_RATE_LIMIT_CEILING, MAX_RATE_LIMIT, MIN_RATE_LIMIT } from './core/rate-limit';
import { KEEP_BODIES, type KeepBodies } from './core/types';

export { ConfigError } from './config-values';

/** Names of the environment variables the dispatcher reads. The CDK construct sets them. */
export const ENV = {
  /** The ingress queue: what the publisher client writes to (the dispatcher only consumes it). */
  queueUrl: 'WEBHOOKS_QUEUE_URL',
  /** The internal retry queue: retries, handed-back deliveries and queued attempt records. */
  retryQueueUrl: 'WEBHOOKS_RETRY_QUEUE_URL',
  dlqUrl: 'WEBHOOKS_DLQ_URL',
  connectionsTable: 'WEBHOOKS_CONNECTIONS_TABLE',
  attemptsTable: 'WEBHOOKS_ATTEMPTS_TABLE',
  /** Parked deliveries (docs/design.md §9). */
  parkedTable: 'WEBHOOKS_PARKED_TABLE',
  /** Rate-limit windows (docs/design.md §4 "Rate limits"). */
  rateWindowsTable: 'WEBHOOKS_RATE_WINDOWS_TABLE',
  /** Deliveries per second of a connection that sets no `rateLimit`; absent or empty: none. */
  defaultRateLimit: 'WEBHOOKS_DEFAULT_RATE_LIMIT',
  /** The highest `rateLimit` a connection may have; absent: core/rate-limit.ts DEFAULT_RATE_LIMIT_CEILING. */
  rateLimitCeiling: 'WEBHOOKS_RATE_LIMIT_CEILING',
  /** SNS topic of operational events (connection.failing, .disabled, .recovered). */
  eventsTopicArn: 'WEBHOOKS_EVENTS_TOPIC_ARN',
  failingAfter: 'WEBHOOKS_FAILING_AFTER',
  /** Absent or empty: connections are never disabled automatically (opt-in). */
  disableAfter: 'WEBHOOKS_DISABLE_AFTER',
  /** Recovery checks' waits (`1m,5m,15m,1h,3h`) or `off`; absent: core/probes.ts's default. */
  recoveryProbes: 'WEBHOOKS_RECOVERY_PROBES',
  secretPrefix: 'WEBHOOKS_SECRET_PREFIX',
  /**
   * Where connection secrets are kept: `secrets-manager` (absent) or `kms` (docs/design.md §5 "The
   * KMS secret store").
   */
  secretStore: 'WEBHOOKS_SECRET_STORE',
  /** ARN of the stack's KMS key that seals connection secrets; required with `kms`. */
  secretKeyArn: 'WEBHOOKS_SECRET_KEY_ARN',
  headerPrefix: 'WEBHOOKS_HEADER_PREFIX',
  attemptTimeoutMs: 'WEBHOOKS_ATTEMPT_TIMEOUT_MS',
  attemptTtlDays: 'WEBHOOKS_ATTEMPT_TTL_DAYS',
  deliveredTtlDays: 'WEBHOOKS_DELIVERED_TTL_DAYS',
  /** Which delivery bodies the attempt log keeps: `all` (absent) or `failures`. */
  keepBodies: 'WEBHOOKS_KEEP_BODIES',
  batchConcurrency: 'WEBHOOKS_BATCH_CONCURRENCY',
  connectionCacheTtlMs: 'WEBHOOKS_CONNECTION_CACHE_TTL_MS',
  allowedPorts: 'WEBHOOKS_ALLOWED_PORTS',
  /** Local mode only: deliver to loopback addresses. Refused inside Lambda. */
  allowLoopback: 'WEBHOOKS_LOCAL_ALLOW_LOOPBACK',
  /** The stack's name: the `Stack` dimension of every metric (adapters/metrics/catalogue.ts). */
  stackName: 'WEBHOOKS_STACK_NAME',
  /** `true`: one X-Ray span per attempt (the construct's `tracing` prop); absent or `false`: none. */
  tracing: 'WEBHOOKS_TRACING',
  /** `false`: no delivery search by user or event id (docs/cost.md "Delivery search"); absent or `true`: on. */
  deliverySearch: 'WEBHOOKS_DELIVERY_SEARCH',
  /** Absent or `true`: a republished event (its eventId again) is not sent again (core/claims.ts); `false`: off. */
  dedupeEvents: 'WEBHOOKS_DEDUPE_EVENTS',
} as const;

/** The `Stack` dimension's value when the environment names no stack (tests, tools). */
export const DEFAULT_STACK_NAME = 'webhooks';

/**
 * Where connection secrets are kept (docs/design.md §5 "The KMS secret store"): one Secrets Manager
 * secret per connection (the default), or sealed in the connection item with the stack's KMS key.
 */
export type SecretStore =
  | { readonly kind: 'secrets-manager' }
  | { readonly kind: 'kms'; readonly keyArn: string };

/** The names of the stores, as the construct prop, the environment and `npm start` spell them. */
export const SECRET_STORES = ['secrets-manager', 'kms'] as const;

export interface DispatcherConfig {
  /**
   * The internal retry queue (docs/design.md §3). The dispatcher writes retries there, and reads
   * records whose `eventSourceARN` is this queue's as retry records; every other record is
   * read as coming from the ingress queue, which carries events only.
   */
  readonly retryQueueUrl: string;
  readonly dlqUrl: string;
  readonly connectionsTable: string;
  readonly attemptsTable: string;
  readonly parkedTable: string;
  /**
   * Where rate-limited connections count their sends, shared by every dispatcher (docs/design.md §4
   * "Rate limits").
   */
  readonly rateWindowsTable: string;
  /** Deliveries per second of a connection that sets no `rateLimit`; absent: none (core/rate-limit.ts). */
  readonly defaultRateLimit?: number;
  readonly rateLimitCeiling: number;
  /** Absent: operational events are only logged (a deployed stack always sets it). */
  readonly eventsTopicArn?: string;
  /** Exhausted deliveries in a row that make a connection failing, and (opt-in) disabled. */
  readonly health: HealthThresholds;
  /** Waits between recovery checks, ms (docs/design.md §9 "Recovery probes"); false: none. */
  readonly recoveryProbes: readonly number[] | false;
  /** Name prefix of the stack's connection secrets (`<prefix><connectionId>`). */
  readonly secretPrefix: string;
  /** @default { kind: 'secrets-manager' } */
  readonly secretStore?: SecretStore;
  /** Prefix of the service headers, e.g. `X-Service` → `X-Service-Signature`. */
  readonly headerPrefix: string;
  /** Deadline of one attempt, whole exchange. docs/protocol.md §6: 30 s; shorter only for tests. */
  readonly attemptTimeoutMs: number;
  readonly attemptTtlDays: number;
  /**
   * TTL of the record of a delivery delivered at its first attempt (its only record), at most
   * attemptTtlDays; every other record keeps attemptTtlDays. @default attemptTtlDays
   */
  readonly deliveredTtlDays: number;
  /** Which delivery bodies the attempt log keeps (docs/design.md §5). @default 'all' */
  readonly keepBodies: KeepBodies;
  /** A delivery's first attempt writes its lookup items (delivery search). @default true */
  readonly deliverySearch: boolean;
  /** Records of one batch delivered at the same time. */
  readonly batchConcurrency: number;
  readonly connectionCacheTtlMs: number;
  readonly allowedPorts: readonly number[];
  readonly allowLoopback: boolean;
  /** The `Stack` dimension of every metric. @default DEFAULT_STACK_NAME */
  readonly stackName: string;
  /** One X-Ray span per attempt, its trace id in the attempt record (docs/operations.md). */
  readonly tracing: boolean;
  /** Claims each delivery of an event, so a republished event keeps its ids and is not sent again. */
  readonly dedupeEvents: boolean;
}

export const CONFIG_DEFAULTS = {
  headerPrefix: DEFAULT_HEADER_PREFIX,
  attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
  attemptTtlDays: 30,
  batchConcurrency: 10,
  connectionCacheTtlMs: 30_000,
  allowedPorts: [443],
} as const;

/**
 * The range of each numeric setting, inclusive: the dispatcher's and the API's environment
 * checks and the CDK construct's props (lib/webhook-delivery-props.ts) read the same table.
 */
export const CONFIG_LIMITS = {
  /** docs/protocol.md §6: at most 30 s; shorter deadlines are for tests. */
  attemptTimeoutMs: { min: 100, max: ATTEMPT_TIMEOUT_MS },
  attemptTtlDays: { min: 1, max: 3650 },
  batchConcurrency: { min: 1, max: 100 },
  connectionCacheTtlMs: { min: 0, max: 30_000 },
} as const;

type Limit = keyof typeof CONFIG_LIMITS;

/** A numeric setting within its {@link CONFIG_LIMITS}, defaulting to {@link CONFIG_DEFAULTS}. */
export function limited(env: Env, key: string, setting: Limit): number {
  const { min, max } = CONFIG_LIMITS[setting];
  return integer(env, key, CONFIG_DEFAULTS[setting], min, max);
}

/** The secret store from the environment: `kms` needs the key's ARN. */
export function secretStore(env: Env): SecretStore {
  const kind = env[ENV.secretStore]?.trim() || 'secrets-manager';
  if (kind === 'secrets-manager') return Object.freeze({ kind });
  if (kind === 'kms') return Object.freeze({ kind, keyArn: required(env, ENV.secretKeyArn) });
  throw new ConfigError(ENV.secretStore, `must be one of ${SECRET_STORES.join(', ')}, got "${kind}"`);
}

/** On unless set to false: the default profile finds deliveries by user and event. */
export const deliverySearch = (env: Env): boolean => flagOn(env, ENV.deliverySearch);

/** Which bodies the attempt log keeps, from the environment. */
function keepBodies(env: Env): KeepBodies {
  const raw = env[ENV.keepBodies]?.trim() || 'all';
  if (!(KEEP_BODIES as readonly string[]).includes(raw)) {
    throw new ConfigError(ENV.keepBodies, `must be one of ${KEEP_BODIES.join(', ')}, got "${raw}"`);
  }
  return raw as KeepBodies;
}

/** Health thresholds from the environment, checked by the same rules as the construct props. */
function healthThresholds(env: Env): HealthThresholds {
  try {
    return validateThresholds({
      failingAfter: whole(env, ENV.failingAfter),
      disableAfter: whole(env, ENV.disableAfter),
    });
  } catch (error) {
    if (!(error instanceof HealthSettingsError)) throw error;
    throw new ConfigError(
      error.field === 'failingAfter' ? ENV.failingAfter : ENV.disableAfter,
      error.problem,
    );
  }
}

/**
 * The stack's rate limits: the ceiling no connection's limit passes, and the default of those
 * without one (absent: none), at most the ceiling. Local mode's console reads them too.
 */
export function rateLimits(env: Env): { defaultRateLimit?: number; rateLimitCeiling: number } {
  const unit = ' deliveries per second';
  const ceiling = integer(
    env,
    ENV.rateLimitCeiling,
    DEFAULT_RATE_LIMIT_CEILING,
    MIN_RATE_LIMIT,
    MAX_RATE_LIMIT,
    unit,
  );
  if (whole(env, ENV.defaultRateLimit) === undefined) return { rateLimitCeiling: ceiling };
  // At most the ceiling (WEBHOOKS_RATE_LIMIT_CEILING): a default above it would never apply.
  const byDefault = integer(env, ENV.defaultRateLimit, MIN_RATE_LIMIT, MIN_RATE_LIMIT, ceiling, unit);
  return { defaultRateLimit: byDefault, rateLimitCeiling: ceiling };
}

const HEADER_PREFIX = /^[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*$/;

/**
 * Reads and validates the dispatcher's configuration.
 * @throws ConfigError naming the first missing or malformed key.
 */
export function loadConfig(env: Env = process.env): DispatcherConfig {
  const headerPrefix = env[ENV.headerPrefix]?.trim() || CONFIG_DEFAULTS.headerPrefix;
  const attemptTtlDays = limited(env, ENV.attemptTtlDays, 'attemptTtlDays');
  if (!HEADER_PREFIX.test(headerPrefix)) {
    throw new ConfigError(
      ENV.headerPrefix,
      `must look like "X-Service" (letters, digits, dashes), got "${headerPrefix}"`,
    );
  }
  const allowLoopback = flag(env, ENV.allowLoopback);
  if (allowLoopback && env.AWS_LAMBDA_FUNCTION_NAME) {
    throw new ConfigError(ENV.allowLoopback, 'is a local-mode setting and is refused inside AWS Lambda');
  }
  return Object.freeze({
    retryQueueUrl: required(env, ENV.retryQueueUrl),
    dlqUrl: required(env, ENV.dlqUrl),
    connectionsTable: required(env, ENV.connectionsTable),
    attemptsTable: required(env, ENV.attemptsTable),
    parkedTable: required(env, ENV.parkedTable),
    rateWindowsTable: required(env, ENV.rateWindowsTable),
    ...rateLimits(env),
    ...(env[ENV.eventsTopicArn]?.trim() ? { eventsTopicArn: env[ENV.eventsTopicArn]!.trim() } : {}),
    health: Object.freeze(healthThresholds(env)),
    recoveryProbes: probeSchedule(env, ENV.recoveryProbes),
    secretPrefix: required(env, ENV.secretPrefix),
    secretStore: secretStore(env),
    headerPrefix,
    attemptTimeoutMs: limited(env, ENV.attemptTimeoutMs, 'attemptTimeoutMs'),
    attemptTtlDays,
    deliveredTtlDays: integer(env, ENV.deliveredTtlDays, attemptTtlDays, 1, attemptTtlDays),
    keepBodies: keepBodies(env),
    deliverySearch: deliverySearch(env),
    batchConcurrency: limited(env, ENV.batchConcurrency, 'batchConcurrency'),
    connectionCacheTtlMs: limited(env, ENV.connectionCacheTtlMs, 'connectionCacheTtlMs'),
    allowedPorts: Object.freeze(ports(env, ENV.allowedPorts, CONFIG_DEFAULTS.allowedPorts)),
    allowLoopback,
    stackName: env[ENV.stackName]?.trim() || DEFAULT_STACK_NAME,
    tracing: flag(env, ENV.tracing),
    // On unless set off: the construct always writes it, local mode only to turn it off.
    dedupeEvents: flagOn(env, ENV.dedupeEvents),
  });
}
