/**
 * The management API: everything the "CRM Connections" dashboard of docs/protocol.md §1 does (add,
 * Show Secret, Send Test, logs), plus rotation, the attempt log and the DLQ. The `webhooks`
 * CLI is a thin layer over it; a customer's own dashboard backend can call it directly.
 *
 * ```ts
 * const webhooks = new WebhookManagement({ resources: await resourcesFromStack('Webhooks') });
 * const con = await webhooks.connections.create({ applicationId, name: 'CRM', url: 'https://crm.example.com/hooks' });
 * const { secret } = await webhooks.connections.showSecret(con.connectionId);
 * const result = await webhooks.sendTest(con.connectionId);
 * ```
 */

import { type BackendOptions, createBackend } from '../backend';
import type { AttemptRecord, Connection } from '../core/types';
import type { WebhookPublisher } from '../publisher';
import { lastApplicationName, NAME_LOOKUP_CONNECTIONS } from './application-name';
import { Attempts } from './attempts';
import { Connections, type HealthView, healthView } from './connections';
import {
  type ConsoleSession,
  consoleUrlOf,
  mintSessionToken,
  SessionKey,
  SessionSetupError,
} from './console-session';
import { DeadLetterQueue } from './dead-letters';
import { Deliveries } from './deliveries';
import { NotFoundError } from './errors';
import { ParkedDeliveriesAdmin, type ParkedPageResult, type RecoverResult, type Scope } from './parked';
import type { ManagementBackend } from './ports';
import { type RateLimitActivity, RateLimitActivityReader } from './rate-activity';
import { type ResendResult, resendDelivery } from './resend';
import type { OperatorStatsSource } from './stats-port';
import { sendTest } from './test-send';
import type { ManagementOptions, UpdateConnectionInput } from './types';

export { type BackendOptions, resourcesFromStack, StackNotFoundError, type StatsClients } from '../backend';
export type { ConnectionHealth, HealthState } from '../core/health';
export type { ParkedDelivery, ParkReason } from '../core/parking';
export { type AttemptQuery, Attempts } from './attempts';
export { Connections, generateSecret, type HealthView, healthView } from './connections';
export {
  type ConsoleSession,
  DEFAULT_SESSION_TTL_SECONDS,
  MAX_SESSION_TTL_SECONDS,
  SessionError,
  SessionSetupError,
} from './console-session';
export {
  type DeadLetterEntry,
  DeadLetterQueue,
  type DeleteResult,
  type RedriveResult,
  type SkippedEntry,
} from './dead-letters';
export {
  DELIVERY_STATES,
  Deliveries,
  type DeliveryListQuery,
  type DeliveryState,
  type DeliverySummary,
  type FailureNow,
} from './deliveries';
export { ConflictError, NotFoundError, ValidationError } from './errors';
export {
  DEFAULT_RECOVERY_RATE_PER_SECOND,
  ParkedDeliveriesAdmin,
  type ParkedPageResult,
  RECOVERY_LEASE_MS,
  type RecoverResult,
  type Scope,
} from './parked';
export type * from './ports';
export { type RateLimitActivity, RateWindowsUnknownError } from './rate-activity';
export type { ResendResult } from './resend';
export { isSince, parseSince } from './since';
export type {
  OldestAges,
  OperatorStats,
  OperatorStatsSource,
  QueueDepth,
  StatsQuery,
  StatsSourceKind,
} from './stats-port';
export type * from './types';

/** A connection as `getConnection` returns it: with its health. */
export type ConnectionWithHealth = Omit<Connection, 'health'> & { health: HealthView };

export class WebhookManagement {
  readonly connections: Connections;
  readonly attempts: Attempts;
  /** An application's deliveries, found by user, event or connection, and where each stands now. */
  readonly deliveries: Deliveries;
  readonly deadLetters: DeadLetterQueue;
  readonly publisher: WebhookPublisher;
  /** Parked deliveries: list, retry, recover (docs/design.md §9). */
  readonly parked: ParkedDeliveriesAdmin;
  /** `webhooks stats`: from the stack's stores and queues, or CloudWatch (the backend's `stats`). */
  readonly stats: OperatorStatsSource;
  private readonly rateActivity: RateLimitActivityReader;
  /** How long the dispatchers cache a connection, when known (ManagementOptions.connectionCacheTtlMs). */
  readonly connectionCacheTtlMs?: number;
  /** The stack's default rate limit, deliveries per second, when its resources name one (`DefaultRateLimit`). */
  readonly defaultRateLimit?: number;

