/**
 * The core's ports, in one place: what the delivery core needs from the outside world
 * (stores, queues, secrets, the HTTP sender, a clock, a log) and what it offers its callers
 * (the dispatcher). Adapters under lambdas/adapters/ implement the first kind; the Lambda
 * handler, local mode and the management library call the second. The core declares them
 * and imports nothing back from its callers (docs/architecture.md).
 */

import type { EgressPolicy } from './egress';
import type { QueueSource } from './envelope';
import type { ConnectionHealth } from './health';
import type { InFlight } from './limiter';
import type { MetricFact } from './metrics';
import type { OperationalEvent, ParkedItem } from './parking';
import type { ProbeQueue, RecoveryPorts } from './probe-ports';
import type { ProbeEvent } from './probes';
import type {
  AttemptRecord,
  AttemptResult,
  AttemptShardStep,
  Claim,
  ClaimKey,
  Connection,
  DeadLetter,
  DeliveryMessage,
  KeepBodies,
  OutboundRequest,
  Outcome,
} from './types';

// ---- What the core offers ------------------------------------------------------

/** One SQS record as the core sees it. */
export interface InputRecord {
  messageId: string;
  body: string;
  /**
   * The queue the record came from (the handler tells it by the record's `eventSourceARN`).
   * Absent is read as `ingress`, the queue publishers can write: it carries events only.
   */
  source?: QueueSource;
  /**
   * When the message was sent to its queue (SQS `SentTimestamp`, Unix ms). An ingress event's
   * is its publish time, which its deliveries carry to measure delivery latency.
   */
  sentAtMs?: number;
  /**
   * The publisher's trace context, as a W3C `traceparent` (core/trace-context.ts): an event's
   * deliveries carry it and each attempt's span records it.
   */
  traceparent?: string;
}

/** What the core needs to know about the running invocation. */
export interface Invocation {
  /** Time left in the invocation, ms. A function property: the core calls it on its own, unbound. */
  remainingMs: () => number;
}

export interface BatchResult {
  /** Message ids SQS must redeliver (`batchItemFailures`). */
  failures: string[];
}

export interface Dispatcher {
  processBatch(records: readonly InputRecord[], invocation: Invocation): Promise<BatchResult>;
  /** One attempt of a delivery, outside the queue (test sends): the record it logged. */
  attemptOnce(
    delivery: DeliveryMessage,
    connection: Connection,
    invocation: Invocation,
  ): Promise<AttemptRecord>;
  /**
   * Its attempts in flight, for the metrics adapters to sample (lambdas/backend/dispatcher.ts):
   * held now, and the most at once since the previous reading.
   */
  inFlight(): InFlight;
}

export interface DispatcherOptions {
  headerPrefix: string;
  /** @default 30 000 (docs/protocol.md §6) */
  attemptTimeoutMs?: number;
  attemptTtlDays: number;
  /**
   * TTL of a delivery's record when its first attempt delivered it: its only record, which
   * nobody needs for long (the cost lever of docs/cost.md). Any delivery with a failed attempt
   * keeps every record for attemptTtlDays, so its history is never cut short.
   * @default attemptTtlDays
   */
  deliveredTtlDays?: number;
  /** Attempts in flight at once across the batch. */
  concurrency: number;
  egress: EgressPolicy;
  /** Deliveries per second of a connection that sets no `rateLimit` of its own. Absent: none. */
  defaultRateLimit?: number;
  /** The highest rate limit any connection gets (its own above it is held to it). */
  rateLimitCeiling?: number;
  /**
   * Which delivery bodies the attempt log keeps, on each delivery's first record: every one,
   * or only those whose first attempt failed (docs/design.md §5, docs/cost.md).
   * @default 'all'
   */
  keepBodies?: KeepBodies;
}

// ---- What the core needs: driven ports --------------------------------------

