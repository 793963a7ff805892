import { Aws, Duration, Names } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PARK_REASONS } from '../lambdas/core/parking';
import { objectivesWidget } from './delivery-objectives';
import { CONNECTION_ID_FIELD, type FailingConnectionsRule, OUTCOME_FIELD } from './failing-connections';
import { FAILED_OUTCOMES, METRIC_PERIOD, type WebhookMetrics } from './metrics';
import type { DeliveryObjectives } from './operations-props';

/** What the dashboard shows. */
export interface DashboardSources {
  readonly metrics: WebhookMetrics;
  readonly alarms: cloudwatch.IAlarm[];
  readonly queues: { readonly ingress: sqs.IQueue; readonly retry: sqs.IQueue; readonly dlq: sqs.IQueue };
  /** The dispatcher's event source mappings by queue, whose `EventCount` metrics are turned on. */
  readonly eventSources: { readonly ingress: string; readonly retry: string };
  readonly dispatcher: lambda.IFunction;
  readonly functionTimeout: Duration;
  /** The most dispatcher instances that run at once, when `maxConcurrency` caps them. */
  readonly concurrencyCap?: number;
  readonly dispatcherLogs: logs.ILogGroup;
  readonly tables: Record<string, dynamodb.ITable>;
  readonly failingConnections: FailingConnectionsRule;
  readonly managementApi?: apigw.IHttpApi;
  /** The delivery objectives, when their alarms are on. */
  readonly objectives?: Required<DeliveryObjectives>;
}

/** Lambda's per-event-source-mapping counts (`EventCount`) an SQS source has. */
export const EVENT_SOURCE_METRICS = [
  'PolledEventCount',
  'InvokedEventCount',
  'FailedInvokeEventCount',
  'DeletedEventCount',
] as const;

/** How many connections the top-failing widgets list. */
const TOP_CONNECTIONS = 10;

/** A third of the dashboard's 24 columns, a half, the whole. */
const THIRD = 8;
const HALF = 12;
const FULL = 24;
const HEIGHT = 6;

/**
 * The pipeline's CloudWatch dashboard (docs/operations.md#dashboard): top to bottom, what an
 * operator asks first (are alarms firing, are deliveries arriving) down to the parts behind it
 * (queues, the event sources, the function, the tables, the management API).
 */
