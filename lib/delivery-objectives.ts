import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Severity } from './alarm-routing';
import type { AlarmSources } from './alarm-sources';
import type { WebhookMetrics } from './metrics';
import type { DeliveryObjectives } from './operations-props';
import type { RunbookName } from './runbooks';

/**
 * The multi-window, multi-burn-rate alerts of the Google SRE workbook ("Alerting on SLOs") for a
 * 30-day objective: each fires when both its long and its short window burn the error budget at
 * least `burnRate` times as fast as the objective allows (2 %, 5 % and 10 % of the budget spent).
 * The short window lets the alarm clear soon after the burn stops.
 */
export const BURN_RATES = [
  { name: 'Fast', long: Duration.hours(1), short: Duration.minutes(5), burnRate: 14.4, severity: 'page' },
  { name: 'Medium', long: Duration.hours(6), short: Duration.minutes(30), burnRate: 6, severity: 'page' },
  { name: 'Slow', long: Duration.days(3), short: Duration.hours(6), burnRate: 1, severity: 'ticket' },
] as const satisfies ReadonlyArray<{
  name: string;
  long: Duration;
  short: Duration;
  burnRate: number;
  severity: Severity;
}>;

/** One objective: the share of bad deliveries in a window, as metric math over the given period. */
interface Objective {
  readonly key: 'deliverySuccess' | 'deliveryLatency';
  readonly id: string;
  readonly target: number;
  readonly what: string;
  readonly badShare: (period: Duration) => cloudwatch.IMetric;
}

/**
 * The delivery objectives' alarms (docs/operations.md#alarm-delivery-success-burn-rate): for
 * the success rate and for the latency, one composite alarm per burn rate over its two window
 * alarms. Nothing when `deliveryObjectives` is `false`.
 */
export function createDeliveryObjectiveAlarms(s: AlarmSources): void {
  const o = s.operations.deliveryObjectives;
  if (!o) return;
  const m = s.metrics;
  const thresholdMs = o.latencyThreshold.toMilliseconds();
  const objectives: Objective[] = [
    {
      key: 'deliverySuccess',
      id: 'DeliverySuccess',
      target: o.successTarget,
      what: 'of deliveries end delivered (not parked, not dead-lettered)',
      badShare: (period) =>
        new cloudwatch.MathExpression({
          // A window with no final result spends no budget.
          expression: 'IF(FILL(final, 0) > 0, (FILL(final, 0) - FILL(delivered, 0)) / FILL(final, 0), 0)',
          usingMetrics: {
            final: m.metric('deliveries', { period }),
            delivered: m.metric('deliveries', { period, by: { name: 'Result', value: 'delivered' } }),
          },
          period,
          label: 'Share of deliveries not delivered',
        }),
    },
    {
      key: 'deliveryLatency',
      id: 'DeliveryLatency',
      target: o.latencyTarget,
      what: `of delivered deliveries arrive within ${o.latencyThreshold.toHumanString()} of publishing`,
      badShare: (period) =>
        new cloudwatch.MathExpression({
          // PR(0:t): the percentage of deliveries at or under t ms (a percentile rank).
          expression: '(100 - fast) / 100',
          usingMetrics: {
            fast: m.metric('deliveryLatency', {
              period,
              statistic: cloudwatch.Stats.percentileRank(0, thresholdMs),
            }),
          },
          period,
          label: `Share of deliveries slower than ${o.latencyThreshold.toHumanString()}`,
        }),
    },
  ];
  for (const objective of objectives) burnRateAlarms(s, objective);
}

function burnRateAlarms(s: AlarmSources, o: Objective): void {
  const budget = Number((1 - o.target).toPrecision(6));
  const percent = (x: number) => `${Number((x * 100).toFixed(3))} %`;
  for (const rate of BURN_RATES) {
    const id = `${o.id}${rate.name}Burn`;
    // Above 1 the alarm could never fire: all bad is a share of 1.
    const threshold = Math.min(1, Number((rate.burnRate * budget).toPrecision(6)));
    const window = (w: Duration, suffix: string) =>
      s.routing.window(`${id}${suffix}`, id, {
        metric: o.badShare(w),
        threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const runbook: RunbookName = o.key;
    s.routing.allOf(
      `${o.key}${rate.name}Burn`,
      id,
      rate.severity,
      runbook,
      `Objective: ${percent(o.target)} ${o.what} over 30 days. In the last ${rate.long.toHumanString()} and ` +
        `the last ${rate.short.toHumanString()}, ${percent(threshold)} or more missed it: the error budget burns ` +
        `${rate.burnRate}x as fast as the objective allows (${percent((rate.burnRate * rate.long.toHours()) / (30 * 24))} ` +
        'of the 30-day budget in the long window).',
      [window(rate.long, 'Long'), window(rate.short, 'Short')],
    );
  }
}

/**
 * The dashboard's view of the objectives: the share of deliveries delivered and the share
 * delivered within the latency threshold per period, with each target drawn as a line.
 */
export function objectivesWidget(
  m: WebhookMetrics,
  o: Required<DeliveryObjectives>,
  size: { width: number; height: number },
): cloudwatch.GraphWidget {
  const ms = o.latencyThreshold.toMilliseconds();
  const within = `within ${o.latencyThreshold.toHumanString()}`;
  return new cloudwatch.GraphWidget({
    title: 'Delivery objectives (% per period)',
    left: [
      new cloudwatch.MathExpression({
        expression: '100 * FILL(delivered, 0) / final',
        usingMetrics: {
          final: m.metric('deliveries'),
          delivered: m.metric('deliveries', { by: { name: 'Result', value: 'delivered' } }),
        },
        label: '% delivered',
      }),
      m.metric('deliveryLatency', {
        statistic: cloudwatch.Stats.percentileRank(0, ms),
        label: `% ${within}`,
      }),
    ],
    leftAnnotations: [
      { value: 100 * o.successTarget, label: `delivered target ${100 * o.successTarget} %` },
      { value: 100 * o.latencyTarget, label: `${within} target ${100 * o.latencyTarget} %` },
    ],
    leftYAxis: { max: 100 },
    ...size,
  });
}
