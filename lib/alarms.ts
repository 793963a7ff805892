import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FailingConnectionsRule } from './failing-connections';
import { METRIC_PERIOD, type WebhookMetrics } from './metrics';
import type { ResolvedAlarmThresholds } from './webhook-delivery-props';

/** Where every alarm's runbook lives: a heading of this file per alarm. */
export const RUNBOOK_FILE = 'docs/operations.md';

/**
 * Each alarm's runbook anchor in {@link RUNBOOK_FILE} (the GitHub anchor of its heading,
 * `### Alarm: …`). Stable: operators bookmark them, and the alarm descriptions link them.
 */
export const RUNBOOKS = {
  deadLetterQueue: 'alarm-dead-letter-queue-not-empty',
  oldestMessageAge: 'alarm-oldest-message-age',
  dispatcherErrors: 'alarm-dispatcher-errors',
  infrastructureFailures: 'alarm-infrastructure-failures',
  attemptLogDeferred: 'alarm-attempt-log-writes-deferred',
  blockedDestinations: 'alarm-blocked-destinations',
  fleetFailure: 'alarm-fleet-failure',
  managementApi5xx: 'alarm-management-api-5xx',
} as const;
export type AlarmName = keyof typeof RUNBOOKS;

/** What the alarms watch. */
export interface AlarmSources {
  readonly metrics: WebhookMetrics;
  readonly queue: sqs.IQueue;
  readonly retryQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly dispatcher: lambda.IFunction;
  readonly failingConnections: FailingConnectionsRule;
  readonly managementApi?: apigw.IHttpApi;
  readonly thresholds: ResolvedAlarmThresholds;
  readonly oldestMessageAge: Duration;
}

const runbook = (name: AlarmName) => ` Runbook: ${RUNBOOK_FILE}#${RUNBOOKS[name]}`;

/** One alarm on a value per period: at or above `threshold` once, missing data is not a breach. */
function atLeast(
  scope: Construct,
  id: string,
  name: AlarmName,
  description: string,
  metric: cloudwatch.IMetric,
  threshold: number,
): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription: description + runbook(name),
    metric,
    threshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/**
 * The stack's alarms, each with its runbook linked from its description (docs/operations.md,
 * "Alarms"). The management API's alarm exists only with the API.
 */
export function createAlarms(
  scope: Construct,
  s: AlarmSources,
): Partial<Record<AlarmName, cloudwatch.Alarm>> {
  const t = s.thresholds;
  const per5 = `in ${METRIC_PERIOD.toMinutes()} minutes`;
  const alarms: Partial<Record<AlarmName, cloudwatch.Alarm>> = {
    deadLetterQueue: atLeast(
      scope,
      'DeadLetterQueueNotEmpty',
      'deadLetterQueue',
      'The webhook pipeline could not process messages: they are in the dead-letter queue (poison messages, ' +
        'or infrastructure failures past maxReceiveCount). This needs an operator: inspect them (webhooks dlq list), ' +
        'fix the cause, then redrive. A customer endpoint that is down does not land here: its deliveries are parked ' +
        'per connection (webhooks connections recover).',
      s.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      1,
    ),
    oldestMessageAge: atLeast(
      scope,
      'OldestMessageAge',
      'oldestMessageAge',
      `Webhook events or retries have waited on the delivery or retry queue for ${s.oldestMessageAge.toHumanString()} ` +
        'or more: the dispatcher is failing, throttled or behind. Check its errors and throttles.',
      // Both queues: retries wait on the retry queue, and a dispatcher that stopped taking them
      // would otherwise go unnoticed while new events still flow.
      new cloudwatch.MathExpression({
        expression: 'MAX([ingress, retry])',
        usingMetrics: { ingress: oldestAge(s.queue), retry: oldestAge(s.retryQueue) },
        period: Duration.minutes(1),
        label: 'Age of the oldest message, delivery and retry queues (s)',
      }),
      s.oldestMessageAge.toSeconds(),
    ),
    dispatcherErrors: atLeast(
      scope,
      'DispatcherErrors',
      'dispatcherErrors',
      `The dispatcher function failed ${t.dispatcherErrors} or more invocations ${per5} (a crash, a timeout or ` +
        'running out of memory): its whole batch goes back to the queue and is retried by SQS.',
      s.dispatcher.metricErrors({ period: METRIC_PERIOD, statistic: cloudwatch.Stats.SUM }),
      t.dispatcherErrors,
    ),
    infrastructureFailures: atLeast(
      scope,
      'InfrastructureFailures',
      'infrastructureFailures',
      `Calls from the dispatcher to DynamoDB, SQS, Secrets Manager or SNS failed ${t.infrastructureFailures} or more ` +
        `times ${per5}: the records are retried by SQS and reach the dead-letter queue after maxReceiveCount.`,
      s.metrics.metric('infrastructureFailures'),
      t.infrastructureFailures,
    ),
    attemptLogDeferred: atLeast(
      scope,
      'AttemptLogDeferred',
      'attemptLogDeferred',
      `The attempt log refused ${t.attemptLogDeferred} or more writes ${per5}: the records wait on the retry queue ` +
        'and are written later (nothing is lost), but the table is throttled or failing.',
      s.metrics.metric('attemptLogDeferred'),
      t.attemptLogDeferred,
    ),
    blockedDestinations: atLeast(
      scope,
      'BlockedDestinations',
      'blockedDestinations',
      `The egress policy refused ${t.blockedDestinations} or more deliveries ${per5}: a connection's URL resolves ` +
        'to a private, loopback or metadata address. The deliveries are parked, nothing was sent.',
      s.metrics.metric('blockedDestinations'),
      t.blockedDestinations,
    ),
    fleetFailure: fleetFailureAlarm(scope, s),
  };
  if (s.managementApi) {
    alarms.managementApi5xx = atLeast(
      scope,
      'ManagementApi5xx',
      'managementApi5xx',
      `The management API answered ${t.managementApi5xx} or more requests with a 5xx ${per5}: the console, ` +
        'the CLI and the management library see errors.',
      s.managementApi.metricServerError({ period: METRIC_PERIOD, statistic: cloudwatch.Stats.SUM }),
      t.managementApi5xx,
    );
  }
  return alarms;
}

