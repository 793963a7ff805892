import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { ENV } from '../../lambdas/config';
import {
  WebhookDelivery,
  type WebhookDeliveryProps,
  WebhookDeliveryPropsError,
} from '../../lib/webhook-delivery';
import { defaultStack, logicalId, testApp } from './fixtures';

function build(props: WebhookDeliveryProps) {
  const stack = new Stack(testApp(), 'Webhooks');
  const delivery = new WebhookDelivery(stack, 'Delivery', { managementApi: false, ...props });
  return { stack, delivery, template: Template.fromStack(stack) };
}

describe('endpoint health settings and events (docs/design.md §9)', () => {
  it('tells the dispatcher failingAfter 3 and no disableAfter by default', () => {
    const { template } = build({});
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.failingAfter]: '3', [ENV.disableAfter]: '' }) },
    });
  });

  it('passes failingAfter and disableAfter to the dispatcher', () => {
    const { template } = build({ failingAfter: 5, disableAfter: 20 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.failingAfter]: '5', [ENV.disableAfter]: '20' }) },
    });
  });

  it.each<[WebhookDeliveryProps, string, RegExp]>([
    [{ failingAfter: 0 }, 'failingAfter', /whole number from 1/],
    [{ failingAfter: 2.5 }, 'failingAfter', /whole number from 1/],
    [{ disableAfter: 2 }, 'disableAfter', /at least failingAfter \(3\)/],
    [{ failingAfter: 10, disableAfter: 5 }, 'disableAfter', /at least failingAfter \(10\)/],
  ])('refuses %j naming %s', (props, prop, message) => {
    let error: unknown;
    try {
      build(props);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(WebhookDeliveryPropsError);
    expect((error as WebhookDeliveryPropsError).prop).toBe(prop);
    expect((error as WebhookDeliveryPropsError).message).toMatch(message);
  });

  it('creates an events topic (SSL only) and names it to the dispatcher', () => {
    const stack = defaultStack();
    const template = Template.fromStack(stack);
    // The events topic, and the paging and ticket topics of the alarms.
    template.resourceCountIs('AWS::SNS::Topic', 3);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.eventsTopicArn]: { Ref: logicalId(stack, stack.delivery.eventsTopic as Topic) },
        }),
      },
    });
    template.hasOutput('EventsTopicArn', {});
    template.hasOutput('ParkedTableName', {});
  });

  it("publishes to the user's own topic when given, and creates none", () => {
    const stack = new Stack(testApp(), 'Webhooks');
    const topic = new Topic(stack, 'Mine');
    new WebhookDelivery(stack, 'Delivery', { managementApi: false, eventsTopic: topic });
    const template = Template.fromStack(stack);
    // Mine, and the paging and ticket topics of the alarms.
    template.resourceCountIs('AWS::SNS::Topic', 3);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.eventsTopicArn]: { Ref: stack.getLogicalId(topic.node.defaultChild as never) },
        }),
      },
    });
  });

  it('says in the DLQ alarm that it means the pipeline, not a customer endpoint', () => {
    const { template } = build({});
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmDescription: Match.stringLikeRegexp('poison messages.*infrastructure failures.*parked'),
    });
  });
});
