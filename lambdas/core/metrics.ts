/**
 * What the dispatcher counts, as facts: an attempt with its outcome, status class and duration,
 * a final result, a delivery's latency, a retry scheduled, a dead letter with its reason, a
 * health transition, a failed dependency, an attempt record deferred, a sender resend, a blocked
 * destination. The core records them through the Metrics port (ports.ts); the adapters own the
 * wire format (adapters/metrics: CloudWatch EMF in Lambda, Prometheus text in local mode) and
 * the names (adapters/metrics/catalogue.ts).
 */

import { InfrastructureError } from './errors';
import type { HealthState } from './health';
import type { ParkReason } from './parking';
import type { DeadLetterReason, Outcome } from './types';

/** The AWS dependencies whose failures are counted, each by name. */
export const DEPENDENCIES = ['dynamodb', 'sqs', 'secrets', 'sns'] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

/** A response's status class; `none` when no response came (timeout, network error, refusal). */
/**
 * A response's status class: `other` for a status outside 200-599 that a receiver answered with
 * (an interim 1xx as final, or 600-999: an `http_error` all the same), `none` for no response.
 */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'other', 'none'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Where a delivery ended: each delivery ends once in one of these (a test send in none). */
export const FINAL_RESULTS = ['delivered', 'parked', 'dead_lettered'] as const;
export type FinalResult = (typeof FINAL_RESULTS)[number];

export type MetricFact =
  /** One attempt record settled: a request sent, or a refusal (no request, no duration). */
  | { kind: 'attempt'; outcome: Outcome; statusClass: StatusClass; durationMs?: number }
  | { kind: 'final'; result: 'delivered' | 'dead_lettered' }
  | { kind: 'final'; result: 'parked'; reason: ParkReason }
  /** Publish (the ingress message's sent time) to the 2xx, for a delivery that carries it. */
  | { kind: 'latency'; ms: number }
  | { kind: 'retry' }
  /** A message or delivery written to the dead-letter queue. */
  | { kind: 'deadLetter'; reason: DeadLetterReason }
  | { kind: 'health'; state: HealthState }
  | { kind: 'infrastructure'; dependency: Dependency }
  | { kind: 'attemptLogDeferred' }
  | { kind: 'senderResend' }
  /** A delivery put back on the retry queue to wait for its connection's rate limit (not an attempt). */
  | { kind: 'rateLimitDeferral' }
  | { kind: 'blocked' };

/** The status class of a response status; `none` without a response (or outside 200-599). */
export function statusClassOf(status: number | undefined): StatusClass {
  if (status === undefined) return 'none';
  if (status < 200 || status > 599) return 'other';
  return `${Math.floor(status / 100)}xx` as StatusClass;
}

const DEPENDENCY_OF_PORT: Readonly<Record<string, Dependency>> = {
  connections: 'dynamodb',
  attemptLog: 'dynamodb',
  parked: 'dynamodb',
  health: 'dynamodb',
  scheduler: 'sqs',
  deadLetters: 'sqs',
  attemptLogFallback: 'sqs',
  secrets: 'secrets',
  events: 'sns',
};

/**
 * The dependency behind an operation of core/errors.ts `infra` (`connections.get` → dynamodb),
 * or undefined for one that is not a dependency (`invocation`: the deadline).
 */
export function dependencyOf(operation: string): Dependency | undefined {
  return DEPENDENCY_OF_PORT[operation.slice(0, operation.indexOf('.'))];
}

/**
 * Counts a failure the core caught or is about to report for redelivery: an infrastructure
 * error names its operation, and so its dependency; anything else (the deadline, a bug) is not
 * a dependency's failure and counts nothing here.
 */
export function countFailure(metrics: { record(fact: MetricFact): void } | undefined, error: unknown): void {
  if (!metrics || !(error instanceof InfrastructureError)) return;
  const dependency = dependencyOf(error.operation);
  if (dependency) metrics.record({ kind: 'infrastructure', dependency });
}
