import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { type AlarmSources, atLeast } from './alarm-sources';
import { METRIC_PERIOD } from './metrics';

/** The dead-letter age alarm fires when the oldest dead letter has used this share of the DLQ's retention. */
export const DEAD_LETTER_AGE_SHARE = 0.75;
/** Periods (of 5 minutes) the queue depth must stay high: a burst that drains at once is not a backlog. */
export const QUEUE_DEPTH_PERIODS = 3;

/**
 * The queues' alarms beyond the pipeline's own: new dead letters (so a dead letter that stays
 * does not latch the only notification), dead letters near expiry, a backlog, and traffic that
 * stopped arriving.
 */
export function createQueueAlarms(s: AlarmSources): void {
  const r = s.routing;
  const minute = { period: Duration.minutes(1) };
  r.alarm(
    'deadLetterArrivals',
    'DeadLetterArrivals',
    'ticket',
    'deadLetterArrivals',
    'New messages reached the dead-letter queue in the last minute (sent by the dispatcher, or moved there by SQS ' +
      'after maxReceiveCount). Clears a minute later: the DLQ-not-empty alarm stays in ALARM while any remain. ' +
      'See why with webhooks dlq list.',
    atLeast(
      new cloudwatch.MathExpression({
        // SQS's own moves after maxReceiveCount are not counted in NumberOfMessagesSent: a rise of
        // the visible count catches them.
        expression: 'MAX([FILL(sent, 0), DIFF(FILL(visible, 0))])',
        usingMetrics: {
          sent: s.deadLetterQueue.metricNumberOfMessagesSent({ ...minute, statistic: cloudwatch.Stats.SUM }),
          visible: s.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            ...minute,
            statistic: cloudwatch.Stats.MAXIMUM,
          }),
        },
        ...minute,
        label: 'New dead letters per minute',
      }),
      1,
    ),
  );
  const retentionS = s.dlqRetention.toSeconds();
  const ageThreshold = Math.floor(retentionS * DEAD_LETTER_AGE_SHARE);
  r.alarm(
    'deadLetterAge',
    'DeadLettersNearExpiry',
    'ticket',
    'deadLetterAge',
    `The oldest dead letter is ${Duration.seconds(ageThreshold).toHumanString()} old: SQS deletes it at ` +
      `${s.dlqRetention.toHumanString()} (dlqRetention). Redrive it after fixing its cause, or save it ` +
      '(webhooks dlq list --json) before it is gone.',
    atLeast(
      s.deadLetterQueue.metricApproximateAgeOfOldestMessage({
        period: METRIC_PERIOD,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      ageThreshold,
    ),
  );
  const depth = s.operations.queueDepthAlarmThreshold;
  const visible = (q: typeof s.queue) =>
    q.metricApproximateNumberOfMessagesVisible({
      period: METRIC_PERIOD,
      statistic: cloudwatch.Stats.MAXIMUM,
    });
  r.alarm(
    'queueDepth',
    'QueueDepth',
    'ticket',
    'queueDepth',
    `${depth} or more messages have waited on the ingress and retry queues for ` +
      `${QUEUE_DEPTH_PERIODS * METRIC_PERIOD.toMinutes()} minutes: a backlog the dispatcher is not draining ` +
      '(a cap, throttles, slow receivers or a burst larger than usual).',
    atLeast(
      new cloudwatch.MathExpression({
        expression: 'FILL(ingress, 0) + FILL(retry, 0)',
        usingMetrics: { ingress: visible(s.queue), retry: visible(s.retryQueue) },
        period: METRIC_PERIOD,
        label: 'Messages visible, ingress and retry queues',
      }),
      depth,
      QUEUE_DEPTH_PERIODS,
    ),
  );
  const after = s.operations.trafficStoppedAfter;
  if (after) {
    r.alarm(
      'trafficStopped',
      'TrafficStopped',
      'page',
      'trafficStopped',
      `No event was published to the ingress queue for ${after.toHumanString()}: publishers stopped sending, ` +
        'or cannot (permissions, a wrong queue URL). Only meaningful while applications have connections and ' +
        'publish steadily; turn it off with trafficStoppedAfter: false.',
      {
        metric: s.queue.metricNumberOfMessagesSent({ period: after, statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        // SQS stops reporting an idle queue's metrics: no data is no traffic.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      },
    );
  }
}
