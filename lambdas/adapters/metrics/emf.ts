/**
 * The dispatcher's metrics in Lambda: CloudWatch Embedded Metric Format. Facts are aggregated
 * over an invocation and written once at its end (`flush`, called by the handler whether or not
 * records failed), as JSON lines on stdout that CloudWatch Logs turns into metrics with no
 * PutMetricData call. Never a line per success.
 *
 * The core's facts are kept as recorded and turned into samples (samples.ts) at the flush, once
 * for the whole invocation. One document holds one value per dimension, so an invocation whose
 * attempts had two outcomes needs two documents. The fewest are written: every metric's values
 * for one set of dimension values go into the first document whose dimensions agree (a healthy
 * batch is one document: Outcome=delivered, StatusClass=2xx, Result=delivered, with every
 * duration as one array), and each metric is emitted with the sets `[Stack]` and `[Stack, X]` of
 * the catalogue. Counts are summed; durations and latencies are arrays of up to 100 values (EMF's
 * limit), so CloudWatch keeps every value for percentiles; a gauge (deliveries in flight) is the
 * highest level it reached during the invocation, read from the dispatcher's limiter at the
 * flush. No connection or application id is ever a dimension. Nothing is written for what was
 * not counted: a series exists in CloudWatch from its first value, and an alarm reads a period
 * without one as missing data (docs/operations.md "Metrics").
 */

import type { InFlight } from '../../core/limiter';
import type { MetricFact } from '../../core/metrics';
import type { Clock, Metrics } from '../../core/ports';
import {
  CLOUDWATCH_METRICS,
  METRICS_NAMESPACE,
  type MetricDimension,
  type MetricKey,
  STACK_DIMENSION,
} from './catalogue';
import { type Sample, samplesOf } from './samples';

/** EMF accepts at most this many values for one metric in one document. */
export const MAX_VALUES_PER_METRIC = 100;

export interface EmfDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}

/** One EMF document: the `_aws` metadata, the dimension values and the metric values, top level. */
export interface EmfDocument {
  _aws: { Timestamp: number; CloudWatchMetrics: EmfDirective[] };
  [member: string]: unknown;
}

export interface EmfMetricsOptions {
  /** The `Stack` dimension's value: the stack's name (lambdas/config.ts `stackName`). */
  stack: string;
  clock?: Clock;
  /** Where each document goes, as one line. @default stdout (Lambda sends it to CloudWatch Logs) */
  write?: (line: string) => void;
}

interface Group {
  metric: MetricKey;
  dims: Sample['dims'];
  values: number[];
}

interface Packed {
  dims: Partial<Record<MetricDimension, string>>;
  groups: Group[];
}

const ORDER = Object.keys(CLOUDWATCH_METRICS) as MetricKey[];

export class EmfMetrics implements Metrics {
  /** What was recorded since the last flush. */
  private readonly facts: MetricFact[] = [];
  /** The dispatchers' attempts in flight (in Lambda one per container). */
  private readonly inFlight: Array<() => InFlight> = [];
  private readonly clock: Clock;
  private readonly write: (line: string) => void;

  constructor(private readonly options: EmfMetricsOptions) {
    this.clock = options.clock ?? { now: () => Date.now() };
    this.write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** Kept as they are: turned into samples and grouped once per invocation, at the flush. */
  record(...facts: MetricFact[]): void {
    this.facts.push(...facts);
  }

  /** Samples a dispatcher's attempts in flight at each flush (the wiring hands it over). */
  readInFlight(reader: () => InFlight): void {
    this.inFlight.push(reader);
  }

  /** Writes what was recorded since the last flush, with the peak in flight, and forgets it. */
  flush(): void {
    const peak = this.inFlight.reduce((sum, read) => sum + read().peak, 0);
    const groups = this.grouped();
    this.facts.length = 0;
    // No slot held since the last flush: not written, like any metric without a value.
    if (peak > 0) groups.push({ metric: 'deliveriesInFlight', dims: {}, values: [peak] });
    for (const document of this.documents(groups)) this.write(JSON.stringify(document));
  }

  /** The facts' samples, one group per metric and dimension values: counts summed, durations listed. */
  private grouped(): Group[] {
    const groups = new Map<string, Group>();
    for (const sample of samplesOf(this.facts)) {
      const key = `${sample.metric}|${Object.entries(sample.dims).join('|')}`;
      const group = groups.get(key);
      const summed = CLOUDWATCH_METRICS[sample.metric].unit === 'Count';
      if (!group) groups.set(key, { metric: sample.metric, dims: sample.dims, values: [sample.value] });
      else if (summed) group.values[0]! += sample.value;
      else group.values.push(sample.value);
    }
    return [...groups.values()];
  }

  /** The fewest documents holding the groups (none: none). */
  private documents(groups: Group[]): EmfDocument[] {
    const packed: Packed[] = [];
    groups.sort((a, b) => ORDER.indexOf(a.metric) - ORDER.indexOf(b.metric));
    for (const group of groups) {
      for (let i = 0; i < group.values.length; i += MAX_VALUES_PER_METRIC) {
        const chunk = { ...group, values: group.values.slice(i, i + MAX_VALUES_PER_METRIC) };
        const fits = (doc: Packed) =>
          !doc.groups.some((g) => g.metric === chunk.metric) &&
          Object.entries(chunk.dims).every(([k, v]) => (doc.dims[k as MetricDimension] ?? v) === v);
        let doc = packed.find(fits);
        if (!doc) {
          doc = { dims: {}, groups: [] };
          packed.push(doc);
        }
        Object.assign(doc.dims, chunk.dims);
        doc.groups.push(chunk);
      }
    }
    const timestamp = this.clock.now();
    return packed.map((doc) => this.render(doc, timestamp));
  }

  private render(doc: Packed, timestamp: number): EmfDocument {
    const directives = new Map<string, EmfDirective>();
    const members: Record<string, unknown> = { [STACK_DIMENSION]: this.options.stack, ...doc.dims };
    for (const group of doc.groups) {
      const metric = CLOUDWATCH_METRICS[group.metric];
      const keys = Object.keys(group.dims);
      let directive = directives.get(keys.join());
      if (!directive) {
        directive = {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [[STACK_DIMENSION], ...keys.map((k) => [STACK_DIMENSION, k])],
          Metrics: [],
        };
        directives.set(keys.join(), directive);
      }
      directive.Metrics.push({ Name: metric.name, Unit: metric.unit });
      members[metric.name] = metric.unit === 'Count' ? group.values[0] : group.values;
    }
    return { _aws: { Timestamp: timestamp, CloudWatchMetrics: [...directives.values()] }, ...members };
  }
}