function oldestAge(queue: sqs.IQueue): cloudwatch.Metric {
  return queue.metricApproximateAgeOfOldestMessage({
    period: Duration.minutes(1),
    statistic: cloudwatch.Stats.MAXIMUM,
  });
}

/**
 * The metric math of the fleet failure alarm: 1 when, in one period, at least
 * `fleetFailureRatio` of all attempts failed and at least `fleetFailureConnections` distinct
 * connections had a failed attempt (Contributor Insights' `UniqueContributors` over the failure
 * log lines). One customer's outage fails many attempts of few connections: it stays 0.
 * A period with no data point counts as 0: when every attempt fails, no `delivered` count is
 * emitted at all, and arithmetic on a missing point would leave the alarm with nothing to judge.
 */
export function fleetFailureExpression(rule: FailingConnectionsRule, t: ResolvedAlarmThresholds): string {
  const attempts = 'FILL(attempts, 0)';
  return (
    `IF(${attempts} > 0 AND (${attempts} - FILL(delivered, 0)) / ${attempts} >= ${t.fleetFailureRatio} ` +
    `AND FILL(${rule.expression('UniqueContributors')}, 0) >= ${t.fleetFailureConnections}, 1, 0)`
  );
}

function fleetFailureAlarm(scope: Construct, s: AlarmSources): cloudwatch.Alarm {
  const t = s.thresholds;
  return new cloudwatch.Alarm(scope, 'FleetFailure', {
    alarmDescription:
      `${Math.round(t.fleetFailureRatio * 100)} % or more of all attempts failed across ${t.fleetFailureConnections} ` +
      `or more connections in ${METRIC_PERIOD.toMinutes()} minutes: this looks like the pipeline's own egress ` +
      '(network, DNS, TLS, the egress policy), not one customer endpoint.' +
      runbook('fleetFailure'),
    metric: new cloudwatch.MathExpression({
      expression: fleetFailureExpression(s.failingConnections, t),
      usingMetrics: {
        attempts: s.metrics.metric('attempts'),
        delivered: s.metrics.metric('attempts', { by: { name: 'Outcome', value: 'delivered' } }),
      },
      period: METRIC_PERIOD,
      label: 'Fleet failure (1: most attempts failing across many connections)',
    }),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** Sends every alarm, and its return to OK, to the topic. */
export function notifyAlarms(alarms: Iterable<cloudwatch.Alarm>, topic: sns.ITopic): void {
  const action = new SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}
