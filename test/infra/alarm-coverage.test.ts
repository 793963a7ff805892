/**
 * The alarms beyond the pipeline's own metrics: the dispatcher, its event sources, every table,
 * the queues (new and old dead letters, depth, traffic stopped) and the delivery objectives'
 * burn rates, each with the metric it names and its default threshold.
 */

import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { WebhookDeliveryPropsError } from '../../lib/webhook-delivery';
import { WebhookStack, type WebhookStackProps } from '../../lib/webhook-stack';
import { defaultStack, logicalId, testApp } from './fixtures';

const stackWith = (props: WebhookStackProps) => new WebhookStack(testApp(), 'Webhooks', props);
const named = (name: string, props: Record<string, unknown>) => ({
  AlarmName: `Webhooks-Delivery-${name}`,
  ...props,
});

/** The alarm's metric-math query with this id. */
function query(t: Template, name: string, id: string): any {
  const [alarm] = Object.values(
    t.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: `Webhooks-Delivery-${name}` } }),
  );
  return (alarm!.Properties.Metrics as any[]).find((m) => m.Id === id);
}

describe('alarms on the AWS parts and the delivery objectives', () => {
  let stack: WebhookStack;
  let t: Template;

  beforeAll(() => {
    stack = defaultStack();
    t = Template.fromStack(stack);
  });

  it('alarms on dispatcher throttles, p99 duration at 80 % of the timeout, and event source failures', () => {
    const fn = { Name: 'FunctionName', Value: { Ref: logicalId(stack, stack.delivery.dispatcher) } };
    t.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('DispatcherThrottles', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Dimensions: [fn],
        Statistic: 'Sum',
        Threshold: 10,
      }),
    );
    t.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('DispatcherDurationNearTimeout', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: 72_000,
      }),
    );
    const failed = query(t, 'EventSourceFailures', 'ingress').MetricStat.Metric;
    expect(failed.MetricName).toBe('FailedInvokeEventCount');
    expect(failed.Dimensions[0].Name).toBe('EventSourceMappingUUID');
    expect(query(t, 'EventSourceFailures', 'retry')).toBeDefined();
  });

  it("alarms on the account's concurrency without maxConcurrency, and on the dispatcher's cap with it", () => {
    t.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('ConcurrencyNearLimit', {
        Namespace: 'AWS/Lambda',
        MetricName: 'ConcurrentExecutions',
        Dimensions: Match.absent(),
        Threshold: 800,
        EvaluationPeriods: 3,
      }),
    );
    Template.fromStack(stackWith({ maxConcurrency: 20 })).hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('ConcurrencyNearLimit', {
        MetricName: 'ConcurrentExecutions',
        Dimensions: [Match.objectLike({ Name: 'FunctionName' })],
        Threshold: 32,
      }),
    );
  });

  it('alarms on throttles and system errors of every table', () => {
    const d = stack.delivery;
    const tables = {
      Connections: d.connectionsTable,
      Attempts: d.attemptsTable,
      Parked: d.parkedTable,
      RateWindows: d.rateWindowsTable,
    };
    for (const [name, table] of Object.entries(tables)) {
      const dims = [{ Name: 'TableName', Value: { Ref: logicalId(stack, table) } }];
      expect(query(t, `TableThrottles${name}`, 'reads').MetricStat.Metric).toEqual({
        Namespace: 'AWS/DynamoDB',
        MetricName: 'ReadThrottleEvents',
        Dimensions: dims,
      });
      expect(query(t, `TableThrottles${name}`, 'writes').MetricStat.Metric.MetricName).toBe(
        'WriteThrottleEvents',
      );
      const [alarm] = Object.values(
        t.findResources('AWS::CloudWatch::Alarm', {
          Properties: { AlarmName: `Webhooks-Delivery-TableSystemErrors${name}` },
        }),
      );
      const metrics = (alarm!.Properties.Metrics as any[])
        .filter((m) => m.MetricStat)
        .map((m) => m.MetricStat.Metric);
      expect(metrics.length).toBeGreaterThanOrEqual(2);
      expect(metrics.length).toBeLessThanOrEqual(10);
      expect(metrics.every((m) => m.MetricName === 'SystemErrors')).toBe(true);
      expect(metrics.map((m) => m.Dimensions.find((d: any) => d.Name === 'Operation').Value)).toEqual(
        expect.arrayContaining(['PutItem', 'Query']),
      );
    }
  });

  it('alarms on new dead letters by messages sent or a rise of the visible count, not on the count alone', () => {
    const [alarm] = Object.values(
      t.findResources('AWS::CloudWatch::Alarm', {
        Properties: { AlarmName: 'Webhooks-Delivery-DeadLetterArrivals' },
      }),
    );
    const metrics = alarm!.Properties.Metrics as any[];
    expect(metrics.find((m) => m.ReturnData).Expression).toBe('MAX([FILL(sent, 0), DIFF(FILL(visible, 0))])');
    expect(metrics.find((m) => m.Id === 'sent').MetricStat.Metric.MetricName).toBe('NumberOfMessagesSent');
    expect(metrics.find((m) => m.Id === 'visible').MetricStat.Metric.MetricName).toBe(
      'ApproximateNumberOfMessagesVisible',
    );
    expect(alarm!.Properties.Threshold).toBe(1);
  });

  it('alarms on the oldest dead letter at 75 % of dlqRetention, and on queue depth over 15 minutes', () => {
    t.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('DeadLettersNearExpiry', {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Threshold: 0.75 * 14 * 86_400,
      }),
    );
    t.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('QueueDepth', { Threshold: 10_000, EvaluationPeriods: 3 }),
    );
    expect(query(t, 'QueueDepth', 'ingress').MetricStat.Metric.MetricName).toBe(
      'ApproximateNumberOfMessagesVisible',
    );
    Template.fromStack(stackWith({ queueDepthAlarmThreshold: 500 })).hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('QueueDepth', { Threshold: 500 }),
    );
  });

  it('alarms when nothing is published for trafficStoppedAfter, missing data breaching, and not at all when false', () => {
    const ingress = [
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, stack.delivery.queue), 'QueueName'] } },
    ];
    t.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('TrafficStopped', {
        MetricName: 'NumberOfMessagesSent',
        Dimensions: ingress,
        Period: 10_800,
        Statistic: 'Sum',
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
        AlarmDescription: Match.stringLikeRegexp(
          '^Severity: page\\. .*Only meaningful while applications have connections',
        ),
      }),
    );
    Template.fromStack(stackWith({ trafficStoppedAfter: Duration.minutes(30) })).hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      named('TrafficStopped', { Period: 1800 }),
    );
    const off = Template.fromStack(stackWith({ trafficStoppedAfter: false }));
    expect(
      off.findResources('AWS::CloudWatch::Alarm', {
        Properties: { AlarmName: 'Webhooks-Delivery-TrafficStopped' },
      }),
    ).toEqual({});
  });

  it('alarms on the delivery objectives by burn rate: 1 h/5 min at 14.4x and 6 h/30 min at 6x page, 3 days/6 h at 1x tickets', () => {
    const composites = t.findResources('AWS::CloudWatch::CompositeAlarm');
    const byName = Object.fromEntries(
      Object.values(composites).map((c) => [c.Properties.AlarmName, c.Properties]),
    );
    const expected = [
      ['Fast', 3600, 300, 0.072, 'page'],
      ['Medium', 21_600, 1800, 0.03, 'page'],
      ['Slow', 259_200, 21_600, 0.005, 'ticket'],
    ] as const;
    for (const [speed, long, short, threshold, severity] of expected) {
      const composite = byName[`Webhooks-Delivery-DeliverySuccess${speed}Burn`];
      expect(composite.AlarmDescription).toMatch(new RegExp(`^Severity: ${severity}\\. Objective: 99\\.5 %`));
      for (const [suffix, period] of [
        ['Long', long],
        ['Short', short],
      ] as const) {
        const window = `Webhooks-Delivery-DeliverySuccess${speed}Burn${suffix}`;
        const [windowId, alarm] = Object.entries(
          t.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: window } }),
        )[0]!;
        const metrics = alarm!.Properties.Metrics as any[];
        expect(alarm!.Properties.Threshold).toBe(threshold);
        expect(metrics.find((m) => m.ReturnData).Expression).toBe(
          'IF(FILL(final, 0) > 0, (FILL(final, 0) - FILL(delivered, 0)) / FILL(final, 0), 0)',
        );
        expect(metrics.find((m) => m.Id === 'final').MetricStat).toMatchObject({
          Metric: { MetricName: 'Deliveries' },
          Period: period,
          Stat: 'Sum',
        });
        expect(metrics.find((m) => m.Id === 'delivered').MetricStat.Metric.Dimensions).toContainEqual({
          Name: 'Result',
          Value: 'delivered',
        });
        expect(alarm!.Properties.AlarmActions).toBeUndefined();
        expect(JSON.stringify(composite.AlarmRule)).toContain(`"${windowId}","Arn"`);
      }
    }
  });

  it('measures the latency objective by the percentile rank of DeliveryLatency under the threshold', () => {
    const [alarm] = Object.values(
      t.findResources('AWS::CloudWatch::Alarm', {
        Properties: { AlarmName: 'Webhooks-Delivery-DeliveryLatencyFastBurnLong' },
      }),
    );
    const metrics = alarm!.Properties.Metrics as any[];
    expect(metrics.find((m) => m.ReturnData).Expression).toBe('(100 - fast) / 100');
    expect(metrics.find((m) => m.Id === 'fast').MetricStat).toMatchObject({
      Metric: { MetricName: 'DeliveryLatency' },
      Stat: 'PR(0:30000)',
      Period: 3600,
    });
    expect(alarm!.Properties.Threshold).toBe(0.144);
    const custom = Template.fromStack(
      stackWith({ deliveryObjectives: { latencyTarget: 0.95, latencyThreshold: Duration.seconds(10) } }),
    );
    const [own] = Object.values(
      custom.findResources('AWS::CloudWatch::Alarm', {
        Properties: { AlarmName: 'Webhooks-Delivery-DeliveryLatencySlowBurnShort' },
      }),
    );
    expect((own!.Properties.Metrics as any[]).find((m) => m.Id === 'fast').MetricStat.Stat).toBe(
      'PR(0:10000)',
    );
    expect(own!.Properties.Threshold).toBe(0.05);
  });

  it('leaves the burn-rate alarms out when deliveryObjectives is false', () => {
    t.resourceCountIs('AWS::CloudWatch::CompositeAlarm', 6);
    Template.fromStack(stackWith({ deliveryObjectives: false })).resourceCountIs(
      'AWS::CloudWatch::CompositeAlarm',
      0,
    );
  });

  it.each([
    [
      'trafficStoppedAfter 10 minutes',
      { trafficStoppedAfter: Duration.minutes(10) },
      'trafficStoppedAfter',
      /whole minutes from 15 to 1440, got 10 minutes/,
    ],
    [
      'trafficStoppedAfter 2 days',
      { trafficStoppedAfter: Duration.days(2) },
      'trafficStoppedAfter',
      /whole minutes from 15 to 1440/,
    ],
    [
      'queueDepthAlarmThreshold 0',
      { queueDepthAlarmThreshold: 0 },
      'queueDepthAlarmThreshold',
      /whole number from 1 to 10000000, got 0/,
    ],
    [
      'successTarget 1',
      { deliveryObjectives: { successTarget: 1 } },
      'deliveryObjectives',
      /successTarget must be more than 0 and less than 1/,
    ],
    [
      'latencyThreshold 1.5 s',
      { deliveryObjectives: { latencyThreshold: Duration.millis(1500) } },
      'deliveryObjectives',
      /latencyThreshold must be whole seconds/,
    ],
    [
      'an http runbookBaseUrl',
      { runbookBaseUrl: 'http://wiki.example.com/runbooks' },
      'runbookBaseUrl',
      /must be an https:\/\/ URL/,
    ],
  ] as const)('refuses %s, naming the prop', (_, props, prop, message) => {
    let error: unknown;
    try {
      stackWith(props as WebhookStackProps);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WebhookDeliveryPropsError);
    expect((error as WebhookDeliveryPropsError).prop).toBe(prop);
    expect((error as Error).message).toMatch(message);
  });
});
