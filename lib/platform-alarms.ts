import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { type AlarmSources, atLeast } from './alarm-sources';
import { METRIC_PERIOD } from './metrics';

/** Dispatcher throttles in 5 minutes that raise the throttles alarm. */
export const DISPATCHER_THROTTLES = 10;
/** The duration alarm fires when the dispatcher's p99 passes this share of its timeout. */
export const DURATION_SHARE = 0.8;
/** The concurrency alarm fires at this share of the limit. */
export const CONCURRENCY_SHARE = 0.8;
/**
 * Lambda's default concurrency quota per account and region: the limit the account-wide
 * concurrency alarm measures against when `maxConcurrency` sets no cap of the stack's own.
 */
export const DEFAULT_ACCOUNT_CONCURRENCY = 1000;
/** Throttled reads and writes of one table in 5 minutes that raise its throttles alarm. */
export const TABLE_THROTTLES = 10;
/**
 * The operations the stack runs on its tables: each one's `SystemErrors` is its own metric
 * (dimension `Operation`), and an alarm's metric math takes at most 10 metrics.
 */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.SCAN,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
];

const sum = { period: METRIC_PERIOD, statistic: cloudwatch.Stats.SUM };

/** Lambda, event source and DynamoDB alarms: the AWS parts the pipeline stands on. */
export function createPlatformAlarms(s: AlarmSources): void {
  createFunctionAlarms(s);
  for (const [name, table] of Object.entries(s.tables)) createTableAlarms(s, name, table);
}

function createFunctionAlarms(s: AlarmSources): void {
  const r = s.routing;
  const fn = s.dispatcher;
  r.alarm(
    'dispatcherThrottles',
    'DispatcherThrottles',
    'ticket',
    'dispatcherThrottles',
    `Lambda throttled the dispatcher ${DISPATCHER_THROTTLES} or more times in 5 minutes: the account (or region) ` +
      'is out of concurrency. The event sources retry, so deliveries wait rather than fail.',
    atLeast(fn.metricThrottles(sum), DISPATCHER_THROTTLES),
  );
  const timeoutMs = s.functionTimeout.toMilliseconds();
  r.alarm(
    'dispatcherDuration',
    'DispatcherDurationNearTimeout',
    'ticket',
    'dispatcherDuration',
    `The dispatcher's p99 duration passed ${DURATION_SHARE * 100} % of its ${s.functionTimeout.toHumanString()} ` +
      'timeout in 5 minutes: slow receivers or large batches are close to timing invocations out, which retries ' +
      'whole batches.',
    atLeast(
      fn.metricDuration({ period: METRIC_PERIOD, statistic: cloudwatch.Stats.p(99) }),
      Math.round(timeoutMs * DURATION_SHARE),
    ),
  );
  const capped = s.maxConcurrency !== undefined;
  // Two event sources, each with maxConcurrency: the stack's own cap is twice it.
  const limit = capped ? 2 * s.maxConcurrency! : DEFAULT_ACCOUNT_CONCURRENCY;
  const concurrency = capped
    ? fn.metric('ConcurrentExecutions', { period: METRIC_PERIOD, statistic: cloudwatch.Stats.MAXIMUM })
    : new cloudwatch.Metric({
        namespace: 'AWS/Lambda',
        metricName: 'ConcurrentExecutions',
        period: METRIC_PERIOD,
        statistic: cloudwatch.Stats.MAXIMUM,
      });
  r.alarm(
    'dispatcherConcurrency',
    'ConcurrencyNearLimit',
    'ticket',
    'dispatcherConcurrency',
    capped
      ? `The dispatcher ran ${CONCURRENCY_SHARE * 100} % or more of its cap (2 x maxConcurrency = ${limit}) for ` +
          '15 minutes: beyond it, messages wait on the queues.'
      : `The account ran ${CONCURRENCY_SHARE * 100} % or more of Lambda's default ${limit} concurrent executions ` +
          'for 15 minutes: past the quota every function of the account, the dispatcher included, is throttled.',
    atLeast(concurrency, Math.floor(limit * CONCURRENCY_SHARE), 3),
  );
  const failed = (uuid: string) =>
    new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName: 'FailedInvokeEventCount',
      dimensionsMap: { EventSourceMappingUUID: uuid },
      ...sum,
    });
  r.alarm(
    'eventSourceFailures',
    'EventSourceFailures',
    'ticket',
    'eventSourceFailures',
    'The SQS event sources handed records to invocations that failed (errors, timeouts or throttles) in 5 ' +
      'minutes: the records return to their queue and reach the dead-letter queue after maxReceiveCount.',
    atLeast(
      new cloudwatch.MathExpression({
        expression: 'FILL(ingress, 0) + FILL(retry, 0)',
        usingMetrics: { ingress: failed(s.eventSources.ingress), retry: failed(s.eventSources.retry) },
        period: METRIC_PERIOD,
        label: 'Records of failed invocations, both event sources',
      }),
      1,
    ),
  );
}

function createTableAlarms(s: AlarmSources, name: string, table: dynamodb.ITable): void {
  const r = s.routing;
  const id = name.replace(/(^|\s)(\w)/g, (_, __, c: string) => c.toUpperCase());
  r.alarm(
    `tableThrottles${id}`,
    `TableThrottles${id}`,
    'ticket',
    'tableThrottles',
    `The ${name} table throttled ${TABLE_THROTTLES} or more reads and writes in 5 minutes ` +
      '(ReadThrottleEvents + WriteThrottleEvents): a hot partition or capacity below the traffic.',
    atLeast(
      new cloudwatch.MathExpression({
        expression: 'FILL(reads, 0) + FILL(writes, 0)',
        usingMetrics: {
          reads: table.metric('ReadThrottleEvents', sum),
          writes: table.metric('WriteThrottleEvents', sum),
        },
        period: METRIC_PERIOD,
        label: `${name}: throttled reads and writes`,
      }),
      TABLE_THROTTLES,
    ),
  );
  r.alarm(
    `tableSystemErrors${id}`,
    `TableSystemErrors${id}`,
    'ticket',
    'tableSystemErrors',
    `DynamoDB answered requests to the ${name} table with a 500 (SystemErrors) in 5 minutes: an AWS-side ` +
      'failure; the dispatcher retries, and infrastructure failures count what it could not absorb.',
    atLeast(
      table.metricSystemErrorsForOperations({
        operations: TABLE_OPERATIONS,
        period: METRIC_PERIOD,
        label: `${name}: system errors`,
      }),
      1,
    ),
  );
}
