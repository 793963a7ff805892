/**
 * The dashboard, the alarms and their runbooks: every metric they name in namespace `Webhooks`
 * is one the catalogue lists (so the adapters' tests hold it emitted), every alarm links a
 * runbook heading that exists in docs/operations.md, and the fleet failure alarm has the shape
 * that keeps one customer's outage quiet.
 */

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import {
  CLOUDWATCH_METRICS,
  METRIC_DIMENSIONS,
  METRICS_NAMESPACE,
  STACK_DIMENSION,
} from '../../lambdas/adapters/metrics/catalogue';
import { RUNBOOK_FILE, RUNBOOKS } from '../../lib/alarms';
import { FAILED_OUTCOMES } from '../../lib/metrics';
import { WebhookDeliveryPropsError } from '../../lib/webhook-delivery';
import { WebhookStack, type WebhookStackProps } from '../../lib/webhook-stack';
import { headingAnchors } from '../support/markdown';
import { defaultStack, logicalId, testApp } from './fixtures';

interface NamedMetric {
  where: string;
  namespace: string;
  name: string;
  dimensions: Record<string, unknown>;
}

const stackWith = (props: WebhookStackProps) => new WebhookStack(testApp(), 'Webhooks', props);

/** The dashboard body as JSON, each CloudFormation token inside it replaced by `TOKEN`. */
function dashboardBody(template: Template): { widgets: Array<{ type: string; properties: any }> } {
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const parts: unknown[] = dashboard!.Properties.DashboardBody['Fn::Join'][1];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'TOKEN')).join(''));
}

/** Every metric a dashboard widget graphs: `[namespace, name, dim, value, …, options?]`. */
function dashboardMetrics(template: Template): NamedMetric[] {
  return dashboardBody(template).widgets.flatMap((w) =>
    (w.properties.metrics ?? [])
      .filter((row: unknown[]) => typeof row[0] === 'string')
      .map((row: unknown[]) => {
        const [namespace, name, ...rest] = row.filter((x) => typeof x === 'string') as string[];
        const dimensions: Record<string, unknown> = {};
        for (let i = 0; i + 1 < rest.length; i += 2) dimensions[rest[i]!] = rest[i + 1];
        return { where: `widget "${w.properties.title}"`, namespace: namespace!, name: name!, dimensions };
      }),
  );
}

/** Every metric an alarm names, alone or inside its metric math. */
function alarmMetrics(template: Template): NamedMetric[] {
  return Object.entries(template.findResources('AWS::CloudWatch::Alarm')).flatMap(([id, alarm]) => {
    const p = alarm.Properties;
    const dims = (list: Array<{ Name: string; Value: unknown }> = []) =>
      Object.fromEntries(list.map((d) => [d.Name, d.Value]));
    if (p.MetricName) {
      return [{ where: id, namespace: p.Namespace, name: p.MetricName, dimensions: dims(p.Dimensions) }];
    }
    return (p.Metrics ?? [])
      .filter((m: any) => m.MetricStat)
      .map((m: any) => ({
        where: id,
        namespace: m.MetricStat.Metric.Namespace,
        name: m.MetricStat.Metric.MetricName,
        dimensions: dims(m.MetricStat.Metric.Dimensions),
      }));
  });
}

/** Why a metric in namespace `Webhooks` is not one the adapters emit, or undefined when it is. */
function offCatalogue(m: NamedMetric): string | undefined {
  const spec = Object.values(CLOUDWATCH_METRICS).find((s) => s.name === m.name);
  if (!spec) return `${m.where}: ${m.name} is not in the catalogue`;
  if (m.dimensions[STACK_DIMENSION] !== 'Webhooks') return `${m.where}: ${m.name} lacks Stack=Webhooks`;
  const others = Object.entries(m.dimensions).filter(([name]) => name !== STACK_DIMENSION);
  if (others.length === 0) return undefined;
  const [[name, value]] = others as [[string, unknown]];
  const allowed = (spec.by as readonly string[]).includes(name);
  const values = (METRIC_DIMENSIONS as Record<string, readonly string[]>)[name] ?? [];
  if (others.length > 1 || !allowed || !values.includes(value as string)) {
    return `${m.where}: ${m.name} by ${JSON.stringify(Object.fromEntries(others))} is not emitted`;
  }
  return undefined;
}

