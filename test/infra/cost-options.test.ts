/**
 * The cost levers of docs/cost.md as construct props: a shorter TTL for a delivery's only
 * record, PITR and provisioned capacity of the attempt log, larger batches with a window.
 * Defaults are unchanged; each option shows in the template, and a wrong value names its prop.
 */

import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { acknowledgeNagFindings } from '../../bin/nag-acknowledgements';
import { ENV } from '../../lambdas/config';
import { WebhookDeliveryPropsError } from '../../lib/webhook-delivery';
import { WebhookStack, type WebhookStackProps } from '../../lib/webhook-stack';
import { testApp } from './fixtures';

const stackWith = (props: WebhookStackProps) => new WebhookStack(testApp(), 'Webhooks', props);
const templateWith = (props: WebhookStackProps) => Template.fromStack(stackWith(props));

/** The attempt log table: the one whose TTL attribute is expiresAt and whose index is sparse. */
function attemptsTable(template: Template): Record<string, any> {
  const tables = template.findResources('AWS::DynamoDB::Table');
  const [found] = Object.entries(tables).filter(([id]) => id.includes('AttemptsTable'));
  return found![1].Properties;
}

function dispatcherEnv(template: Template): Record<string, string> {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ [ENV.attemptsTable]: Match.anyValue() }) } },
  });
  const dispatcher = Object.values(fns).find(
    (f: any) => f.Properties.Environment.Variables[ENV.deliveredTtlDays],
  );
  return (dispatcher as any).Properties.Environment.Variables;
}

