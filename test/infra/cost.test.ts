/**
 * The observability inputs of docs/cost.md are the synthesised stack's: as many alarms, alarm
 * metrics, dashboards and Contributor Insights rules as the default stack holds, and the event
 * source mappings' metrics turned on.
 */

import { Template } from 'aws-cdk-lib/assertions';
import { FIXED, OBSERVABILITY } from '../../bench/cost';
import {
  CLOUDWATCH_METRICS,
  type CloudWatchMetric,
  METRIC_DIMENSIONS,
  type MetricDimension,
} from '../../lambdas/adapters/metrics/catalogue';
import { defaultStack } from './fixtures';

describe('the cost model counts what the stack deploys', () => {
  let template: Template;
  beforeAll(() => {
    template = Template.fromStack(defaultStack());
  });

  it('prices every alarm and each metric its metric math names (the insight rule metric included)', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const metricsOf = (p: any) =>
      p.MetricName
        ? 1
        : (p.Metrics as any[]).filter((m) => m.MetricStat).length +
          (p.Metrics as any[]).reduce(
            (n, m) => n + (m.Expression?.match(/INSIGHT_RULE_METRIC\(/g)?.length ?? 0),
            0,
          );
    expect(alarms).toHaveLength(OBSERVABILITY.alarms);
    expect(alarms.reduce((n, a) => n + metricsOf(a.Properties), 0)).toBe(OBSERVABILITY.alarmMetrics);
    template.resourceCountIs('AWS::CloudWatch::CompositeAlarm', OBSERVABILITY.compositeAlarms!);
  });

  it("prices each Secrets Manager secret the stack itself makes (the console's session key)", () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', FIXED.otherSecrets);
  });

  it('prices the dashboard and the Contributor Insights rule', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', OBSERVABILITY.dashboards);
    template.resourceCountIs('AWS::CloudWatch::InsightRule', OBSERVABILITY.contributorInsightsRules);
  });

  it('prices the event source mapping counts of each mapping that turns them on', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter((m) =>
      m.Properties.MetricsConfig?.Metrics?.includes('EventCount'),
    );
    expect(mappings.length * 5).toBe(OBSERVABILITY.eventSourceMappingMetrics);
  });

  it('counts each catalogue metric with [Stack] and with [Stack, X] for each value of each X it is emitted by', () => {
    const combinations = new Set(
      Object.values(CLOUDWATCH_METRICS).flatMap((m) => [
        `${m.name}|Stack`,
        ...(m.by as readonly MetricDimension[]).flatMap((d) =>
          (
            ((m as CloudWatchMetric).values?.[d] as readonly string[] | undefined) ?? METRIC_DIMENSIONS[d]
          ).map((value) => `${m.name}|Stack,${d}=${value}`),
        ),
      ]),
    );
    expect(combinations.has('Attempts|Stack,Outcome=delivered')).toBe(true);
    // A delivery is parked for 3 reasons, not for every dead-letter reason.
    expect(combinations.has('Parked|Stack,Reason=exhausted')).toBe(true);
    expect(combinations.has('Parked|Stack,Reason=invalid_message')).toBe(false);
    expect(OBSERVABILITY.customMetrics).toBe(combinations.size);
  });
});
