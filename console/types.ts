/**
 * The management API's shapes as the console reads them (docs/design.md §8). A connection's are
 * the API's own, derived from its one declaration (lambdas/shapes/connection.ts, through
 * connection-types.ts, its types written out without zod). The rest are kept by hand next to the API's route definitions;
 * test/unit/console/types.test.ts checks every field named here against docs/openapi.json so
 * the two cannot drift apart silently.
 */

import type { ConnectionView, HealthView, UpdateConnectionRequest } from '../lambdas/shapes/connection-types';

export const METHODS = ['POST', 'PUT', 'PATCH'] as const;
export type Method = (typeof METHODS)[number];

export const OUTCOMES = [
  'delivered',
  'http_error',
  'timeout',
  'network_error',
  'blocked',
  'rejected',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const HEALTH_STATES = ['healthy', 'failing', 'disabled'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** Endpoint health (docs/design.md §9): written by the dispatcher on failures and state changes. */
export type Health = HealthView;

export const PARK_REASONS = ['exhausted', 'connection_disabled', 'blocked'] as const;
export type ParkReason = (typeof PARK_REASONS)[number];

/** A delivery kept for the customer to send again: never its body. */
export interface ParkedDelivery {
  deliveryId: string;
  connectionId: string;
  applicationId: string;
  eventId: string;
  reason: ParkReason;
  lastError?: string;
  lastOutcome?: Outcome;
  lastStatusCode?: number;
  /** Attempts made so far; a retry continues after them. */
  attempts: number;
  parkedAt: string;
}

export interface RecoverResult {
  requeued: number;
  remaining: number;
}

export interface RetryResult {
  requeued: true;
  connectionId: string;
}

/** A connection as the API shows it: never its secret; each custom header's value reads `[hidden]`. */
export type Connection = ConnectionView;

/** GET …/connections/{id}/rate-limit: the limit that applies and the last minute, from the dispatchers' counters. */
export interface RateLimitActivity {
  /** Deliveries per second; null: no limit applies. */
  rateLimit: number | null;
  source: 'connection' | 'default' | 'none';
  seconds: number;
  sent: number;
  /** Deferrals in those seconds (a delivery deferred twice counts twice). */
  deferred: number;
  /** A deferral in the last 15 s: deliveries are waiting for the rate limit now. */
  waiting: boolean;
  lastDeferredAt?: string;
}

/**
 * What the connection form sends, to create or to update: the update body with name, URL and
 * method always set. `headers` is the complete new set; on update a null value keeps that
 * header's stored value (values are never shown); `rateLimit: null` removes the connection's own.
 */
export type ConnectionInput = UpdateConnectionRequest & Pick<Connection, 'name' | 'url' | 'method'>;

/** One attempt of one delivery (the attempt log, docs/design.md §5). */
export interface Attempt {
  deliveryId: string;
  attempt: number;
  eventId: string;
  connectionId: string;
  applicationId: string;
  userId: string;
  event: string;
  method: string;
  target: string;
  requestedAt: string;
  durationMs: number;
  outcome: Outcome;
  statusCode?: number;
  responseSnippet?: string;
  error?: string;
  nextAttemptAt?: string;
  final: boolean;
  test?: boolean;
  /** The attempt's X-Ray trace id, when the dispatcher runs with tracing on. */
  traceId?: string;
  expiresAt: number;
  /** The request headers as sent, in order; a custom header's value reads `[hidden]`. */
  requestHeaders?: Array<{ name: string; value: string }>;
  /** A Resend queued the delivery again after this attempt, as this attempt number. */
  resentAs?: number;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type OutcomeCounts = Record<Outcome, number>;
export interface Latency {
  p50: number | null;
  p95: number | null;
}

/** One time bucket of `…/stats`: counts by outcome and latency percentiles. */
export interface StatsBucket {
  start: string;
  total: number;
  outcomes: OutcomeCounts;
  latencyMs: Latency;
}

export interface Stats {
  since: string;
  until: string;
  bucketSeconds: number;
  buckets: StatsBucket[];
  totals: { total: number; outcomes: OutcomeCounts; latencyMs: Latency };
}

export const STATS_BUCKETS = ['1m', '5m', '15m', '1h', '1d'] as const;
export interface StatsWindow {
  since?: string;
  until?: string;
  bucket?: (typeof STATS_BUCKETS)[number];
}

/** Every attempt of one delivery. */
export interface Delivery {
  deliveryId: string;
  connectionId: string;
  attempts: Attempt[];
  /** The exact request body every attempt sent, when it is kept. */
  body?: string;
  /** Why the body is not shown, in words for the reader. */
  bodyUnavailable?: { reason: 'not_kept' | 'aged_out'; message: string };
}

/** What `POST …/deliveries/{id}/resend` answers: the new attempt's number. */
export interface ResendResult {
  deliveryId: string;
  connectionId: string;
  attempt: number;
}

export interface Secret {
  secret: string;
  secretVersion?: string;
}

export interface RotatedSecret extends Secret {
  previousVersion?: string;
  /** Receivers should accept the old and the new secret for this long. */
  overlapSeconds: number;
}

export interface AttemptFilters {
  outcome?: Outcome | '';
  since?: string;
  until?: string;
  final?: '' | 'true' | 'false';
}

/** What the console reads of the API's index (`GET /api/v1`, no session needed). */
export interface ApiIndex {
  /** Where the API runs: local mode or a deployed stack. */
  mode: 'local' | 'deployed';
  /** The CLI command that prints a new console link there, with `{applicationId}` to fill in. */
  consoleCommand: string;
}

/** The API's error body: `{ error: { code, message, field? } }`. */
export interface ApiErrorBody {
  error: { code: string; message: string; field?: string };
}
