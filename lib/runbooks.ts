/** Where every alarm's runbook lives: a heading of this file per alarm. */
export const RUNBOOK_FILE = 'docs/operations.md';

/**
 * Each runbook's anchor in {@link RUNBOOK_FILE} (the GitHub anchor of its heading,
 * `### Alarm: …`). Stable: operators bookmark them, and the alarm descriptions link them.
 * One runbook may serve several alarms (one per table, one per burn rate).
 */
export const RUNBOOKS = {
  deadLetterQueue: 'alarm-dead-letter-queue-not-empty',
  deadLetterArrivals: 'alarm-new-dead-letters',
  deadLetterAge: 'alarm-dead-letters-near-expiry',
  oldestMessageAge: 'alarm-oldest-message-age',
  queueDepth: 'alarm-queue-depth',
  trafficStopped: 'alarm-traffic-stopped',
  dispatcherErrors: 'alarm-dispatcher-errors',
  dispatcherThrottles: 'alarm-dispatcher-throttles',
  dispatcherDuration: 'alarm-dispatcher-duration-near-its-timeout',
  dispatcherConcurrency: 'alarm-concurrency-near-its-limit',
  eventSourceFailures: 'alarm-event-source-failures',
  tableThrottles: 'alarm-dynamodb-throttles',
  tableSystemErrors: 'alarm-dynamodb-system-errors',
  infrastructureFailures: 'alarm-infrastructure-failures',
  attemptLogDeferred: 'alarm-attempt-log-writes-deferred',
  blockedDestinations: 'alarm-blocked-destinations',
  fleetFailure: 'alarm-fleet-failure',
  deliverySuccess: 'alarm-delivery-success-burn-rate',
  deliveryLatency: 'alarm-delivery-latency-burn-rate',
  managementApi5xx: 'alarm-management-api-5xx',
} as const;
export type RunbookName = keyof typeof RUNBOOKS;