describe('dashboard and alarms', () => {
  let stack: WebhookStack;
  let template: Template;
  const operations = readFileSync(path.join(__dirname, '..', '..', RUNBOOK_FILE), 'utf8');

  beforeAll(() => {
    stack = defaultStack();
    template = Template.fromStack(stack);
  });

  it('names only metrics of the catalogue, with the Stack dimension and at most one emitted second dimension', () => {
    const named = [...dashboardMetrics(template), ...alarmMetrics(template)].filter(
      (m) => m.namespace === METRICS_NAMESPACE,
    );
    // Attempts (outcome and status class), durations, results, health, infrastructure, …
    expect(new Set(named.map((m) => m.name)).size).toBe(Object.keys(CLOUDWATCH_METRICS).length);
    expect(named.map(offCatalogue).filter(Boolean)).toEqual([]);
  });

  it('would catch a widget naming a metric the adapters do not emit', () => {
    const ok = { where: 'w', namespace: METRICS_NAMESPACE, dimensions: { Stack: 'Webhooks' } };
    expect(offCatalogue({ ...ok, name: 'Attempts' })).toBeUndefined();
    expect(offCatalogue({ ...ok, name: 'AttemptsTotal' })).toMatch(/not in the catalogue/);
    expect(
      offCatalogue({ ...ok, name: 'Attempts', dimensions: { Stack: 'Webhooks', Result: 'parked' } }),
    ).toMatch(/not emitted/);
    expect(offCatalogue({ ...ok, name: 'Attempts', dimensions: {} })).toMatch(/lacks Stack/);
  });

  it('holds one dashboard with the widgets an operator starts from, and none when dashboard is false', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const titles = dashboardBody(template).widgets.map((w) => w.properties.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Alarms',
        'Success ratio (% of attempts delivered)',
        'Attempts by outcome',
        'Attempts by response status class',
        'Attempt duration (ms)',
        'Delivery latency, publish to 2xx (ms)',
        'Event sources: records polled, invoked, failed, deleted',
        'Dispatcher duration against its timeout (ms)',
        'Dispatcher concurrency against its cap',
        'DynamoDB throttled requests',
        'Health transitions by state entered',
        'Top failing connections (dispatcher log, failed attempts)',
        'Top failing connections (Contributor Insights)',
        'Management API: errors',
        'Management API: latency (ms)',
      ]),
    );
    Template.fromStack(stackWith({ dashboard: false })).resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });

  it('shows every notifying alarm in the alarm status widget, composites included, not their windows', () => {
    const widget = dashboardBody(template).widgets.find((w) => w.type === 'alarm')!;
    const composites = Object.keys(template.findResources('AWS::CloudWatch::CompositeAlarm')).length;
    const windows = 2 * composites;
    expect(composites).toBe(6);
    expect(widget.properties.alarms).toHaveLength(
      Object.keys(template.findResources('AWS::CloudWatch::Alarm')).length - windows + composites,
    );
    expect(widget.properties.alarms).toHaveLength(Object.keys(stack.delivery.alarms).length);
  });

  it('turns on the event source mappings’ own counts, which the dashboard graphs by mapping', () => {
    const mappings = template.findResources('AWS::Lambda::EventSourceMapping');
    expect(Object.values(mappings).map((m) => m.Properties.MetricsConfig)).toEqual([
      { Metrics: ['EventCount'] },
      { Metrics: ['EventCount'] },
    ]);
    const esm = dashboardMetrics(template).filter((m) => 'EventSourceMappingUUID' in m.dimensions);
    expect(new Set(esm.map((m) => m.name))).toEqual(
      new Set(['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DeletedEventCount']),
    );
  });

  it('draws the dispatcher timeout on its duration graph and the concurrency cap when maxConcurrency sets one', () => {
    const widget = (t: Template, title: string) =>
      dashboardBody(t).widgets.find((w) => w.properties.title === title)!.properties;
    expect(widget(template, 'Dispatcher duration against its timeout (ms)').annotations.horizontal).toEqual([
      { value: 90_000, label: 'timeout 1 minute 30 seconds', yAxis: 'left' },
    ]);
    expect(widget(template, 'Dispatcher concurrency against its cap').annotations).toBeUndefined();
    const capped = Template.fromStack(stackWith({ maxConcurrency: 20 }));
    expect(widget(capped, 'Dispatcher concurrency against its cap').annotations.horizontal).toEqual([
      { value: 40, label: 'cap: 2 × maxConcurrency = 40', yAxis: 'left' },
    ]);
  });

  it('queries the dispatcher log for the top failing connections', () => {
    const log = dashboardBody(template).widgets.find((w) => w.type === 'log')!;
    expect(log.properties.query).toMatch(/filter ispresent\(connectionId\) and outcome in \["http_error"/);
    expect(log.properties.query).toMatch(/stats count\(\*\) as failedAttempts.* by connectionId/);
  });

  it('has one alarm per key of delivery.alarms, the management API 5xx only with the API', () => {
    const api = (d: WebhookStack) => Object.keys(d.delivery.alarms).includes('managementApi5xx');
    expect(api(stack)).toBe(true);
    expect(api(stackWith({ managementApi: false }))).toBe(false);
  });

  it('links each alarm to a runbook heading that exists in docs/operations.md, and every runbook to an alarm', () => {
    const anchors = headingAnchors(operations);
    const alarms = [
      ...Object.values(template.findResources('AWS::CloudWatch::Alarm')),
      ...Object.values(template.findResources('AWS::CloudWatch::CompositeAlarm')),
    ].filter((a) => a.Properties.AlarmActions);
    const linked = alarms.map(
      (a) => /Runbook: \S+operations\.md#([a-z0-9-]+)$/.exec(a.Properties.AlarmDescription)?.[1],
    );
    expect(linked.filter((anchor) => anchor === undefined || !anchors.has(anchor))).toEqual([]);
    expect(new Set(linked)).toEqual(new Set(Object.values(RUNBOOKS)));
  });

  it('counts failed attempts per connection with a Contributor Insights rule on the dispatcher log', () => {
    const [rule] = Object.values(template.findResources('AWS::CloudWatch::InsightRule'));
    const [, [head, logGroup, tail]] = rule!.Properties.RuleBody['Fn::Join'];
    expect(logGroup).toEqual({ Ref: logicalId(stack, stack.delivery.logGroup) });
    expect(JSON.parse(`${head}LOG_GROUP${tail}`)).toEqual({
      Schema: { Name: 'CloudWatchLogRule', Version: 1 },
      LogGroupNames: ['LOG_GROUP'],
      LogFormat: 'JSON',
      Contribution: { Keys: ['$.connectionId'], Filters: [{ Match: '$.outcome', In: [...FAILED_OUTCOMES] }] },
      AggregateOn: 'Count',
    });
    expect(rule!.Properties.RuleState).toBe('ENABLED');
    expect(FAILED_OUTCOMES).not.toContain('delivered');
  });

  const fleetExpression = (t: Template) => {
    const alarm = Object.entries(t.findResources('AWS::CloudWatch::Alarm')).find(([id]) =>
      id.includes('FleetFailure'),
    )![1];
    return alarm.Properties.Metrics as any[];
  };

  it('raises the fleet alarm only when most attempts fail across many distinct connections', () => {
    const metrics = fleetExpression(template);
    const ruleName = stack.delivery.failingConnections.ruleName;
    expect(metrics.find((m) => m.ReturnData).Expression).toBe(
      'IF(FILL(attempts, 0) > 0 AND (FILL(attempts, 0) - FILL(delivered, 0)) / FILL(attempts, 0) >= 0.5 AND ' +
        `FILL(INSIGHT_RULE_METRIC('${ruleName}', 'UniqueContributors'), 0) >= 10, 1, 0)`,
    );
    const stat = (id: string) => metrics.find((m) => m.Id === id).MetricStat;
    expect(stat('attempts')).toEqual({
      Metric: {
        Namespace: 'Webhooks',
        MetricName: 'Attempts',
        Dimensions: [{ Name: 'Stack', Value: 'Webhooks' }],
      },
      Period: 300,
      Stat: 'Sum',
    });
    expect(stat('delivered').Metric.Dimensions).toEqual([
      { Name: 'Outcome', Value: 'delivered' },
      { Name: 'Stack', Value: 'Webhooks' },
    ]);
    template.hasResourceProperties('AWS::CloudWatch::InsightRule', { RuleName: ruleName });
  });

  it('takes the fleet thresholds from alarmThresholds', () => {
    const t = Template.fromStack(
      stackWith({ alarmThresholds: { fleetFailureRatio: 0.8, fleetFailureConnections: 25 } }),
    );
    expect(fleetExpression(t).find((m) => m.ReturnData).Expression).toMatch(
      /\/ FILL\(attempts, 0\) >= 0\.8 AND FILL\(INSIGHT_RULE_METRIC\('[^']+', 'UniqueContributors'\), 0\) >= 25, 1, 0\)$/,
    );
  });

  it('takes the count thresholds from alarmThresholds', () => {
    const t = Template.fromStack(
      stackWith({ alarmThresholds: { infrastructureFailures: 50, blockedDestinations: 3 } }),
    );
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'InfrastructureFailures',
      Threshold: 50,
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'BlockedDestinations', Threshold: 3 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'InfrastructureFailures',
      Threshold: 5,
    });
  });

  it.each([
    [
      { fleetFailureRatio: 0 },
      'fleetFailureRatio must be more than 0 and at most 1 (a share of all attempts), got 0',
    ],
    [
      { fleetFailureRatio: 1.5 },
      'fleetFailureRatio must be more than 0 and at most 1 (a share of all attempts), got 1.5',
    ],
    [{ fleetFailureConnections: 1 }, 'fleetFailureConnections must be a whole number from 2 to 10000, got 1'],
    [{ dispatcherErrors: 0 }, 'dispatcherErrors must be a whole number from 1 to 10000, got 0'],
    [{ managementApi5xx: 2.5 }, 'managementApi5xx must be a whole number from 1 to 10000, got 2.5'],
  ])('rejects alarmThresholds %j, naming the threshold', (alarmThresholds, problem) => {
    expect(() => stackWith({ alarmThresholds })).toThrow(
      new WebhookDeliveryPropsError('alarmThresholds', problem),
    );
  });
});
