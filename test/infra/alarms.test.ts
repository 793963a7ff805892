import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { STACK_OUTPUTS } from '../../lambdas/stack-outputs';
import { RUNBOOKS } from '../../lib/alarms';
import { DEFAULT_RUNBOOK_BASE_URL } from '../../lib/operations-props';
import { WebhookDelivery } from '../../lib/webhook-delivery';
import { WebhookStack, type WebhookStackProps } from '../../lib/webhook-stack';
import { CUSTOM_PROPS, customStack, defaultStack, logicalId, testApp } from './fixtures';

type Resources = Record<string, { [key: string]: any }>;

/** Every metric and composite alarm of a template, by logical id. */
function allAlarms(t: Template): Resources {
  return {
    ...t.findResources('AWS::CloudWatch::Alarm'),
    ...t.findResources('AWS::CloudWatch::CompositeAlarm'),
  };
}

/** Logical ids of the alarms a composite alarm's rule names (its windows). */
function compositeInputs(t: Template): Set<string> {
  const ids = new Set<string>();
  for (const c of Object.values(t.findResources('AWS::CloudWatch::CompositeAlarm'))) {
    for (const m of JSON.stringify(c.Properties.AlarmRule).matchAll(
      /"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/g,
    )) {
      ids.add(m[1]!);
    }
  }
  return ids;
}

/** The alarms that notify: every alarm but the windows of a composite. */
function notifying(t: Template): Resources {
  const inputs = compositeInputs(t);
  return Object.fromEntries(Object.entries(allAlarms(t)).filter(([id]) => !inputs.has(id)));
}

