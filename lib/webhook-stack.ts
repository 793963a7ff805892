import { Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { WebhookDelivery, type WebhookDeliveryProps, WebhookDeliveryPropsError } from './webhook-delivery';

/** Stack props plus every {@link WebhookDeliveryProps} setting, passed through unchanged. */
export interface WebhookStackProps extends StackProps, WebhookDeliveryProps {
  /**
   * ARN of an existing SNS topic: the form of `alarmTopic` (the deprecated alias of whichever of
   * the paging and ticket topics is not given) that a command line can give (`-c alarmTopicArn=…`).
   * Not together with `alarmTopic`.
   * @default - the construct's own paging and ticket topics
   */
  readonly alarmTopicArn?: string;
  /** ARN of an existing SNS topic for the `page` alarms (`-c pagingTopicArn=…`). Not together with `pagingTopic`. */
  readonly pagingTopicArn?: string;
  /** ARN of an existing SNS topic for the `ticket` alarms (`-c ticketTopicArn=…`). Not together with `ticketTopic`. */
  readonly ticketTopicArn?: string;
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
    const topic = (key: 'alarmTopic' | 'pagingTopic' | 'ticketTopic', id: string) => {
      const arn = props[`${key}Arn`];
      if (props[key] && arn) {
        throw new WebhookDeliveryPropsError(key, `cannot be given together with ${key}Arn: pick one`);
      }
      return props[key] ?? (arn ? Topic.fromTopicArn(this, id, arn) : undefined);
    };
    this.delivery = new WebhookDelivery(this, 'Delivery', {
      ...props,
      alarmTopic: topic('alarmTopic', 'AlarmTopic'),
      pagingTopic: topic('pagingTopic', 'PagingTopic'),
      ticketTopic: topic('ticketTopic', 'TicketTopic'),
    });

    this.delivery.addOutputs(this);
  }
}
