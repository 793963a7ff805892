import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS } from '../lambdas/stack-outputs';
import { WebhookDelivery, type WebhookDeliveryProps, WebhookDeliveryPropsError } from './webhook-delivery';

/** Stack props plus every {@link WebhookDeliveryProps} setting, passed through unchanged. */
export interface WebhookStackProps extends StackProps, WebhookDeliveryProps {
  /**
   * ARN of an existing SNS topic to notify when an alarm fires; the form of `alarmTopic`
   * that a command line can give (`-c alarmTopicArn=…`). Not together with `alarmTopic`.
   * @default - the alarms have no actions
   */
  readonly alarmTopicArn?: string;
}

/**
 * The deployable webhook delivery stack: one {@link WebhookDelivery} and the outputs tools
 * use to find its resources ({@link STACK_OUTPUTS}). cdk-nag checks and the project's
 * acknowledgements are not applied here (bin/app.ts does both), so the construct never needs
 * cdk-nag.
 */
export class WebhookStack extends Stack {
  public readonly delivery: WebhookDelivery;

  constructor(scope: Construct, id: string, props: WebhookStackProps = {}) {
    super(scope, id, props);
    if (props.alarmTopic && props.alarmTopicArn) {
      throw new WebhookDeliveryPropsError(
        'alarmTopic',
        'cannot be given together with alarmTopicArn: pick one',
      );
    }
    const alarmTopic =
      props.alarmTopic ??
      (props.alarmTopicArn ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn) : undefined);
    this.delivery = new WebhookDelivery(this, 'Delivery', { ...props, alarmTopic });

    const d = this.delivery;
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
        description:
          'Dead-letter queue: what the pipeline could not process (poison, infrastructure failures)',
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
      eventsTopicArn: {
        value: d.eventsTopic.topicArn,
        description:
          'SNS topic of operational events: connection.failing, connection.disabled, connection.recovered',
      },
    };
    for (const [key, output] of Object.entries(outputs)) {
      if (output) new CfnOutput(this, STACK_OUTPUTS[key as keyof typeof STACK_OUTPUTS], output);
    }
    d.managementApi?.addOutputs(this);
  }
}
