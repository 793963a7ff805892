import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  CLOUDWATCH_METRICS,
  METRIC_DIMENSIONS,
  METRICS_NAMESPACE,
  type MetricDimension,
  type MetricKey,
  STACK_DIMENSION,
} from '../lambdas/adapters/metrics/catalogue';
import { OUTCOMES } from '../lambdas/core/types';

/** The period of the dashboard's graphs and of the alarms on the pipeline's own metrics. */
export const METRIC_PERIOD = Duration.minutes(5);

/** Attempt outcomes that are a failure (every outcome but `delivered`): what the failure log lines carry. */
export const FAILED_OUTCOMES = OUTCOMES.filter((o) => o !== 'delivered');

/** A second dimension of a catalogue metric and one of its values. */
export type DimensionValue = {
  [D in MetricDimension]: { name: D; value: (typeof METRIC_DIMENSIONS)[D][number] };
}[MetricDimension];

export interface WebhookMetricOptions {
  /** One second dimension (the metric must be emitted with it: the catalogue's `by`). */
  readonly by?: DimensionValue;
  /** @default 'Sum' for counts, 'Maximum' for a gauge, 'p99' for durations */
  readonly statistic?: string;
  readonly label?: string;
  /** @default METRIC_PERIOD */
  readonly period?: Duration;
}

/** A count is summed, a gauge's invocation peaks read at their highest, a duration at p99. */
function defaultStatistic(spec: { unit: string; gauge?: true }): string {
  if (spec.gauge) return cloudwatch.Stats.MAXIMUM;
  return spec.unit === 'Count' ? cloudwatch.Stats.SUM : cloudwatch.Stats.p(99);
}

/**
 * The pipeline's metrics in namespace `Webhooks`, named only from the catalogue and always with
 * the `Stack` dimension, so a dashboard or alarm can watch only what the adapters emit.
 */
export class WebhookMetrics {
  constructor(private readonly stackName: string) {}

  /**
   * One catalogue metric, for this stack.
   * @throws Error when `by` is a dimension the metric is not emitted with.
   */
  metric(key: MetricKey, options: WebhookMetricOptions = {}): cloudwatch.Metric {
    const spec = CLOUDWATCH_METRICS[key];
    const by = options.by;
    if (by && !(spec.by as readonly MetricDimension[]).includes(by.name)) {
      throw new Error(`${spec.name} is not emitted by ${by.name} (lambdas/adapters/metrics/catalogue.ts)`);
    }
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: spec.name,
      dimensionsMap: { [STACK_DIMENSION]: this.stackName, ...(by ? { [by.name]: by.value } : {}) },
      statistic: options.statistic ?? defaultStatistic(spec),
      period: options.period ?? METRIC_PERIOD,
      ...(options.label ? { label: options.label } : {}),
    });
  }

  /**
   * The metric once per value of one of its dimensions, labelled with the value: every value
   * the catalogue allows, or those given (e.g. the reasons a delivery is parked for).
   */
  metricBy<D extends MetricDimension>(
    key: MetricKey,
    dimension: D,
    values: readonly (typeof METRIC_DIMENSIONS)[D][number][] = METRIC_DIMENSIONS[dimension],
    options: WebhookMetricOptions = {},
  ): cloudwatch.Metric[] {
    return values.map((value) =>
      this.metric(key, { ...options, by: { name: dimension, value } as DimensionValue, label: value }),
    );
  }

  /** p50, p90 and p99 of a duration metric. */
  percentiles(key: MetricKey): cloudwatch.Metric[] {
    return ['p50', 'p90', 'p99'].map((statistic) => this.metric(key, { statistic, label: statistic }));
  }
}
