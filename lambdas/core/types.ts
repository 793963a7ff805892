/** Domain types and the ports the delivery core declares (docs/design.md §2, rule 1). */

import type { ConnectionView } from '../shapes/connection-types';
import type { AttemptView } from '../shapes/resource-types';
import type { ALLOWED_METHODS } from './constants';
import type { ConnectionHealth } from './health';

export type HttpMethod = (typeof ALLOWED_METHODS)[number];

/** Free-form user metadata: string keys to scalar values (docs/design.md §3). */
export type Metadata = Record<string, string | number | boolean | null>;

/** docs/protocol.md §2 user object. Unknown fields are omitted, never null. */
export interface User {
  id: string;
  email?: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  metadata?: Metadata;
  createdAt?: string;
  updatedAt?: string;
}

export interface Application {
  id: string;
  name: string;
}

/** docs/protocol.md §2 delivery payload, serialised once in this field order. */
export interface UserIdentifiedPayload {
  event: 'user.identified';
  timestamp: string;
  user: User;
  application: Application;
}

/** Published by upstream services; fanned out by the dispatcher (docs/design.md §3). */
export interface EventMessage {
  v: 1;
  type: 'event';
  eventId: string;
  event: 'user.identified';
  occurredAt: string;
  user: User;
  application: Application;
  /** Target only these connections; absent means every enabled webhook connection of the application. */
  connectionIds?: string[];
}

/** What the dispatcher knows of a delivery's event, from its body: every attempt record repeats it. */
export interface EventFacts {
  applicationId: string;
  userId: string;
  event: string;
}

/** One delivery to one connection; written by the dispatcher for each retry and by redrive. */
export interface DeliveryMessage {
  v: 1;
  type: 'delivery';
  deliveryId: string;
  eventId: string;
  connectionId: string;
  /** 1-based number of the attempt this message asks for. */
  attempt: number;
  /** Attempt number that started the current chain of 4 (1, or the first attempt after a redrive). */
  chainStart?: number;
  /** The exact JSON text sent as the request body, identical on every attempt. */
  body: string;
  firstAttemptAt: string;
  /**
   * When the event was published (its ingress message's SQS sent time), carried across
   * retries to measure delivery latency. Absent on messages written before it existed, and
   * on test sends: their deliveries count no latency.
   */
  publishedAt?: string;
  /**
   * When a retry or a rate-limit deferral was due to start (set as it is put on the retry
   * queue): how late its attempt started is RetryStartLag. Absent on every other message.
   */
  dueAt?: string;
  /** The publisher's trace context (W3C `traceparent`), carried from the event to every attempt's span. */
  traceparent?: string;
  /** Set on dashboard test sends: logged with `test: true`, never retried. */
  test?: boolean;
  /**
   * Set on a recovery check (core/prober.ts): one attempt, its own chain's last, logged with
   * `trigger: 'probe'`; never a retry queue message (the check runs where its probe message is read).
   */
  probe?: true;
}

/**
 * An attempt-log item that could not be written when the attempt happened. The dispatcher queues it
 * instead of failing the record, so the attempt is never sent twice (docs/design.md §4 "Order after
 * an attempt").
 */
export interface AttemptLogMessage {
  v: 1;
  type: 'attempt-log';
  record: AttemptRecord;
}

/** A recovery check of one connection (core/probes.ts), queued on the retry queue with a delay (re-delayed past 15 min). */
export interface ProbeMessage {
  v: 1;
  type: 'probe';
  connectionId: string;
  /** The chain step it is for: a message whose step the health no longer holds is stale. */
  seq: number;
  /** When the check is due (ISO time). */
  dueAt: string;
}

export type QueueMessage = EventMessage | DeliveryMessage | AttemptLogMessage | ProbeMessage;

/**
 * A webhook connection as stored (docs/design.md §5): the fields the API shows, declared once in
 * lambdas/shapes/connection.ts (its types without zod, connection-types.ts), with their real header
 * values, plus what is stored and never shown.
 */
export interface Connection extends Omit<ConnectionView, 'health'> {
  secretArn: string;
  /** Endpoint health (docs/design.md §9), written by dispatchers; absent until the first failure. */
  health?: ConnectionHealth;
  /**
   * The attempt-log shard counts this connection has had, oldest first (docs/design.md §5
   * "Shards", core/attempt-shards.ts). Absent: one unsharded partition, as before sharding.
   */
  attemptShards?: AttemptShardStep[];
}

/** From `from` on, a connection's new deliveries are spread over `count` attempt-log partitions. */
export interface AttemptShardStep {
  count: number;
  /** ISO time: deliveries created (the time in their id) at or after it use this count. */
  from: string;
}

/** What one HTTP attempt produced, before any decision is taken. */
export type AttemptResult =
  | { kind: 'response'; status: number; snippet: string; durationMs: number }
  | { kind: 'timeout'; durationMs: number; error: string }
  | { kind: 'network'; durationMs: number; error: string }
  | { kind: 'blocked'; durationMs: number; error: string }
  /** Nothing was sent: the connection itself rules the delivery out (missing, disabled, invalid, refused). */
  | { kind: 'refused'; reason: RefusalReason; durationMs: 0; error: string };

