/**
 * The composition root's delivery side: the core built from configuration with the production
 * adapters (adapters.ts) around it. The dispatcher Lambda (once at module scope), local mode and
 * the test harness wire the whole dispatcher (`wireDispatcher`); the management backend
 * (management.ts) wires only what a test send uses (`wireTestSends`), on its own adapters. Tests
 * pass their own config and, where they must, an extra trusted CA or a stub resolver.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HttpsSender, type Resolver } from '../adapters/http/sender';
import { invocationLog, powertoolsLog } from '../adapters/logger';
import { EmfMetrics } from '../adapters/metrics/emf';
import type { DispatcherConfig } from '../config';
import { cachedConnections } from '../core/cached-connections';
import { createDispatcher } from '../core/dispatch';
import { createHealthTracker } from '../core/health-tracker';
import type { InFlight } from '../core/limiter';
import type { Clock, Dispatcher, DispatcherDeps, Log, Metrics, OperationalEvents } from '../core/ports';
import type { Connection } from '../core/types';
import type { TestSends } from '../management/ports';
import { type DeploymentAdapters, deploymentAdapters } from './adapters';
import { type AwsClients, awsClients } from './clients';
import { recoveryPorts } from './recovery';

export type { AwsClients } from './clients';

export interface WiringOptions {
  /** The process's SDK clients; the missing ones are built once here. */
  clients?: AwsClients;
  /** The adapters around a set of clients already built (the management backend's, for test sends). */
  adapters?: DeploymentAdapters;
  /**
   * The DynamoDB adapters' document client, around the process's DynamoDB client. The dispatcher's
   * entry points pass `lightDocumentClient` (adapters/dynamodb/light-client.ts, docs/performance.md
   * §11): passed in, not imported here, so the management library's bundle never loads it.
   * @default the SDK's document client
   */
  documentClient?: (dynamodb: DynamoDBClient) => DynamoDBDocumentClient;
  /** Replace individual ports (tests). */
  deps?: Partial<DispatcherDeps>;
  /** Trusted CAs instead of Node's defaults: tests only. */
  ca?: string[];
  resolver?: Resolver;
  clock?: Clock;
  /**
   * What the dispatcher counts with: local mode's Prometheus registry, a test's capture.
   * @default EMF documents on stdout, flushed at the end of each invocation
   */
  metrics?: Metrics & { flush?(): void; readInFlight?(reader: () => InFlight): void };
}

/** What the wiring does around each invocation (`Wired.invocation`), as the handler (dispatcher/handler.ts) calls it. */
export interface InvocationHooks {
  /** Runs the invocation so that every log line it writes carries its request id and cold start. */
  during?<T>(requestId: string, run: () => Promise<T>): Promise<T>;
  /** After the batch, failed records or not: the invocation's metrics are written (one flush). */
  finish?(): void;
}

export interface Wired {
  dispatcher: Dispatcher;
  deps: DispatcherDeps;
  /** The handler's hooks: each line tagged with its invocation, the metrics flushed at its end. */
  invocation: InvocationHooks;
  close(): Promise<void>;
}

/** The runtime's clock: its time, and a timer (a rate-limited send waiting for its slot). */
const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};

/** Adapters around a new set of clients (the missing ones of `options.clients`). */
function ownAdapters(config: TestSendConfig, options: WiringOptions): DeploymentAdapters {
  const clients = awsClients(options.clients, config.secretStore?.kind === 'kms');
  return deploymentAdapters(clients, options.documentClient?.(clients.dynamodb));
}

/** The adapters every wiring shares: the clock, the sender and its egress policy, the queues, the secret store. */
function sharedAdapters(
  config: TestSendConfig,
  options: WiringOptions,
  counting?: { inFlight: number; metrics: Metrics },
) {
  const clock = options.clock ?? systemClock;
  const egress = { allowedPorts: config.allowedPorts, allowLoopback: config.allowLoopback };
  const adapters = options.adapters ?? ownAdapters(config, options);
  return {
    adapters,
    clock,
    egress,
    // The pool keeps as many idle connections per receiver as requests can be in flight
    // (docs/design.md §4 "The sender").
    sender: new HttpsSender({
      egress,
      ca: options.ca,
      resolver: options.resolver,
      ...(counting
        ? {
            maxIdlePerOrigin: counting.inFlight,
            onResend: () => counting.metrics.record({ kind: 'senderResend' }),
          }
        : {}),
    }),
    queues: adapters.queues(config),
    secrets: adapters.signingSecrets(config.secretStore, clock),
  };
}

