/**
 * What the dispatcher counts, as facts: an attempt with its outcome, status class and duration,
 * a delivery's final result and latency, a retry scheduled and how late it started, a dead
 * letter with its reason, a health transition, a failed dependency, an attempt record deferred,
 * a sender resend, a blocked destination, a rate-limit deferral. The core records them through the Metrics port (ports.ts); the deliveries in flight
 * are a gauge the adapters sample from the dispatcher instead (limiter.ts). The adapters own the
 * wire format (adapters/metrics: CloudWatch EMF in Lambda, Prometheus text in local mode) and
 * the names (adapters/metrics/catalogue.ts). docs/operations.md "Metrics" says what each means.
 */

import { InfrastructureError } from './errors';
import type { HealthState } from './health';
import type { ParkReason } from './parking';
import type { DeadLetterReason, Outcome } from './types';

/** The AWS dependencies whose failures are counted, each by name. */
export const DEPENDENCIES = ['dynamodb', 'sqs', 'secrets', 'sns'] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

/**
 * Where a delivery ended. Each delivery counts one of `delivered`, `parked`, `dead_lettered`
 * once, when its first chain of attempts ends (a test send none). A later chain an operator
 * starts (recover, redrive, resend: `chainStart` above 1) counts `recovered` when it reaches a
 * 2xx, and nothing here when it fails again (Parked and DeadLetters count that).
 */
export const FINAL_RESULTS = ['delivered', 'parked', 'dead_lettered', 'recovered'] as const;
export type FinalResult = (typeof FINAL_RESULTS)[number];

/** The outcomes of a request sent (refusals send none, so have no duration). */
export const SENT_OUTCOMES = ['delivered', 'http_error', 'timeout', 'network_error'] as const;

export type MetricFact =
  /** One attempt record settled: a request sent (its response's status, if any), or a refusal (no request, no duration). */
  | { kind: 'attempt'; outcome: Outcome; statusCode?: number; durationMs?: number }
  | { kind: 'final'; result: 'delivered' | 'dead_lettered' | 'recovered' }
  | { kind: 'final'; result: 'parked'; reason: ParkReason }
  /** A later chain parked again: a park (Parked), not a second final result. */
  | { kind: 'parkedAgain'; reason: ParkReason }
  /** Publish (or, without a publish time, the first attempt) to the 2xx. */
  | { kind: 'latency'; ms: number }
  | { kind: 'retry' }
  /** An attempt of a message that was due (a retry, a deferred delivery) started this long after (never negative). */
  | { kind: 'retryLag'; ms: number }
  /** A message or delivery written to the dead-letter queue. */
  | { kind: 'deadLetter'; reason: DeadLetterReason }
  | { kind: 'health'; state: HealthState }
  | { kind: 'infrastructure'; dependency: Dependency }
  | { kind: 'attemptLogDeferred' }
  | { kind: 'senderResend' }
  /** One deferral: a delivery put back to wait for its connection's rate limit (one delivery may defer many times). */
  | { kind: 'rateLimitDeferral' }
  | { kind: 'blocked' }
  /** A recovery check sent (core/prober.ts), and one that delivered: its connection recovered by itself. */
  | { kind: 'recoveryCheck' }
  | { kind: 'recovery' };

const DEPENDENCY_OF_PORT: Readonly<Record<string, Dependency>> = {
  connections: 'dynamodb',
  attemptLog: 'dynamodb',
  parked: 'dynamodb',
  health: 'dynamodb',
  scheduler: 'sqs',
  deadLetters: 'sqs',
  attemptLogFallback: 'sqs',
  probes: 'sqs',
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
export function countFailure(
  metrics: { record(...facts: MetricFact[]): void } | undefined,
  error: unknown,
): void {
  if (!metrics || !(error instanceof InfrastructureError)) return;
  const dependency = dependencyOf(error.operation);
  if (dependency) metrics.record({ kind: 'infrastructure', dependency });
}