export interface DispatcherDeps {
  connections: ConnectionStore;
  secrets: SigningSecrets;
  sender: HttpSender;
  scheduler: RetryScheduler;
  deadLetters: DeadLetters;
  /** Where exhausted, disabled-connection and blocked deliveries wait for a retry or recovery (docs/design.md §9). */
  parked: ParkedDeliveries;
  /** Endpoint health: counts exhausted deliveries, resets on a delivery, announces transitions. */
  health: HealthTracker;
  attemptLog: AttemptLog;
  attemptLogFallback: AttemptLogFallback;
  clock: Clock;
  log: Log;
  /** What the dispatcher counts (adapters/metrics/emf.ts in Lambda). Absent: nothing is counted. */
  metrics?: Metrics;
  /**
   * The rate-limit windows every dispatcher shares (core/rate-limit.ts). Absent: no limit is
   * enforced (test sends); a connection without a limit never reaches it.
   */
  rateCounter?: RateCounter;
  /** One span per attempt (adapters/tracing/xray.ts, with `tracing` on). Absent: nothing is traced. */
  tracing?: Tracing;
  /**
   * Claims of events' deliveries (core/claims.ts): a republished event (its eventId again) keeps
   * its delivery ids and is not sent again. Absent: republished events are not de-duplicated.
   */
  claims?: DeliveryClaims;
  /** What recovery checks use (core/prober.ts). Absent: recovery probes are off, a check is dropped. */
  recovery?: RecoveryPorts;
  /** Writes held until the batch ends (lookup items, claim settlements). Absent: none are held. */
  pendingWrites?: PendingWrites;
}

/** Port: the claims of events' deliveries (docs/reliability.md "Republished events"). */
export interface DeliveryClaims {
  /**
   * One conditional write: claims the delivery for a send that ends by `leaseUntilMs`, unless
   * it is settled or another live claim holds it. A new claim keeps `timeMs` and lives until
   * `expiresAtS`; a claim whose `expiresAtS` has passed counts as none.
   */
  claim(
    key: ClaimKey,
    at: { timeMs: number; nowMs: number; leaseUntilMs: number; expiresAtS: number },
  ): Promise<Claim>;
  /**
   * The claimed delivery was attempted or handed on: republishing its event never sends it again.
   * `claim` is what claiming it answered. May be written when the batch ends ({@link PendingWrites}).
   */
  settle(key: ClaimKey, claim?: Claim): Promise<void>;
}

/** Writes adapters hold until the batch ends (adapters/dynamodb/write-buffer.ts), flushed before its result. */
export interface PendingWrites {
  /** Writes everything held; rejects, naming how many, when some could not be written. */
  flush(): Promise<void>;
}

/** Shared per-second send counts of rate-limited connections (docs/design.md §4 "Rate limits"). */
export interface RateCounter {
  /**
   * Counts one send to the connection in the window of epoch second `second`, on counter
   * `shard`: the window's count on that shard, this send included. One atomic write.
   */
  increment(connectionId: string, second: number, shard: number): Promise<number>;
}

/** One counter item as read back: its second, its shard and the sends counted in it. */
export interface RateWindowCount {
  second: number;
  shard: number;
  sends: number;
}

/**
 * The rate-limit windows read back (the console's "waiting for the rate limit", docs/design.md §4
 * "Rate limits").
 */
export interface RateWindowReader {
  /** The counts of these windows of a connection; a window nothing was counted in is left out. */
  read(
    connectionId: string,
    windows: ReadonlyArray<{ second: number; shard: number }>,
  ): Promise<RateWindowCount[]>;
}

export interface ConnectionStore {
  /** The connection, or undefined when it does not exist. */
  get(connectionId: string): Promise<Connection | undefined>;
  /** Every connection of an application (enabled or not). */
  listByApplication(applicationId: string): Promise<Connection[]>;
  /**
   * The connection read past any cache (and the cache refreshed with it); absent on a store
   * with no cache, whose `get` is always fresh.
   */
  fresh?(connectionId: string): Promise<Connection | undefined>;
}

export interface SigningSecrets {
  /** The secret that signs deliveries of this connection (the version it names). */
  current(connection: Connection): Promise<string>;
}

export interface HttpSender {
  /** Sends one request; never throws for receiver-side problems, it reports them. */
  send(request: OutboundRequest): Promise<AttemptResult>;
}

export interface RetryScheduler {
  schedule(delivery: DeliveryMessage, delaySeconds: number): Promise<void>;
}

export interface DeadLetters {
  put(letter: DeadLetter): Promise<void>;
}

/**
 * What an attempt-log write did. A record is never replaced: `duplicate` when the same
 * record was already there (a redelivered write, nothing to do), `conflict` when a different
 * record holds its key (the new one is refused and the caller logs it).
 */