export class WebhookDashboard extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, s: DashboardSources) {
    super(scope, id);
    const m = s.metrics;
    const graph = (
      title: string,
      left: cloudwatch.IMetric[],
      extra: Partial<cloudwatch.GraphWidgetProps> = {},
    ) =>
      new cloudwatch.GraphWidget({
        title,
        left,
        width: THIRD,
        height: HEIGHT,
        period: METRIC_PERIOD,
        ...extra,
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Resource', {
      dashboardName: Names.uniqueResourceName(this, { maxLength: 255, separator: '-' }),
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: s.alarms,
        width: FULL,
        height: 1 + Math.ceil(s.alarms.length / 6), // six alarms a row at full width, plus the title
      }),
    );
    this.dashboard.addWidgets(
      graph(
        'Success ratio (% of attempts delivered)',
        [
          new cloudwatch.MathExpression({
            // No delivered count is emitted when none arrives: 0 %, not a gap.
            expression: '100 * FILL(delivered, 0) / attempts',
            usingMetrics: {
              delivered: m.metric('attempts', { by: { name: 'Outcome', value: 'delivered' } }),
              attempts: m.metric('attempts'),
            },
            period: METRIC_PERIOD,
            label: '% delivered',
          }),
        ],
        { leftYAxis: { min: 0, max: 100 } },
      ),
      graph('Attempts by outcome', m.metricBy('attempts', 'Outcome'), { stacked: true }),
      graph('Attempts by response status class', m.metricBy('attempts', 'StatusClass'), { stacked: true }),
    );
    if (s.objectives)
      this.dashboard.addWidgets(objectivesWidget(m, s.objectives, { width: FULL, height: HEIGHT }));
    this.dashboard.addWidgets(
      graph('Attempt duration (ms)', m.percentiles('attemptDuration')),
      graph('Delivery latency, publish to 2xx (ms)', [
        ...m.percentiles('deliveryLatency'),
        m.metric('retryStartLag', { statistic: 'p99', label: 'retry start lag p99' }),
      ]),
      graph('Final results and retries', [
        ...m.metricBy('deliveries', 'Result'),
        m.metric('retriesScheduled', { label: 'retries scheduled' }),
        m.metric('deliveriesInFlight', { label: 'in flight (most in one invocation)' }),
      ]),
    );
    this.addQueues(s, graph);
    this.addFunction(s);
    this.dashboard.addWidgets(
      graph(
        'DynamoDB throttled requests',
        Object.entries(s.tables).flatMap(([name, table]) =>
          ['ReadThrottleEvents', 'WriteThrottleEvents'].map((metric) =>
            table.metric(metric, {
              statistic: cloudwatch.Stats.SUM,
              period: METRIC_PERIOD,
              label: `${name} ${metric}`,
            }),
          ),
        ),
      ),
      graph('Health transitions by state entered', m.metricBy('healthTransitions', 'State')),
      graph('Infrastructure failures by dependency', m.metricBy('infrastructureFailures', 'Dependency')),
    );
    this.dashboard.addWidgets(
      graph('Dead letters by reason', m.metricBy('deadLetters', 'Reason')),
      graph('Parked by reason', m.metricBy('parked', 'Reason', PARK_REASONS)),
      graph('Deferred, blocked, resent, rate-limited, recovery checks', [
        m.metric('attemptLogDeferred', { label: 'attempt-log writes deferred' }),
        m.metric('blockedDestinations', { label: 'blocked destinations' }),
        m.metric('senderResends', { label: 'sender resends' }),
        m.metric('rateLimitDeferrals', { label: 'rate-limit deferrals' }),
        m.metric('recoveryChecks', { label: 'recovery checks sent' }),
        m.metric('recoveries', { label: 'endpoints recovered by a check' }),
      ]),
    );
    this.addFailingConnections(s);
    if (s.managementApi) this.addManagementApi(s.managementApi);
  }

  private addQueues(
    s: DashboardSources,
    graph: (t: string, l: cloudwatch.IMetric[]) => cloudwatch.GraphWidget,
  ) {
    const { ingress, retry, dlq } = s.queues;
    const each = (queues: Record<string, sqs.IQueue>, pick: (q: sqs.IQueue) => cloudwatch.Metric) =>
      Object.entries(queues).map(([name, q]) => pick(q).with({ label: name, period: METRIC_PERIOD }));
    const max = { statistic: cloudwatch.Stats.MAXIMUM };
    const all = { ingress, retry, 'dead-letter': dlq };
    this.dashboard.addWidgets(
      graph(
        'Age of the oldest message (s)',
        each(all, (q) => q.metricApproximateAgeOfOldestMessage(max)),
      ),
      graph(
        'Messages visible',
        each(all, (q) => q.metricApproximateNumberOfMessagesVisible(max)),
      ),
      graph('Messages delayed (retries waiting) and in flight', [
        ...each({ 'ingress delayed': ingress, 'retry delayed': retry }, (q) =>
          q.metric('ApproximateNumberOfMessagesDelayed', max),
        ),
        ...each({ 'ingress in flight': ingress, 'retry in flight': retry }, (q) =>
          q.metricApproximateNumberOfMessagesNotVisible(max),
        ),
      ]),
    );
    const esm = (uuid: string, queue: string) =>
      EVENT_SOURCE_METRICS.map(
        (metricName) =>
          new cloudwatch.Metric({
            namespace: 'AWS/Lambda',
            metricName,
            dimensionsMap: { EventSourceMappingUUID: uuid },
            statistic: cloudwatch.Stats.SUM,
            period: METRIC_PERIOD,
            label: `${queue} ${metricName.replace(/EventCount$/, '').toLowerCase()}`,
          }),
      );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Event sources: records polled, invoked, failed, deleted',
        left: [...esm(s.eventSources.ingress, 'ingress'), ...esm(s.eventSources.retry, 'retry')],
        width: HALF,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dispatcher errors and throttles',
        left: [
          s.dispatcher.metricErrors({
            period: METRIC_PERIOD,
            statistic: cloudwatch.Stats.SUM,
            label: 'errors',
          }),
          s.dispatcher.metricThrottles({
            period: METRIC_PERIOD,
            statistic: cloudwatch.Stats.SUM,
            label: 'throttles',
          }),
          s.dispatcher.metricInvocations({
            period: METRIC_PERIOD,
            statistic: cloudwatch.Stats.SUM,
            label: 'invocations',
          }),
        ],
        width: HALF,
        height: HEIGHT,
      }),
    );
  }

  private addFunction(s: DashboardSources) {
    const timeoutMs = s.functionTimeout.toMilliseconds();
    const concurrency = s.dispatcher.metric('ConcurrentExecutions', {
      statistic: cloudwatch.Stats.MAXIMUM,
      period: Duration.minutes(1),
      label: 'concurrent executions',
    });
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Dispatcher duration against its timeout (ms)',
        left: ['p50', 'p99', 'Maximum'].map((statistic) =>
          s.dispatcher.metricDuration({ statistic, period: METRIC_PERIOD, label: statistic }),
        ),
        leftAnnotations: [{ value: timeoutMs, label: `timeout ${s.functionTimeout.toHumanString()}` }],
        leftYAxis: { min: 0, max: timeoutMs },
        width: HALF,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dispatcher concurrency against its cap',
        left: [concurrency],
        leftAnnotations:
          s.concurrencyCap === undefined
            ? []
            : [{ value: s.concurrencyCap, label: `cap: 2 × maxConcurrency = ${s.concurrencyCap}` }],
        leftYAxis: { min: 0 },
        width: HALF,
        height: HEIGHT,
      }),
    );
  }

  private addFailingConnections(s: DashboardSources) {
    const failed = FAILED_OUTCOMES.map((o) => `"${o}"`).join(', ');
    this.dashboard.addWidgets(
      new cloudwatch.LogQueryWidget({
        title: 'Top failing connections (dispatcher log, failed attempts)',
        logGroupNames: [s.dispatcherLogs.logGroupName],
        view: cloudwatch.LogQueryVisualizationType.TABLE,
        queryLines: [
          `fields ${CONNECTION_ID_FIELD}, ${OUTCOME_FIELD}, statusCode`,
          `filter ispresent(${CONNECTION_ID_FIELD}) and ${OUTCOME_FIELD} in [${failed}]`,
          `stats count(*) as failedAttempts, latest(${OUTCOME_FIELD}) as lastOutcome, latest(statusCode) as lastStatus by ${CONNECTION_ID_FIELD}`,
          'sort failedAttempts desc',
          `limit ${TOP_CONNECTIONS * 2}`,
        ],
        width: HALF,
        height: HEIGHT,
      }),
      new InsightRuleWidget({
        title: 'Top failing connections (Contributor Insights)',
        ruleName: s.failingConnections.ruleName,
        width: THIRD,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: 'Connections with a failed attempt',
        left: [s.failingConnections.failingConnections('distinct connections')],
        width: FULL - HALF - THIRD,
        height: HEIGHT,
      }),
    );
  }

  private addManagementApi(api: apigw.IHttpApi) {
    const sum = { statistic: cloudwatch.Stats.SUM, period: METRIC_PERIOD };
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Management API: errors',
        left: [
          api.metricServerError({ ...sum, label: '5xx' }),
          api.metricClientError({ ...sum, label: '4xx' }),
          api.metricCount({ ...sum, label: 'requests' }),
        ],
        width: HALF,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: 'Management API: latency (ms)',
        left: ['p50', 'p90', 'p99'].map((statistic) =>
          api.metricLatency({ statistic, period: METRIC_PERIOD, label: statistic }),
        ),
        width: HALF,
        height: HEIGHT,
      }),
    );
  }
}

interface InsightRuleWidgetProps {
  readonly title: string;
  readonly ruleName: string;
  readonly width: number;
  readonly height: number;
}

/**
 * A Contributor Insights rule's top contributors over time: a dashboard widget type
 * aws-cdk-lib has no class for, written as the dashboard body's `insightRule` form.
 */
class InsightRuleWidget extends cloudwatch.ConcreteWidget {
  constructor(private readonly props: InsightRuleWidgetProps) {
    super(props.width, props.height);
  }

  toJson(): unknown[] {
    return [
      {
        type: 'metric',
        width: this.width,
        height: this.height,
        x: this.x,
        y: this.y,
        properties: {
          title: this.props.title,
          view: 'timeSeries',
          stacked: false,
          region: Aws.REGION,
          period: METRIC_PERIOD.toSeconds(),
          insightRule: {
            ruleName: this.props.ruleName,
            maxContributorCount: TOP_CONNECTIONS,
            orderBy: 'Sum',
          },
          legend: { position: 'right' },
        },
      },
    ];
  }
}
