import { Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
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
 * use to find its resources ({@link WebhookDelivery.addOutputs}). cdk-nag checks and the project's
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

    this.delivery.addOutputs(this);
  }
}
