/**
 * Every metric the system emits, by name: the one list the metrics adapters (EMF in Lambda,
 * Prometheus text in local mode), the stack's dashboard and alarms, and docs/operations.md
 * agree on. A widget or alarm may name only a metric listed here (test/infra checks it), so a
 * metric cannot be dropped from an adapter while something still watches it.
 *
 * CloudWatch: namespace `Webhooks`; every metric carries the `Stack` dimension and at most one
 * more, from a bounded set of values. Never a connection or application id as a dimension
 * (each distinct value is a billed metric): ids travel as EMF properties instead.
 */

import { HEALTH_STATES } from '../../core/health';
import { DEPENDENCIES, FINAL_RESULTS, SENT_OUTCOMES } from '../../core/metrics';
import { PARK_REASONS } from '../../core/parking';
import { DEAD_LETTER_REASONS, OUTCOMES } from '../../core/types';

/** CloudWatch namespace of every custom metric. */
export const METRICS_NAMESPACE = 'Webhooks';

/** The dimension every custom metric carries: the stack's name, so two stacks in one account stay apart. */
export const STACK_DIMENSION = 'Stack';

/**
 * A response's status class: `other` for a status outside 200-599 that a receiver answered with
 * (an interim 1xx as final, or 600-999: an `http_error` all the same), `none` for no response.
 */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'other', 'none'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** The one further dimension a metric may carry, with its bounded values. */
export const METRIC_DIMENSIONS = {
  Outcome: OUTCOMES,
  StatusClass: STATUS_CLASSES,
  Result: FINAL_RESULTS,
  /** A dead letter's reason (DeadLetters) or a parked delivery's (Parked, a subset). */
  Reason: DEAD_LETTER_REASONS,
  State: HEALTH_STATES,
  Dependency: DEPENDENCIES,
  Queue: ['ingress', 'retry'],
} as const;

export type MetricDimension = keyof typeof METRIC_DIMENSIONS;

export interface CloudWatchMetric {
  /** CloudWatch metric name. */
  name: string;
  unit: 'Count' | 'Milliseconds';
  /**
   * A level, not a count: EMF writes each invocation's highest (read its Maximum); Prometheus a
   * gauge of the current level.
   */
  gauge?: true;
  /** The dimension sets it is emitted with, besides `[Stack]` alone (always emitted). */
  by: readonly MetricDimension[];
  /**
   * The values of a dimension of `by` this metric is emitted with, when only some of
   * {@link METRIC_DIMENSIONS}' (each emitted value is a billed metric: docs/cost.md counts these).
   */
  values?: { readonly [D in MetricDimension]?: readonly (typeof METRIC_DIMENSIONS)[D][number][] };
  /** Prometheus name in local mode's `GET /metrics`. */
  prometheus: string;
  help: string;
}

/**
 * The dispatcher's metrics. `by` lists the second dimensions a metric is also emitted with,
 * each as its own dimension set `[Stack, X]` (one EMF document, several sets).
 */