export type AppendOutcome = 'written' | 'duplicate' | 'conflict';

export interface AttemptLog {
  /**
   * Writes the record unless its key is taken (a conditional write). `shards`: its connection's
   * shard steps, when the caller holds the connection; else the log looks them up.
   */
  append(record: AttemptRecord, shards?: readonly AttemptShardStep[]): Promise<AppendOutcome>;
}

/** Where an attempt record goes when the attempt log cannot take it right now. */
export interface AttemptLogFallback {
  defer(record: AttemptRecord): Promise<void>;
}

export interface Clock {
  now(): number;
  /**
   * Resolves after `ms` milliseconds of this clock (a rate-limited send waiting for its slot,
   * core/rate-limit.ts). Absent: a timer of the runtime.
   */
  sleep?(ms: number): Promise<void>;
}

/** Structured logger; fields are merged into the JSON line. */
export interface Log {
  /**
   * Whether a `debug` line would be written now. The core asks before building a line only
   * DEBUG shows (one per successful delivery); without it, it always builds the line.
   */
  debugEnabled?(): boolean;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What the dispatcher counts: the core records facts (core/metrics.ts), the adapter owns the
 * wire format and the names (adapters/metrics: one EMF document set per invocation in Lambda,
 * Prometheus counters in local mode). Recording never throws and never waits.
 */
export interface Metrics {
  /** The facts of one moment, together (a settled attempt's attempt, result and latency). */
  record(...facts: MetricFact[]): void;
}

/** Which attempt a span is of: ids only, never a URL, a header, a body or a secret. */
export interface SpanIds {
  connectionId: string;
  deliveryId: string;
  attempt: number;
}

/** Port: spans of the attempts. Nothing of it reaches the receiver (no trace header is sent). */
export interface Tracing {
  /**
   * Opens the span of one attempt, annotated with its ids and, when its event carried one, the
   * publisher's trace (`traceparent`, core/trace-context.ts).
   */
  attempt(ids: SpanIds, publisher?: string): AttemptSpan;
}

export interface AttemptSpan {
  /** The trace the span belongs to, kept in the attempt record; undefined when there is none or it is not sampled. */
  readonly traceId?: string;
  /** Closes the span with the attempt's outcome, or marked failed by the error that ended it. */
  end(outcome: Outcome | undefined, error?: unknown): void;
}

/** Port: the parked-deliveries store, as the dispatcher writes it. */
export interface ParkedDeliveries {
  /** Stores (or replaces, for a delivery parked again after a recovery) one parked delivery. */
  park(item: ParkedItem): Promise<void>;
}

/** Port: where operational events go (SNS deployed; local mode prints and keeps them too). */
export interface OperationalEvents {
  publish(event: OperationalEvent): Promise<void>;
}

/**
 * What a conditional health write did: `conflict` when another writer changed the health
 * since it was read (nothing written), `missing` when the connection no longer exists.
 */
export type HealthWrite = 'written' | 'conflict' | 'missing';

/** Where health is kept. `write` is conditional on the version read. */
export interface HealthStore {
  read(connectionId: string): Promise<ConnectionHealth | undefined>;
  /** Writes `next` if the version is still `expectedVersion` (0: none yet); `enable`: enables it too (core/probes.ts). */
  write(
    connectionId: string,
    next: ConnectionHealth,
    expectedVersion: number,
    enable?: boolean,
  ): Promise<HealthWrite>;
}

export interface HealthTracker {
  /** A delivery of this connection exhausted its chain (its last attempt failed). */
  exhausted(connection: Connection): Promise<void>;
  /** An attempt to this connection was delivered. */
  delivered(connection: Connection): Promise<void>;
  /** A recovery check's result, or its chain stopped (core/prober.ts); never counted as a failure. */
  probed?(
    connection: Connection,
    event: Exclude<ProbeEvent, { kind: 'exhausted' | 'delivered' }>,
  ): Promise<void>;
}

export interface HealthTrackerDeps {
  health: HealthStore;
  events: OperationalEvents;
  clock: Clock;
  log: Log;
  /** Counts transitions and failed health writes. Absent: nothing is counted. */
  metrics?: Metrics;
  /** Where recovery checks are queued. Absent: none is (recovery probes are off). */
  probes?: ProbeQueue;
}