const stackWith = (props: WebhookStackProps) => new WebhookStack(testApp(), 'Webhooks', props);

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

  it('creates a paging and a ticket topic, and sends every alarm, fired and cleared, to the topic of its severity', () => {
    const topics = defaults.findResources('AWS::SNS::Topic');
    const topicId = (severity: string) =>
      Object.keys(topics).find((id) =>
        topics[id]!.Properties.DisplayName?.startsWith(`Webhooks ${severity} alarms`),
      )!;
    const paging = { Ref: topicId('page') };
    const ticket = { Ref: topicId('ticket') };
    expect(paging.Ref).toBeDefined();
    expect(ticket.Ref).toBeDefined();
    const alarms = Object.values(notifying(defaults));
    expect(alarms.length).toBeGreaterThanOrEqual(20);
    const severities = new Set<string>();
    for (const { Properties: p } of alarms) {
      const severity = /^Severity: (page|ticket)\. /.exec(p.AlarmDescription)?.[1];
      expect(severity).toBeDefined();
      severities.add(severity!);
      const topic = severity === 'page' ? paging : ticket;
      expect(p.AlarmActions).toEqual([topic]);
      expect(p.OKActions).toEqual([topic]);
    }
    expect([...severities].sort()).toEqual(['page', 'ticket']);
  });

  it('gives the windows of a composite alarm no action of their own: the composite notifies', () => {
    const inputs = compositeInputs(defaults);
    expect(inputs.size).toBe(12);
    const alarms = defaults.findResources('AWS::CloudWatch::Alarm');
    for (const id of inputs) {
      expect(alarms[id]!.Properties.AlarmActions).toBeUndefined();
      expect(alarms[id]!.Properties.AlarmDescription).toMatch(
        /^Input of the composite alarm Webhooks-Delivery-/,
      );
    }
  });

  it('names every alarm, stably and uniquely, after the stack and the construct', () => {
    const names = Object.values(allAlarms(defaults)).map(
      (a) => a.Properties.AlarmName ?? a.Properties.CompositeAlarmName,
    );
    expect(names.every((n) => typeof n === 'string' && n.startsWith('Webhooks-Delivery-'))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['Webhooks-Delivery-DeadLetterQueueNotEmpty']));
  });

  it('links each notifying alarm to its runbook on GitHub, or under runbookBaseUrl', () => {
    const anchors = new Set<string>(Object.values(RUNBOOKS));
    for (const { Properties: p } of Object.values(notifying(defaults))) {
      const [, base, anchor] = / Runbook: (\S+)#(\S+)$/.exec(p.AlarmDescription) ?? [];
      expect(base).toBe(DEFAULT_RUNBOOK_BASE_URL);
      expect(anchors.has(anchor!)).toBe(true);
    }
    const own = Template.fromStack(
      stackWith({ runbookBaseUrl: 'https://wiki.example.com/webhooks/runbooks' }),
    );
    own.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Webhooks-Delivery-DeadLetterQueueNotEmpty',
      AlarmDescription: Match.stringLikeRegexp(
        ' Runbook: https://wiki\\.example\\.com/webhooks/runbooks#alarm-dead-letter-queue-not-empty$',
      ),
    });
  });

  it('keeps the default runbook URL on the repository package.json names', () => {
    const pkg = require('../../package.json');
    const repository = String(pkg.repository?.url ?? '')
      .replace(/^git\+/, '')
      .replace(/\.git$/, '');
    expect(DEFAULT_RUNBOOK_BASE_URL).toBe(`${repository}/blob/main/docs/operations.md`);
  });

  it('sends every alarm to alarmTopicArn, the deprecated single topic, and creates no alarm topic then', () => {
    for (const { Properties: p } of Object.values(notifying(custom))) {
      expect(p.AlarmActions).toEqual([CUSTOM_PROPS.alarmTopicArn]);
      expect(p.OKActions).toEqual([CUSTOM_PROPS.alarmTopicArn]);
    }
    // The events topic only.
    custom.resourceCountIs('AWS::SNS::Topic', 1);
  });

  it('uses a given paging topic and ticket topic ARN instead of creating them', () => {
    const own = new Stack(testApp(), 'Own');
    const pager = new sns.Topic(own, 'Pager');
    const delivery = new WebhookDelivery(own, 'Delivery', { pagingTopic: pager });
    delivery.addOutputs();
    const t = Template.fromStack(own);
    // The events topic, the given pager and the construct's ticket topic.
    t.resourceCountIs('AWS::SNS::Topic', 3);
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Own-Delivery-OldestMessageAge',
      AlarmActions: [{ Ref: logicalId(own, pager) }],
      OKActions: [{ Ref: logicalId(own, pager) }],
    });
    t.hasOutput(STACK_OUTPUTS.pagingTopicArn, { Value: { Ref: logicalId(own, pager) } });

    const arn = 'arn:aws:sns:eu-west-1:111122223333:tickets';
    const byArn = Template.fromStack(
      stackWith({ ticketTopicArn: arn, alarmTopicArn: CUSTOM_PROPS.alarmTopicArn }),
    );
    byArn.resourceCountIs('AWS::SNS::Topic', 1);
    byArn.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Webhooks-Delivery-DeadLetterQueueNotEmpty',
      AlarmActions: [arn],
    });
    byArn.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Webhooks-Delivery-OldestMessageAge',
      AlarmActions: [CUSTOM_PROPS.alarmTopicArn],
    });
    byArn.hasOutput(STACK_OUTPUTS.ticketTopicArn, { Value: arn });
  });

  it('outputs the ARNs of the paging and ticket topics', () => {
    const d = stack.delivery;
    defaults.hasOutput(STACK_OUTPUTS.pagingTopicArn, {
      Value: { Ref: logicalId(stack, d.pagingTopic as sns.Topic) },
    });
    defaults.hasOutput(STACK_OUTPUTS.ticketTopicArn, {
      Value: { Ref: logicalId(stack, d.ticketTopic as sns.Topic) },
    });
  });

  it('tells the operator what to do in the alarm description', () => {
    defaults.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('dead-letter queue.*redrive'),
    });
  });
});
