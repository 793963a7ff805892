import type { AwsClients } from '../backend/clients';
import type { SecretStore } from '../config';
import type { Connection, HttpMethod } from '../core/types';
import type { ConnectionSettings, SettingsChange } from '../shapes/connection-types';

/** Where a deployment's resources are: the stack outputs, or local mode's state file. */
export interface WebhookResources {
  /** The ingress queue: events only (stack output `QueueUrl`). */
  queueUrl: string;
  /** The internal retry queue: deliveries and attempt records (stack output `RetryQueueUrl`). */
  retryQueueUrl: string;
  dlqUrl: string;
  connectionsTable: string;
  attemptsTable: string;
  /** Parked deliveries (stack output `ParkedTableName`); absent on stacks that predate them. */
  parkedTable?: string;
  /** SNS topic of operational events (stack output `EventsTopicArn`). */
  eventsTopicArn?: string;
  secretPrefix: string;
  /**
   * Where connection secrets are kept (stack outputs `SecretStore`, `SecretKeyArn`).
   * @default { kind: 'secrets-manager' }
   */
  secretStore?: SecretStore;
  /** @default 'X-Service' */
  headerPrefix?: string;
  /** Destination ports the deployment allows (stack output `AllowedPorts`). @default [443] */
  allowedPorts?: number[];
  /** Secret (ARN or name) holding the key that signs console sessions (stack output `ConsoleSessionKeySecret`). */
  consoleKeySecret?: string;
  /** Base URL of the management HTTP API (stack output `ManagementApiUrl`; local mode: http://127.0.0.1:<port>). */
  apiUrl?: string;
  /**
   * Name of the Contributor Insights rule over failed attempts (stack output
   * `FailingConnectionsRuleName`): the top failing connections of `webhooks stats`.
   */
  failingConnectionsRule?: string;
  /** The `Stack` dimension value of the stack's metrics (stack output `MetricsStackName`). */
  metricsStack?: string;
  /** The rate-limit windows (stack output `RateWindowsTableName`): read for a connection's live rate-limit state. */
  rateWindowsTable?: string;
  /** The stack's default rate limit, deliveries per second (stack output `DefaultRateLimit`, when set). */
  defaultRateLimit?: number;
  /**
   * The highest rate limit a connection may have (stack output `RateLimitCeiling`). Absent: the
   * stack predates the ceiling, and 10,000 (core/rate-limit.ts MAX_RATE_LIMIT) applies.
   */
  rateLimitCeiling?: number;
  /**
   * How long a rotated-out secret keeps signing when a rotation names no switch time, seconds
   * (stack output `SecretRotationOverlapSeconds`); 0: the new secret signs at once. @default 86 400
   */
  secretRotationOverlapSeconds?: number;
  /**
   * Whether deliveries are findable by user and event id (stack output `DeliverySearch`,
   * docs/cost.md "Delivery search"). Absent: on, as the default profile has it.
   */
  deliverySearch?: boolean;
}

export interface ManagementOptions {
  resources: WebhookResources;
  /** SDK clients; built from the default credential chain when absent. */
  clients?: AwsClients;
  /** Told when an operational event could not be published (the change itself stands). @default ignore */
  onEventError?: (error: unknown) => void;
  /**
   * Local mode only: receivers on loopback are allowed (and their ports). A deployed stack
   * refuses them; so does this API unless told otherwise.
   */
  allowLoopback?: boolean;
  /** Destination ports a connection URL may use. @default resources.allowedPorts, else [443] */
  allowedPorts?: number[];
  /**
   * How long the dispatchers cache a connection, when the caller knows it (local mode does): a
   * change reaches deliveries within it. Unknown for a deployed stack (30 s by default).
   */
  connectionCacheTtlMs?: number;
  /** CAs to trust for test sends instead of Node's defaults (local mode). */
  ca?: string[];
  /** Deadline of a test send. @default 30 000 */
  attemptTimeoutMs?: number;
  /** TTL of test-send attempt records, days. @default 30 */
  attemptTtlDays?: number;
  /** The time rotation switches are judged by (tests pass their own). @default Date.now */
  clock?: { now(): number };
}

/** A connection as the management API shows it: never the secret itself. */
export type ConnectionView = Connection;

/**
 * A change to a connection: any of its settings (lambdas/shapes/connection.ts); `headers`
 * replaces the whole set; `rateLimit: null` removes the connection's own limit; absent: unchanged.
 * The library checks every value itself, so `method` may be any text (a CLI argument).
 */
export type UpdateConnectionInput = Omit<SettingsChange, 'method'> & { method?: HttpMethod | string };

/**
 * A new connection: its application, a name and a URL; every other setting is optional
 * (method POST, enabled true, rate limit the stack default, if any).
 */
export type CreateConnectionInput = UpdateConnectionInput &
  Pick<ConnectionSettings, 'name' | 'url'> & { applicationId: string };
