/**
 * The dispatcher's metrics in local mode: Prometheus text at `GET /metrics` on the local API
 * server (loopback only). The same facts as the EMF adapter in Lambda (adapters/metrics/samples.ts),
 * under the catalogue's Prometheus names: counters with the second dimensions as labels
 * (`webhooks_attempts_total{outcome,status_class}`), every labelled series there from the start
 * at zero, durations and latencies as histograms in seconds, the deliveries in flight as a
 * gauge read from the dispatchers at scrape time, and gauges of each queue's depth and oldest message, read from the SQS emulator at
 * scrape time. prom-client keeps the registry and writes the text format (docs/design.md §10 "Metrics").
 */

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  CLOUDWATCH_METRICS,
  type CloudWatchMetric,
  METRIC_DIMENSIONS,
  type MetricDimension,
  type MetricKey,
  PROMETHEUS_GAUGES,
} from '../lambdas/adapters/metrics/catalogue';
import { samplesOf } from '../lambdas/adapters/metrics/samples';
import type { InFlight } from '../lambdas/core/limiter';
import type { MetricFact } from '../lambdas/core/metrics';
import type { Metrics } from '../lambdas/core/ports';
import { OUTCOMES } from '../lambdas/core/types';
import type { QueueReading } from './fauxqs-queues';

export { fauxqsQueueReader, type QueueReading } from './fauxqs-queues';

/** Attempt durations: 5 ms to the 30 s deadline, and past it (a send that overran its deadline). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 35, 60];
/** Publish to 2xx: immediate, through the retry schedule (minutes, hours), to a day. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3_600, 14_400, 86_400];
/** Retry start lag: on time (SQS delays to the second, a batching window) to minutes behind. */
const LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];

const BUCKETS: Partial<Record<MetricKey, number[]>> = {
  attemptDuration: DURATION_BUCKETS,
  deliveryLatency: LATENCY_BUCKETS,
  retryStartLag: LAG_BUCKETS,
};

/** `StatusClass` → `status_class`. */
const labelOf = (dimension: string) => dimension.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

/** The status classes an outcome comes with: the attempts series that exist from the start. */
const CLASSES_OF: Record<(typeof OUTCOMES)[number], string[]> = {
  delivered: ['2xx'],
  http_error: ['3xx', '4xx', '5xx', 'other'],
  timeout: ['none'],
  network_error: ['none'],
  blocked: ['none'],
  rejected: ['none'],
};

/**
 * Every labelled series a metric can have, to start at zero: `increase()` then sees the first
 * count after a restart (a series born at 1 shows no increase). Attempts: each outcome with
 * the status classes it comes with.
 */
function seriesOf(key: MetricKey, metric: CloudWatchMetric): Record<string, string>[] {
  if (key === 'attempts') {
    return OUTCOMES.flatMap((outcome) => CLASSES_OF[outcome].map((c) => ({ outcome, status_class: c })));
  }
  const [dimension] = metric.by as readonly MetricDimension[];
  if (!dimension) return [];
  const values = (metric.values?.[dimension] ?? METRIC_DIMENSIONS[dimension]) as readonly string[];
  return values.map((value) => ({ [labelOf(dimension)]: value }));
}

type Instrument = Counter<string> | Histogram<string> | Gauge<string>;

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly counters = new Map<MetricKey, Instrument>();
  /** Each dispatcher instance's attempts in flight (local mode runs several), summed at scrape time. */
  private readonly inFlight: Array<() => InFlight> = [];

  constructor(options: { queues?: () => Promise<QueueReading[]> } = {}) {
    for (const [key, metric] of Object.entries(CLOUDWATCH_METRICS) as [MetricKey, CloudWatchMetric][]) {
      const common = {
        name: metric.prometheus,
        help: metric.help,
        labelNames: metric.by.map(labelOf),
        registers: [this.registry],
      };
      let instrument: Instrument;
      const readers = this.inFlight;
      if (metric.gauge) {
        instrument = new Gauge({
          ...common,
          collect() {
            this.set(readers.reduce((sum, read) => sum + read().now, 0));
          },
        });
      } else if (metric.unit === 'Count') instrument = new Counter(common);
      else instrument = new Histogram({ ...common, buckets: BUCKETS[key] ?? LATENCY_BUCKETS });
      for (const labels of seriesOf(key, metric)) {
        if (instrument instanceof Histogram) instrument.zero(labels);
        else instrument.inc(labels, 0);
      }
      this.counters.set(key, instrument);
    }
    if (options.queues) this.queueGauges(options.queues);
  }

  record(...facts: MetricFact[]): void {
    for (const sample of samplesOf(facts)) {
      const labels = Object.fromEntries(Object.entries(sample.dims).map(([k, v]) => [labelOf(k), v]));
      const metric = this.counters.get(sample.metric)!;
      if (metric instanceof Histogram) metric.observe(labels, sample.value / 1000);
      else metric.inc(labels, sample.value);
    }
  }

  /** Samples a dispatcher's attempts in flight at each scrape (the wiring hands it over). */
  readInFlight(reader: () => InFlight): void {
    this.inFlight.push(reader);
  }

  /** The text format a Prometheus server scrapes. */
  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Gauges read at scrape time; an unreadable emulator leaves them empty, never fails the scrape. */
  private queueGauges(queues: () => Promise<QueueReading[]>): void {
    let reading: Promise<QueueReading[]> | undefined;
    // Both gauges of one scrape share one reading.
    const read = () => {
      reading ??= queues()
        .catch(() => [])
        .finally(() => setImmediate(() => (reading = undefined)));
      return reading;
    };
    new Gauge({
      name: PROMETHEUS_GAUGES.queueDepth.prometheus,
      help: PROMETHEUS_GAUGES.queueDepth.help,
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const q of await read()) {
          this.set({ queue: q.queue, state: 'visible' }, q.visible);
          this.set({ queue: q.queue, state: 'delayed' }, q.delayed);
          this.set({ queue: q.queue, state: 'in_flight' }, q.inFlight);
        }
      },
    });
    new Gauge({
      name: PROMETHEUS_GAUGES.queueOldestAge.prometheus,
      help: PROMETHEUS_GAUGES.queueOldestAge.help,
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const q of await read()) this.set({ queue: q.queue }, q.oldestAgeSeconds);
      },
    });
  }
}