  private readonly shared: ManagementOptions;
  /** What every part works through: handed in, or built by the composition root (lambdas/backend/). */
  private readonly backend: ManagementBackend;
  private sessionKey?: SessionKey;

  /**
   * `options.backend`: the stores, queues and keepers to work through (tests hand in memory ones).
   * Absent: the composition root builds the deployment's from `resources` and `clients`.
   */
  constructor(options: ManagementOptions & BackendOptions & { backend?: ManagementBackend }) {
    this.shared = options;
    const backend = options.backend ?? createBackend(options);
    this.backend = backend;
    this.connectionCacheTtlMs = options.connectionCacheTtlMs;
    this.defaultRateLimit = options.resources.defaultRateLimit;
    this.connections = new Connections(options, backend);
    this.attempts = new Attempts(backend.attempts);
    this.deliveries = new Deliveries(backend, options.resources.deliverySearch !== false);
    this.parked = new ParkedDeliveriesAdmin(
      backend,
      (id) => this.connections.get(id),
      undefined,
      (deliveryId, attempt) => backend.attempts.markResent(deliveryId, attempt),
    );
    this.deadLetters = new DeadLetterQueue(backend.deadLetters, backend.connections);
    this.publisher = backend.publisher;
    this.rateActivity = new RateLimitActivityReader(options, backend.rateWindows);
    this.stats = backend.stats;
  }

  /** A connection with its health (docs/design.md §9); 404 (NotFoundError) for another application's id. */
  async getConnection(connectionId: string, scope: Scope = {}): Promise<ConnectionWithHealth> {
    const connection = await this.scopedConnection(connectionId, scope);
    return { ...connection, health: healthView(connection.health) };
  }

  /** The connection, or 404 (NotFoundError) when it belongs to another application than the scope's. */
  private async scopedConnection(connectionId: string, scope: Scope): Promise<Connection> {
    const connection = await this.connections.get(connectionId);
    if (scope.applicationId !== undefined && connection.applicationId !== scope.applicationId) {
      throw new NotFoundError('connection', connectionId);
    }
    return connection;
  }

  /**
   * Updates a connection. Enabling a disabled one resets its health to healthy (and publishes
   * `connection.recovered` when health had disabled it); its parked deliveries stay parked
   * until {@link recoverConnection}.
   */
  async updateConnection(
    connectionId: string,
    patch: UpdateConnectionInput,
    scope: Scope = {},
  ): Promise<ConnectionWithHealth> {
    await this.getConnection(connectionId, scope);
    const updated = await this.connections.update(connectionId, patch);
    return { ...updated, health: healthView(updated.health) };
  }

  /** A connection's parked deliveries, newest events first (never their bodies; `parkedAt` can be later). */
  listParked(
    connectionId: string,
    query: { since?: string; limit?: number; cursor?: string } & Scope = {},
  ): Promise<ParkedPageResult> {
    return this.parked.list(connectionId, query);
  }

  /** An application's parked deliveries, newest events first (the API's GET /failures). */
  listApplicationParked(
    applicationId: string,
    query: { limit?: number; cursor?: string } = {},
  ): Promise<ParkedPageResult> {
    return this.parked.listApplication(applicationId, query);
  }

  /**
   * Re-queues a connection's parked deliveries since a time (`24h`, or an ISO time; all when
   * absent), oldest first, each as a new chain, at a bounded rate.
   */
  recoverConnection(
    connectionId: string,
    options: { since?: string; ratePerSecond?: number } & Scope = {},
  ): Promise<RecoverResult> {
    return this.parked.recover(connectionId, options);
  }

  /** Re-queues one parked delivery now; NotFoundError when it is not parked (or not the caller's). */
  retryDelivery(deliveryId: string, scope: Scope = {}): Promise<{ requeued: true; connectionId: string }> {
    return this.parked.retry(deliveryId, scope);
  }

