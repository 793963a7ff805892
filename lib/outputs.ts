/**
 * The stack outputs by which the CLI (`--stack`) and the management library
 * (`resourcesFromStack`) find a webhook delivery's resources (lambdas/stack-outputs.ts names
 * them). Added by {@link WebhookStack}, and by `WebhookDelivery.addOutputs()` in a stack of
 * your own.
 */

import { CfnOutput, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS } from '../lambdas/stack-outputs';
import type { WebhookManagementApi } from './management-api';

/** What the outputs name: the resources of one WebhookDelivery. */
export interface DeliveryResources {
  readonly queue: sqs.IQueue;
  readonly retryQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly connectionsTable: dynamodb.ITable;
  readonly attemptsTable: dynamodb.ITable;
  readonly parkedTable: dynamodb.ITable;
  readonly rateWindowsTable: dynamodb.ITable;
  readonly eventsTopic: sns.ITopic;
  readonly dispatcher: lambda.IFunction;
  readonly secretPrefix: string;
  readonly secretStore: 'secrets-manager' | 'kms';
  readonly secretKey?: kms.IKey;
  readonly headerPrefix: string;
  readonly allowedPorts: readonly number[];
  readonly defaultRateLimit?: number;
  readonly rateLimitCeiling: number;
  readonly secretRotationOverlapSeconds: number;
  readonly deliverySearch: boolean;
  readonly managementApi?: WebhookManagementApi;
  /** The Contributor Insights rule over failed attempts. */
  readonly failingConnections: { readonly ruleName: string };
  readonly pagingTopic: sns.ITopic;
  readonly ticketTopic: sns.ITopic;
}

/** Adds every output of {@link STACK_OUTPUTS} (and the management API's) to `scope`. */
export function addDeliveryOutputs(scope: Construct, d: DeliveryResources): void {
  const outputs: Partial<Record<keyof typeof STACK_OUTPUTS, { value: string; description: string }>> = {
    queueUrl: {
      value: d.queue.queueUrl,
      description: 'Ingress queue: upstream services publish events here (events only)',
    },
    retryQueueUrl: {
      value: d.retryQueue.queueUrl,
      description: 'Internal retry queue: retries and attempt records; dispatcher and operators only',
    },
    deadLetterQueueUrl: {
      value: d.deadLetterQueue.queueUrl,
      description: 'Dead-letter queue: what the pipeline could not process (poison, infrastructure failures)',
    },
    connectionsTableName: { value: d.connectionsTable.tableName, description: 'Webhook connections table' },
    attemptsTableName: { value: d.attemptsTable.tableName, description: 'Delivery attempt log table' },
    secretPrefix: {
      value: d.secretPrefix,
      description: 'Secrets Manager name prefix of the connection secrets',
    },
    secretStore: {
      value: d.secretStore,
      description:
        'Where connection secrets are kept: secrets-manager or kms (sealed in the connection item)',
    },
    ...(d.secretKey
      ? {
          secretKeyArn: {
            value: d.secretKey.keyArn,
            description: 'KMS key that seals the connection secrets',
          },
        }
      : {}),
    dispatcherFunctionName: { value: d.dispatcher.functionName, description: 'Dispatcher Lambda function' },
    headerPrefix: { value: d.headerPrefix, description: 'Prefix of the signed delivery headers' },
    allowedPorts: { value: d.allowedPorts.join(','), description: 'Destination ports connections may use' },
    parkedTableName: {
      value: d.parkedTable.tableName,
      description:
        'Parked deliveries: failed, disabled-connection and blocked deliveries, for retry and recovery',
    },
    rateWindowsTableName: {
      value: d.rateWindowsTable.tableName,
      description:
        'Per-connection rate windows: what the rate limit counted (the console\'s "waiting for the rate limit")',
    },
    ...(d.defaultRateLimit !== undefined
      ? {
          defaultRateLimit: {
            value: String(d.defaultRateLimit),
            description: 'Deliveries per second for a connection with no rate limit of its own',
          },
        }
      : {}),
    rateLimitCeiling: {
      value: String(d.rateLimitCeiling),
      description: 'The highest rate limit a connection may have, deliveries per second',
    },
    secretRotationOverlapSeconds: {
      value: String(d.secretRotationOverlapSeconds),
      description: 'Seconds a rotated-out secret keeps signing unless the rotation says otherwise (0: none)',
    },
    deliverySearch: {
      value: d.deliverySearch ? 'on' : 'off',
      description: 'Delivery search by user and event id: on, or off (the lean profile)',
    },
    eventsTopicArn: {
      value: d.eventsTopic.topicArn,
      description:
        'SNS topic of operational events: connection.failing, connection.disabled, connection.recovered',
    },
    failingConnectionsRuleName: {
      value: d.failingConnections.ruleName,
      description: 'Contributor Insights rule of failed attempts by connection (webhooks stats)',
    },
    metricsStackName: {
      value: Stack.of(d.dispatcher).stackName,
      description: 'Stack dimension of the Webhooks metrics (webhooks stats)',
    },
    pagingTopicArn: {
      value: d.pagingTopic.topicArn,
      description: 'SNS topic of the page alarms: subscribe the on-call pager (docs/operations.md#alarms)',
    },
    ticketTopicArn: {
      value: d.ticketTopic.topicArn,
      description: 'SNS topic of the ticket alarms: subscribe the team queue (docs/operations.md#alarms)',
    },
  };
  for (const [key, output] of Object.entries(outputs)) {
    if (output) new CfnOutput(scope, STACK_OUTPUTS[key as keyof typeof STACK_OUTPUTS], output);
  }
  d.managementApi?.addOutputs(scope);
}
