/**
 * The management API's shapes as the console reads them (docs/design.md §8): the API's own,
 * derived from their one declaration, the schemas the API validates with
 * (lambdas/shapes/connection.ts, lambdas/api/schemas.ts, lambdas/api/delivery-schemas.ts),
 * through their types written out without zod (connection-types.ts, resource-types.ts). What
 * is the console's alone (filters, the form's input, the API index) is declared here;
 * test/unit/console/types.test.ts checks every field named here against docs/openapi.json.
 */

import type { ConnectionView, HealthView, UpdateConnectionRequest } from '../lambdas/shapes/connection-types';
import type {
  AttemptView,
  DeliverySummaryView,
  DeliveryView,
  ErrorView,
  ParkedView,
  RateLimitActivityView,
  RecoverResultView,
  ResendResultView,
  RetryResultView,
  RotatedSecretView,
  RotateSecretRequest,
  SecretView,
  StatsView,
} from '../lambdas/shapes/resource-types';

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
export type ParkedDelivery = ParkedView;
export type RecoverResult = RecoverResultView;
export type RetryResult = RetryResultView;

/** A connection as the API shows it: never its secret; each custom header's value reads `[hidden]`. */
export type Connection = ConnectionView;

/** GET …/connections/{id}/rate-limit: the limit that applies and the last minute, from the dispatchers' counters. */
export type RateLimitActivity = RateLimitActivityView;

/**
 * What the connection form sends, to create or to update: the update body with name, URL and
 * method always set. `headers` is the complete new set; on update a null value keeps that
 * header's stored value (values are never shown); `rateLimit: null` removes the connection's own.
 */
export type ConnectionInput = UpdateConnectionRequest & Pick<Connection, 'name' | 'url' | 'method'>;

/** One attempt of one delivery (the attempt log, docs/design.md §5). */
export type Attempt = AttemptView;

/**
 * Where a delivery stands now: delivered; retrying (a retry is scheduled, or it was sent again);
 * parked (failed for good, kept to send again); dead_lettered (failed for good, not parked);
 * failed (a test send, never retried).
 */
export const DELIVERY_STATES = ['delivered', 'retrying', 'parked', 'dead_lettered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One delivery of an application's deliveries list (`GET …/deliveries`), with where it stands now. */
export type DeliverySummary = DeliverySummaryView;

/** What the deliveries list is narrowed to: one of a user, an event, a connection (or none). */
export interface DeliveryFilters {
  userId?: string;
  eventId?: string;
  connectionId?: string;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type Stats = StatsView;
/** One time bucket of `…/stats`: counts by outcome and latency percentiles. */
export type StatsBucket = Stats['buckets'][number];
export type OutcomeCounts = StatsBucket['outcomes'];
export type Latency = StatsBucket['latencyMs'];

export const STATS_BUCKETS = ['1m', '5m', '15m', '1h', '1d'] as const;
export interface StatsWindow {
  since?: string;
  until?: string;
  bucket?: (typeof STATS_BUCKETS)[number];
}

/** Every attempt of one delivery, with its body when kept. */
export type Delivery = DeliveryView;
/** What `POST …/deliveries/{id}/resend` answers: the new attempt's number. */
export type ResendResult = ResendResultView;
/** Show Secret: the secret that signs now and, while a rotation's switch is ahead, the next one. */
export type Secret = SecretView;
/** A rotation: the new secret, and when it starts signing (now, for a switch at once). */
export type RotatedSecret = RotatedSecretView;

/** When a rotation switches: the stack's overlap (no body), or seconds from now (0: at once). */
export type RotateSecretChoice = RotateSecretRequest;

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
  /** The deployment checks a down endpoint by itself (`recoveryProbes` not turned off). */
  recoveryChecks: boolean;
}

/** The API's error body: `{ error: { code, message, field? } }`. */
export type ApiErrorBody = ErrorView;