/** Why a delivery is refused before any request is made. */
export type RefusalReason = Extract<
  DeadLetterReason,
  'blocked' | 'connection_missing' | 'connection_disabled' | 'connection_invalid'
>;

/** Every outcome an attempt can have (the attempt log, the API and the console use this list). */
export const OUTCOMES = [
  'delivered',
  'http_error',
  'timeout',
  'network_error',
  'blocked',
  'rejected',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Why a delivery or message ended in the dead-letter queue. */
export const DEAD_LETTER_REASONS = [
  'exhausted',
  'blocked',
  'connection_missing',
  'connection_disabled',
  'connection_invalid',
  'invalid_message',
  'invalid_payload',
] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** The single decision taken after an attempt (docs/design.md §2, rule 4). */
export type Decision =
  | { action: 'done'; outcome: 'delivered' }
  | { action: 'retry'; outcome: Outcome; delaySeconds: number }
  | { action: 'dead-letter'; outcome: Outcome; reason: DeadLetterReason }
  /** A test send that failed: final, reported to its caller, never retried or dead-lettered. */
  | { action: 'report'; outcome: Exclude<Outcome, 'delivered'> };

/** Body of a message on the dead-letter queue written by the dispatcher. */
export interface DeadLetter {
  v: 1;
  type: 'dead-letter';
  reason: DeadLetterReason;
  /** Human-readable last error, free of secrets. */
  error: string;
  failedAt: string;
  /** The delivery, with `attempt` = the last attempt made; absent for poison messages. */
  delivery?: DeliveryMessage;
  /** The original message text when it could not be parsed into a delivery (its first 256 KiB if larger). */
  source?: string;
  /** Size in bytes of the original message text, present only when `source` was cut short. */
  sourceBytes?: number;
  /**
   * The queue a poison message arrived on, so a redrive returns it there (absent on older
   * letters and on deliveries, whose queue is the retry queue).
   */
  sourceQueue?: 'ingress' | 'retry';
}

/**
 * One attempt's record as the attempt log keeps it: the API's `Attempt`, declared once as the
 * schema the API shows it with (lambdas/api/delivery-schemas.ts, written out without zod in
 * shapes/resource-types.ts), plus the body. Its request headers are as they went out, in order,
 * a custom header's value reading {@link HIDDEN_HEADER_VALUE} (docs/design.md §5); its trace id
 * only when the dispatcher runs with tracing on.
 */
export type AttemptRecord = AttemptView & {
  /**
   * The exact body text, on the record of a delivery's first attempt only (once per delivery,
   * not per attempt), and only when the stack keeps it (`keepBodies`, docs/design.md §5).
   */
  body?: string;
};

/** One request header of an attempt as it went out (a custom header's value hidden). */
export type RequestHeader = NonNullable<AttemptView['requestHeaders']>[number];

export { HIDDEN_HEADER_VALUE } from './constants';

/** Which delivery bodies the attempt log keeps: every delivery's, or only those that failed an attempt. */
export const KEEP_BODIES = ['all', 'failures'] as const;
export type KeepBodies = (typeof KEEP_BODIES)[number];

/** Every field an attempt record may hold: what the retry queue's attempt-log messages are checked against and what views show. */
export const ATTEMPT_RECORD_FIELDS = [
  'deliveryId',
  'attempt',
  'eventId',
  'connectionId',
  'applicationId',
  'userId',
  'event',
  'method',
  'target',
  'requestedAt',
  'durationMs',
  'outcome',
  'statusCode',
  'responseSnippet',
  'error',
  'nextAttemptAt',
  'final',
  'test',
  'traceId',
  'sendId',
  'expiresAt',
  'requestHeaders',
  'body',
  'resentAs',
  'trigger',
] as const satisfies readonly (keyof AttemptRecord)[];

/** A request ready to send. */
export interface OutboundRequest {
  method: HttpMethod;
  /**
   * The receiver's URL, parsed once when its connection was checked (core/attempt.ts keeps it
   * with the check), so the sender neither parses nor caches it.
   */
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Whose delivery a claim is: one event of one application, to one connection. */
export interface ClaimKey {
  applicationId: string;
  eventId: string;
  connectionId: string;
}

/**
 * What claiming a delivery found. `timeMs` is the delivery id's time, fixed when the event was
 * first seen. `claimed`: send it (first sight, or an earlier send's lease ran out: it crashed);
 * `settled`: an earlier publish's delivery was attempted or handed on, never sent again;
 * `busy`: another send holds it until its lease ends.
 */
export interface Claim {
  kind: 'claimed' | 'settled' | 'busy';
  timeMs: number;
  /** When the claim expires (epoch s), when the store said: a deferred settlement keeps it. */
  expiresAtS?: number;
}
