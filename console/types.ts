/**
 * The management API's shapes as the console reads them (DESIGN.md §8). Kept by hand next to
 * the API's route definitions; test/unit/console-types.test.ts checks every field named here
 * against docs/openapi.json so the two cannot drift apart silently.
 */

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

/** A connection as the API shows it: never its secret. */
export interface Connection {
  connectionId: string;
  applicationId: string;
  type: 'webhook';
  name: string;
  url: string;
  method: Method;
  headers: Record<string, string>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ConnectionInput {
  name: string;
  url: string;
  method: Method;
  /** Replaces the whole set of custom headers; absent leaves them as they are. */
  headers?: Record<string, string>;
  enabled?: boolean;
}

/** One attempt of one delivery (the attempt log, DESIGN.md §5). */
export interface Attempt {
  deliveryId: string;
  attempt: number;
  eventId: string;
  connectionId: string;
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
}

export interface Page<T> {
  data: T[];
  nextCursor?: string | null;
}

/** One time bucket of `…/stats`: counts by outcome and latency percentiles. */
export interface StatsBucket {
  start: string;
  counts: Partial<Record<Outcome, number>>;
  p50Ms?: number | null;
  p95Ms?: number | null;
}

export interface Stats {
  bucketSeconds: number;
  buckets: StatsBucket[];
}

export interface AttemptFilters {
  outcome?: Outcome | '';
  since?: string;
  until?: string;
  final?: '' | 'true' | 'false';
}

/** The API's error body: `{ error: { code, message, field? } }`. */
export interface ApiErrorBody {
  error: { code: string; message: string; field?: string };
}
