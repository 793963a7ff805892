import { Match, Template } from 'aws-cdk-lib/assertions';
import type { WebhookStack } from '../../lib/webhook-stack';
import { CUSTOM_PROPS, customStack, defaultStack, logicalId } from './fixtures';

describe('alarms', () => {
  let stack: WebhookStack;
  let defaults: Template;
  let custom: Template;

  const queueName = (id: string) => [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id, 'QueueName'] } }];

  beforeAll(() => {
    stack = defaultStack();
    defaults = Template.fromStack(stack);
    custom = Template.fromStack(customStack().stack);
  });

  it('alarms when the DLQ has a message', () => {
    defaults.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: queueName(logicalId(stack, stack.delivery.deadLetterQueue)),
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  const oldestAge = (id: string, queue: Parameters<typeof logicalId>[1]) =>
    Match.objectLike({
      Id: id,
      MetricStat: Match.objectLike({
        Metric: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: queueName(logicalId(stack, queue)),
        },
        Stat: 'Maximum',
      }),
      ReturnData: false,
    });

  it('alarms when the oldest message of the delivery or the retry queue has waited 5 minutes', () => {
    defaults.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'MAX([ingress, retry])', ReturnData: true }),
        oldestAge('ingress', stack.delivery.queue),
        oldestAge('retry', stack.delivery.retryQueue),
      ]),
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 300,
    });
  });

  it('uses the oldestMessageAgeAlarmThreshold prop', () => {
    custom.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'MAX([ingress, retry])' })]),
      Threshold: CUSTOM_PROPS.oldestMessageAgeAlarmThreshold.toSeconds(),
    });
  });

  it('notifies nobody without an alarm topic', () => {
    defaults.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: Match.absent(),
      OKActions: Match.absent(),
    });
  });

  it('sends every alarm, and its return to OK, to the alarm topic when one is given', () => {
    custom.resourceCountIs('AWS::CloudWatch::Alarm', 8);
    custom.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [CUSTOM_PROPS.alarmTopicArn],
      OKActions: [CUSTOM_PROPS.alarmTopicArn],
    });
  });

  it('tells the operator what to do in the alarm description', () => {
    defaults.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('dead-letter queue.*redrive'),
    });
  });
});
