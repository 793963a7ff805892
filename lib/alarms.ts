import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { type AlarmSources, atLeast } from './alarm-sources';
import { createDeliveryObjectiveAlarms } from './delivery-objectives';
import type { FailingConnectionsRule } from './failing-connections';
import { METRIC_PERIOD } from './metrics';
import { createPlatformAlarms } from './platform-alarms';
import { createQueueAlarms } from './queue-alarms';
import type { ResolvedAlarmThresholds } from './webhook-delivery-props';

export type { AlarmSources } from './alarm-sources';
export { RUNBOOK_FILE, RUNBOOKS, type RunbookName } from './runbooks';

/**
 * Every alarm of the stack, each with its severity and its runbook linked from its description
 * (docs/operations.md, "Alarms"), routed to the paging or the ticket topic.
 */
export function createAlarms(s: AlarmSources): void {
  createPipelineAlarms(s);
  createQueueAlarms(s);
  createPlatformAlarms(s);
  createDeliveryObjectiveAlarms(s);
}

/** The pipeline's own alarms: on its metrics, the dead-letter queue and the queues' age. */
function createPipelineAlarms(s: AlarmSources): void {
  const t = s.thresholds;
  const r = s.routing;
  const per5 = `in ${METRIC_PERIOD.toMinutes()} minutes`;
  r.alarm(
    'deadLetterQueue',
    'DeadLetterQueueNotEmpty',
    'ticket',
    'deadLetterQueue',
    'The dead-letter queue holds messages the pipeline could not process (poison messages, or infrastructure ' +
      'failures past maxReceiveCount). Inspect them (webhooks dlq list), fix the cause, then redrive. Stays in ' +
      'ALARM while any remain; each new arrival also raises the new-dead-letters alarm. A customer endpoint that ' +
      'is down does not land here: its deliveries are parked per connection (webhooks connections recover).',
    atLeast(
      s.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      1,
    ),
  );
  r.alarm(
    'oldestMessageAge',
    'OldestMessageAge',
    'page',
    'oldestMessageAge',
    `Webhook events or retries have waited on the delivery or retry queue for ${s.oldestMessageAge.toHumanString()} ` +
      'or more: the dispatcher is failing, throttled or behind. Check its errors and throttles.',
    atLeast(
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
  );
  r.alarm(
    'dispatcherErrors',
    'DispatcherErrors',
    'ticket',
    'dispatcherErrors',
    `The dispatcher function failed ${t.dispatcherErrors} or more invocations ${per5} (a crash, a timeout or ` +
      'running out of memory): its whole batch goes back to the queue and is retried by SQS.',
    atLeast(
      s.dispatcher.metricErrors({ period: METRIC_PERIOD, statistic: cloudwatch.Stats.SUM }),
      t.dispatcherErrors,
    ),
  );
  r.alarm(
    'infrastructureFailures',
    'InfrastructureFailures',
    'ticket',
    'infrastructureFailures',
    `Calls from the dispatcher to DynamoDB, SQS, Secrets Manager or SNS failed ${t.infrastructureFailures} or more ` +
      `times ${per5}: the records are retried by SQS and reach the dead-letter queue after maxReceiveCount.`,
    atLeast(s.metrics.metric('infrastructureFailures'), t.infrastructureFailures),
  );
  r.alarm(
    'attemptLogDeferred',
    'AttemptLogDeferred',
    'ticket',
    'attemptLogDeferred',
    `The attempt log refused ${t.attemptLogDeferred} or more writes ${per5}: the records wait on the retry queue ` +
      'and are written later (nothing is lost), but the table is throttled or failing.',
    atLeast(s.metrics.metric('attemptLogDeferred'), t.attemptLogDeferred),
  );
  r.alarm(
    'blockedDestinations',
    'BlockedDestinations',
    'ticket',
    'blockedDestinations',
    `The egress policy refused ${t.blockedDestinations} or more deliveries ${per5}: a connection's URL resolves ` +
      'to a private, loopback or metadata address. The deliveries are parked, nothing was sent.',
    atLeast(s.metrics.metric('blockedDestinations'), t.blockedDestinations),
  );
  r.alarm(
    'fleetFailure',
    'FleetFailure',
    'page',
    'fleetFailure',
    `${Math.round(t.fleetFailureRatio * 100)} % or more of all attempts failed across ${t.fleetFailureConnections} ` +
      `or more connections in ${METRIC_PERIOD.toMinutes()} minutes: this looks like the pipeline's own egress ` +
      '(network, DNS, TLS, the egress policy), not one customer endpoint.',
    atLeast(
      new cloudwatch.MathExpression({
        expression: fleetFailureExpression(s.failingConnections, t),
        usingMetrics: {
          attempts: s.metrics.metric('attempts'),
          delivered: s.metrics.metric('attempts', { by: { name: 'Outcome', value: 'delivered' } }),
        },
        period: METRIC_PERIOD,
        label: 'Fleet failure (1: most attempts failing across many connections)',
      }),
      1,
    ),
  );
  if (s.managementApi) {
    r.alarm(
      'managementApi5xx',
      'ManagementApi5xx',
      'ticket',
      'managementApi5xx',
      `The management API answered ${t.managementApi5xx} or more requests with a 5xx ${per5}: the console, ` +
        'the CLI and the management library see errors.',
      atLeast(
        s.managementApi.metricServerError({ period: METRIC_PERIOD, statistic: cloudwatch.Stats.SUM }),
        t.managementApi5xx,
      ),
    );
  }
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