export function wireDispatcher(config: DispatcherConfig, options: WiringOptions = {}): Wired {
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? new EmfMetrics({ stack: config.stackName, clock });
  const { adapters, egress, sender, queues, secrets } = sharedAdapters(
    config,
    { ...options, clock },
    { inFlight: config.batchConcurrency, metrics },
  );
  const log = invocationLog(options.deps?.log ?? powertoolsLog());
  const events: OperationalEvents = config.eventsTopicArn
    ? adapters.events(config.eventsTopicArn)
    : loggedEvents(log);
  const connections = adapters.connections(config.connectionsTable);
  const cached = cachedConnections(connections, config.connectionCacheTtlMs, clock);
  const parked = adapters.parked(config.parkedTable);
  const probing = config.recoveryProbes !== false;
  // Lookup items and claim settlements: written together when each batch ends (core/batch.ts).
  const pendingWrites = adapters.writeBuffer();
  const deps: DispatcherDeps = {
    connections: cached,
    secrets,
    sender,
    scheduler: queues,
    deadLetters: queues,
    parked,
    health: createHealthTracker(
      { health: connections.health, events, clock, log, metrics, ...(probing ? { probes: queues } : {}) },
      { ...config.health, recoveryProbes: config.recoveryProbes },
    ),
    // An attempt's record is placed by the connection it was judged with (core/settle.ts); this
    // lookup serves a record written without one (a record queued on the retry queue).
    attemptLog: adapters.attempts(
      config.attemptsTable,
      (connectionId) => cached.get(connectionId),
      config.deliverySearch,
      pendingWrites,
    ),
    ...(probing
      ? {
          recovery: recoveryPorts({
            parked,
            queues,
            connections: cached,
            clock,
          }),
        }
      : {}),
    attemptLogFallback: queues,
    clock,
    metrics,
    rateCounter: adapters.rateWindows(config.rateWindowsTable),
    ...(config.dedupeEvents ? { claims: adapters.claims(config.rateWindowsTable, pendingWrites) } : {}),
    pendingWrites,
    ...options.deps,
    log,
  };
  const dispatcher = createDispatcher(deps, {
    headerPrefix: config.headerPrefix,
    attemptTimeoutMs: config.attemptTimeoutMs,
    attemptTtlDays: config.attemptTtlDays,
    deliveredTtlDays: config.deliveredTtlDays,
    keepBodies: config.keepBodies,
    concurrency: config.batchConcurrency,
    egress,
    defaultRateLimit: config.defaultRateLimit,
    rateLimitCeiling: config.rateLimitCeiling,
  });
  // A gauge is sampled: the adapter reads the dispatcher's attempts in flight when it writes.
  metrics.readInFlight?.(dispatcher.inFlight);
  return {
    dispatcher,
    deps,
    invocation: { during: log.during, finish: () => metrics.flush?.() },
    close: () => sender.close(),
  };
}

/** What a test send needs to know: where its record goes, how it signs and where it may send. */
export type TestSendConfig = Pick<
  DispatcherConfig,
  | 'retryQueueUrl'
  | 'dlqUrl'
  | 'attemptsTable'
  | 'secretStore'
  | 'headerPrefix'
  | 'attemptTimeoutMs'
  | 'attemptTtlDays'
  | 'allowedPorts'
  | 'allowLoopback'
>;

/**
 * Test sends ("Send Test", docs/protocol.md §1) for the management library: the core's one attempt with
 * the real sender, secret store and attempt log (its fallback, the retry queue, included), and
 * nothing else. A test send is never retried, parked, dead-lettered or counted for health
 * (outcome.ts decides `report` for it), so those ports are left out: each refuses by name if
 * anything ever called it.
 */
export function wireTestSends(config: TestSendConfig, options: WiringOptions = {}): TestSends {
  const { adapters, clock, egress, sender, queues, secrets } = sharedAdapters(config, options);
  const unused = (port: string) => () => {
    throw new Error(`a test send never uses ${port}`);
  };
  // The connection a send is given places its record among the connection's shards.
  const sending = new Map<string, Connection>();
  const dispatcher = createDispatcher(
    {
      connections: { get: unused('the connection store'), listByApplication: unused('the connection store') },
      secrets,
      sender,
      scheduler: { schedule: unused('the retry scheduler') },
      deadLetters: { put: unused('the dead-letter queue') },
      parked: { park: unused('the parked table') } as unknown as DispatcherDeps['parked'],
      health: {
        delivered: unused('health'),
        exhausted: unused('health'),
      } as unknown as DispatcherDeps['health'],
      attemptLog: adapters.attempts(config.attemptsTable, (connectionId) => sending.get(connectionId)),
      attemptLogFallback: queues,
      clock,
      log: options.deps?.log ?? powertoolsLog(),
      ...options.deps,
    },
    {
      headerPrefix: config.headerPrefix,
      attemptTimeoutMs: config.attemptTimeoutMs,
      attemptTtlDays: config.attemptTtlDays,
      concurrency: 1,
      egress,
    },
  );
  return {
    send: (delivery, connection) => {
      sending.set(connection.connectionId, connection);
      return dispatcher.attemptOnce(delivery, connection, { remainingMs: () => Number.POSITIVE_INFINITY });
    },
    close: () => sender.close(),
  };
}

/** Without a topic (test sends, tools), an operational event is one log line. */
function loggedEvents(log: Log): OperationalEvents {
  return {
    async publish(event) {
      log.warn(`operational event ${event.type}`, { ...event });
    },
  };
}