  /**
   * Resend: sends a delivery again as a new attempt (same delivery id and body, the next attempt
   * number, signed afresh), through the retry queue. NotFoundError when it is not in the attempt
   * log (or not the caller's); ConflictError when it cannot be sent again now, saying why (a
   * retry still scheduled, already resent, its body not kept).
   */
  resendDelivery(deliveryId: string, scope: Scope = {}): Promise<ResendResult> {
    return resendDelivery(
      {
        attempts: this.backend.attempts,
        queue: this.backend.retryQueue,
        scoped: (id, s) => this.parked.deliveryScoped(id, s),
        parkedItem: (id, s) => this.parked.get(id, s),
        retryParked: (id, s) => this.parked.retry(id, s),
      },
      deliveryId,
      scope,
    );
  }

  /**
   * Whether a connection's deliveries are waiting for its rate limit now, and its last minute
   * (sends, deferrals), from the dispatchers' counter items (rate-activity.ts). 404
   * (NotFoundError) for another application's connection.
   */
  async rateLimitActivity(connectionId: string, scope: Scope = {}): Promise<RateLimitActivity> {
    return this.rateActivity.of(await this.scopedConnection(connectionId, scope));
  }

  /**
   * One immediate signed test delivery (`test: true` in the attempt log, never retried); its
   * application is named as in {@link applicationName}, else by its id.
   */
  async sendTest(connectionId: string): Promise<AttemptRecord> {
    const connection = await this.connections.get(connectionId);
    const name = await this.applicationName(connection.applicationId, connection.connectionId);
    return sendTest(this.backend.testSends(), connection, name);
  }

  /**
   * The name an application's events last carried, from the bodies the attempt log keeps
   * (application-name.ts): `connectionId`'s own deliveries first, else those of the application's
   * first few connections (one bounded page). Undefined when no body of its events is kept;
   * applications themselves are not stored.
   */
  async applicationName(applicationId: string, connectionId?: string): Promise<string | undefined> {
    if (connectionId) {
      const own = await lastApplicationName(this.attempts, applicationId, [connectionId]);
      if (own !== undefined) return own;
    }
    const others = await this.connections
      .page({ applicationId, limit: NAME_LOOKUP_CONNECTIONS })
      .then((p) => p.items.filter((c) => c.connectionId !== connectionId).map((c) => c.connectionId))
      .catch(() => []);
    return lastApplicationName(this.attempts, applicationId, others);
  }

  /**
   * A console link for one application (docs/design.md §8): a session token valid for `ttlSeconds`
   * (default 1 h, at most 24 h) and `<api>/console/#token=…`. Give the link to a signed-in
   * user of your product; it opens the console on that application's connections only.
   */
  async createConsoleSession(input: {
    applicationId: string;
    ttlSeconds?: number;
    /** Base URL the console is served from. @default resources.apiUrl */
    apiUrl?: string;
  }): Promise<ConsoleSession> {
    const { consoleKeySecret } = this.shared.resources;
    const apiUrl = input.apiUrl ?? this.shared.resources.apiUrl;
    if (!consoleKeySecret || !apiUrl) {
      throw new SessionSetupError(
        'this deployment has no management API and console (resources name no consoleKeySecret / apiUrl)',
      );
    }
    this.sessionKey ??= new SessionKey((id) => this.backend.secretString(id), consoleKeySecret);
    const { token, expiresAt } = await mintSessionToken(await this.sessionKey.get(), {
      applicationId: input.applicationId,
      ttlSeconds: input.ttlSeconds,
    });
    return {
      token,
      consoleUrl: consoleUrlOf(apiUrl, token),
      expiresAt: new Date(expiresAt * 1000).toISOString(),
    };
  }

  /** The key that verifies console sessions (the management API uses it). */
  consoleSessionKey(): SessionKey {
    const { consoleKeySecret } = this.shared.resources;
    if (!consoleKeySecret) throw new SessionSetupError('resources name no consoleKeySecret');
    this.sessionKey ??= new SessionKey((id) => this.backend.secretString(id), consoleKeySecret);
    return this.sessionKey;
  }
}