describe('cost options of the construct', () => {
  it('keeps the defaults: on-demand attempt log with PITR, batches of 10 without a window, one TTL', () => {
    const template = templateWith({});
    expect(attemptsTable(template)).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    const sources = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(sources).toHaveLength(2);
    for (const s of sources as any[]) {
      expect(s.Properties.BatchSize).toBe(10);
      expect(s.Properties.MaximumBatchingWindowInSeconds).toBeUndefined();
    }
    expect(dispatcherEnv(template)[ENV.deliveredTtlDays]).toBe('30');
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
  });

  it('keeps the record of a delivery that arrived at once for deliveredAttemptTtl, within attemptTtl', () => {
    expect(dispatcherEnv(templateWith({ deliveredAttemptTtl: Duration.days(3) }))[ENV.deliveredTtlDays]).toBe(
      '3',
    );
    expect(() => stackWith({ attemptTtl: Duration.days(7), deliveredAttemptTtl: Duration.days(8) })).toThrow(
      new WebhookDeliveryPropsError(
        'deliveredAttemptTtl',
        'must be at least 1 day and at most 7 days, got 8 days',
      ),
    );
  });

  it('batches up to 100 records with a window on the ingress queue (retries: at most 10, no window), and refuses a large batch without one', () => {
    const template = templateWith({
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      batchConcurrency: 100,
    });
    const sources = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as any[];
    expect(sources.map((s) => [s.Properties.BatchSize, s.Properties.MaximumBatchingWindowInSeconds])).toEqual(
      // The retry queue keeps the spec's 1/2/4 s: a window would hold each retry up to its length.
      [
        [100, 1],
        [10, undefined],
      ],
    );
    expect(() => stackWith({ batchSize: 50 })).toThrow(
      /maxBatchingWindow must be at least 1 second when batchSize/,
    );
    expect(() => stackWith({ batchSize: 101, maxBatchingWindow: Duration.seconds(1) })).toThrow(
      /batchSize must be a whole number from 1 to 100/,
    );
  });

  it('turns PITR off for the attempt log alone, and says why to cdk-nag', () => {
    const stack = stackWith({ attemptLogPointInTimeRecovery: false });
    const template = Template.fromStack(stack);
    expect(attemptsTable(template).PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: false,
    });
    const others = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(
      ([id]) => !id.includes('AttemptsTable'),
    );
    for (const [, t] of others as any[])
      expect(t.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    acknowledgeNagFindings(stack.delivery);
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });

  it('provisions the attempt log and its indexes with auto-scaled writes and reads, the other tables on demand', () => {
    const template = templateWith({
      attemptLogCapacity: { minWriteCapacity: 50, maxWriteCapacity: 2_000, minIndexWriteCapacity: 5 },
    });
    const table = attemptsTable(template);
    expect(table.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
    expect(table.ProvisionedThroughput).toEqual({ WriteCapacityUnits: 50, ReadCapacityUnits: 1 });
    // Index writes are provisioned too: an index short of capacity throttles the table's writes. The
    // by-time index takes every record, so it starts where the table does.
    expect(table.GlobalSecondaryIndexes.map((i: any) => [i.IndexName, i.ProvisionedThroughput])).toEqual([
      ['finalFailures', { WriteCapacityUnits: 5, ReadCapacityUnits: 1 }],
      ['byAttemptTime', { WriteCapacityUnits: 50, ReadCapacityUnits: 1 }],
    ]);
    const others = Object.entries(template.findResources('AWS::DynamoDB::Table')).filter(
      ([id]) => !id.includes('AttemptsTable'),
    );
    for (const [, t] of others as any[]) expect(t.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    const attemptsRef = Object.keys(template.findResources('AWS::DynamoDB::Table')).find((id) =>
      id.includes('AttemptsTable'),
    );
    const targets = template.findResources('AWS::ApplicationAutoScaling::ScalableTarget');
    expect(
      Object.values(targets)
        .map((t: any) => {
          const [, [prefix, ref, suffix]] = t.Properties.ResourceId['Fn::Join'];
          expect(prefix).toBe('table/');
          expect(ref).toEqual({ Ref: attemptsRef });
          return [
            t.Properties.ScalableDimension,
            t.Properties.MinCapacity,
            t.Properties.MaxCapacity,
            suffix ?? '',
          ];
        })
        .sort(),
    ).toEqual(
      [
        ['dynamodb:index:ReadCapacityUnits', 1, 100, '/index/finalFailures'],
        ['dynamodb:index:WriteCapacityUnits', 5, 2_000, '/index/finalFailures'],
        ['dynamodb:index:ReadCapacityUnits', 1, 100, '/index/byAttemptTime'],
        ['dynamodb:index:WriteCapacityUnits', 50, 2_000, '/index/byAttemptTime'],
        ['dynamodb:table:ReadCapacityUnits', 1, 100, ''],
        ['dynamodb:table:WriteCapacityUnits', 50, 2_000, ''],
      ].sort(),
    );
    // One target-tracking policy per scalable target, each aiming at the default 70 %.
    const policies = Object.values(
      template.findResources('AWS::ApplicationAutoScaling::ScalingPolicy'),
    ) as any[];
    expect(policies.map((p) => p.Properties.ScalingTargetId.Ref).sort()).toEqual(Object.keys(targets).sort());
    for (const p of policies)
      expect(p.Properties.TargetTrackingScalingPolicyConfiguration.TargetValue).toBe(70);
  });

  it('aims auto-scaling at the target use given, with nothing for cdk-nag to report', () => {
    const stack = stackWith({
      attemptLogCapacity: { minWriteCapacity: 5, maxWriteCapacity: 50, targetUtilizationPercent: 50 },
    });
    const template = Template.fromStack(stack);
    acknowledgeNagFindings(stack.delivery);
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 6);
    template.allResourcesProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 50 }),
    });
  });

  it.each([
    [
      { minWriteCapacity: 0, maxWriteCapacity: 5 },
      'minWriteCapacity must be a whole number from 1 to 40000, got 0',
    ],
    [
      { minWriteCapacity: 2.5, maxWriteCapacity: 5 },
      'minWriteCapacity must be a whole number from 1 to 40000, got 2.5',
    ],
    [
      { minWriteCapacity: 10, maxWriteCapacity: 5 },
      'maxWriteCapacity must be a whole number from minWriteCapacity (10) to 40000, got 5',
    ],
    [
      { minWriteCapacity: 10, maxWriteCapacity: 50_000 },
      'maxWriteCapacity must be a whole number from minWriteCapacity (10) to 40000, got 50000',
    ],
    [
      { minWriteCapacity: 10, maxWriteCapacity: 20, minIndexWriteCapacity: 30 },
      'minIndexWriteCapacity must be a whole number from 1 to maxWriteCapacity (20), got 30',
    ],
    [
      { minWriteCapacity: 10, maxWriteCapacity: 20, maxReadCapacity: 0 },
      'maxReadCapacity must be a whole number from 1 to 40000, got 0',
    ],
    [
      { minWriteCapacity: 10, maxWriteCapacity: 20, targetUtilizationPercent: 95 },
      'targetUtilizationPercent must be a whole number from 20 to 90, got 95',
    ],
    [true, 'must be { minWriteCapacity, maxWriteCapacity, ... } (leave it out for on-demand), got true'],
  ])('refuses attemptLogCapacity %j at synth, naming the field', (capacity, problem) => {
    expect(() => stackWith({ attemptLogCapacity: capacity as never })).toThrow(
      new WebhookDeliveryPropsError('attemptLogCapacity', problem),
    );
  });
});