export const CLOUDWATCH_METRICS = {
  attempts: {
    name: 'Attempts',
    unit: 'Count',
    by: ['Outcome', 'StatusClass'],
    prometheus: 'webhooks_attempts_total',
    help: 'HTTP attempts (and refusals) by outcome and response status class',
  },
  attemptDuration: {
    name: 'AttemptDuration',
    unit: 'Milliseconds',
    by: ['Outcome'],
    // A refusal sends no request, so has no duration.
    values: { Outcome: SENT_OUTCOMES },
    prometheus: 'webhooks_attempt_duration_seconds',
    help: 'Time from the request to the response (or its failure), per request sent, by outcome',
  },
  deliveries: {
    name: 'Deliveries',
    unit: 'Count',
    by: ['Result'],
    prometheus: 'webhooks_deliveries_total',
    help: 'Each delivery once when its first chain ends (delivered, parked, dead_lettered); recovered: a later chain (recover, redrive, resend) that reached a 2xx',
  },
  parked: {
    name: 'Parked',
    unit: 'Count',
    by: ['Reason'],
    // A delivery is parked for 3 of the dead-letter reasons only (core/parking.ts).
    values: { Reason: PARK_REASONS },
    prometheus: 'webhooks_parked_total',
    help: 'Deliveries parked, by reason',
  },
  deliveryLatency: {
    name: 'DeliveryLatency',
    unit: 'Milliseconds',
    by: [],
    prometheus: 'webhooks_delivery_latency_seconds',
    help: 'Time from publish (the ingress sent time, carried across retries, recoveries and redrives; a resend: its first attempt) to the 2xx, per delivered or recovered delivery',
  },
  retriesScheduled: {
    name: 'RetriesScheduled',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_retries_scheduled_total',
    help: 'Retries put on the retry queue with their delay',
  },
  retryStartLag: {
    name: 'RetryStartLag',
    unit: 'Milliseconds',
    by: [],
    prometheus: 'webhooks_retry_start_lag_seconds',
    help: 'How late a retry or rate-limit deferral started: from the time it was due to when its attempt started',
  },
  deliveriesInFlight: {
    name: 'DeliveriesInFlight',
    unit: 'Count',
    gauge: true,
    by: [],
    prometheus: 'webhooks_deliveries_in_flight',
    help: 'Deliveries holding a slot among the attempts in flight (signing, sending, settling); EMF: the highest of each invocation',
  },
  deadLetters: {
    name: 'DeadLetters',
    unit: 'Count',
    by: ['Reason'],
    prometheus: 'webhooks_dead_letters_total',
    help: 'Messages and deliveries written to the dead-letter queue, by reason',
  },
  healthTransitions: {
    name: 'HealthTransitions',
    unit: 'Count',
    by: ['State'],
    prometheus: 'webhooks_health_transitions_total',
    help: 'Endpoint health changes, by the state entered',
  },
  infrastructureFailures: {
    name: 'InfrastructureFailures',
    unit: 'Count',
    by: ['Dependency'],
    prometheus: 'webhooks_infrastructure_failures_total',
    help: 'Calls to an AWS dependency that failed (the record is retried by SQS)',
  },
  attemptLogDeferred: {
    name: 'AttemptLogDeferred',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_attempt_log_deferred_total',
    help: 'Attempt records queued for a later write because the table refused them',
  },
  senderResends: {
    name: 'SenderResends',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_sender_resends_total',
    help: 'Requests re-sent on a fresh connection after a reused one was closed unused',
  },
  blockedDestinations: {
    name: 'BlockedDestinations',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_blocked_destinations_total',
    help: 'Destinations the egress policy refused (private, metadata or non-public addresses)',
  },
  rateLimitDeferrals: {
    name: 'RateLimitDeferrals',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_rate_limit_deferrals_total',
    help: 'Deferrals, not deliveries: each time a delivery was put back to wait for its connection rate limit (no attempt made)',
  },
  recoveryChecks: {
    name: 'RecoveryChecks',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_recovery_checks_total',
    help: 'Recovery checks sent: the oldest parked delivery of a down endpoint, sent again on the probe schedule',
  },
  recoveries: {
    name: 'Recoveries',
    unit: 'Count',
    by: [],
    prometheus: 'webhooks_recoveries_total',
    help: 'Recovery checks that delivered: the connection recovered its parked deliveries with no command',
  },
} as const satisfies Record<string, CloudWatchMetric>;

export type MetricKey = keyof typeof CLOUDWATCH_METRICS;

/** Local mode's gauges, read from the queues when `/metrics` is scraped. */
export const PROMETHEUS_GAUGES = {
  queueDepth: {
    prometheus: 'webhooks_queue_depth',
    help: 'Messages on a queue by state (visible, delayed, in_flight), per queue including the DLQ',
  },
  queueOldestAge: {
    prometheus: 'webhooks_queue_oldest_age_seconds',
    help: 'Age of the oldest message on a queue',
  },
} as const;
