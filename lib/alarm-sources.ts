import type { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { AlarmRouting } from './alarm-routing';
import type { FailingConnectionsRule } from './failing-connections';
import type { WebhookMetrics } from './metrics';
import type { ResolvedOperationsProps } from './operations-props';
import type { ResolvedAlarmThresholds } from './webhook-delivery-props';

/** What the alarms watch. */
export interface AlarmSources {
  readonly routing: AlarmRouting;
  readonly metrics: WebhookMetrics;
  readonly queue: sqs.IQueue;
  readonly retryQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly dlqRetention: Duration;
  readonly dispatcher: lambda.IFunction;
  readonly functionTimeout: Duration;
  /** The `maxConcurrency` of each of the two event sources, when set. */
  readonly maxConcurrency?: number;
  /** The dispatcher's event source mapping ids by queue. */
  readonly eventSources: { readonly ingress: string; readonly retry: string };
  readonly tables: Readonly<Record<string, dynamodb.ITable>>;
  readonly failingConnections: FailingConnectionsRule;
  readonly managementApi?: apigw.IHttpApi;
  readonly thresholds: ResolvedAlarmThresholds;
  readonly oldestMessageAge: Duration;
  readonly operations: ResolvedOperationsProps;
}

/** At or above `threshold` in one period; missing data (no traffic) is not a breach. */
export const atLeast = (metric: cloudwatch.IMetric, threshold: number, evaluationPeriods = 1) => ({
  metric,
  threshold,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  evaluationPeriods,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
});
