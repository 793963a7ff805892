/**
 * The dispatcher's metrics in local mode: Prometheus text at `GET /metrics` on the local API
 * server (loopback only). The same facts as the EMF adapter in Lambda (adapters/metrics/samples.ts),
 * under the catalogue's Prometheus names: counters with the second dimensions as labels
 * (`webhooks_attempts_total{outcome,status_class}`), durations and latencies as histograms in
 * seconds, and gauges of each queue's depth and oldest message, read from the SQS emulator at
 * scrape time. prom-client keeps the registry and writes the text format (docs/design.md §10 "Metrics").
 */

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CLOUDWATCH_METRICS, type MetricKey, PROMETHEUS_GAUGES } from '../lambdas/adapters/metrics/catalogue';
import { samplesOf } from '../lambdas/adapters/metrics/samples';
import type { MetricFact } from '../lambdas/core/metrics';
import type { Metrics } from '../lambdas/core/ports';
import type { QueueReading } from './fauxqs-queues';

export { fauxqsQueueReader, type QueueReading } from './fauxqs-queues';

/** Attempt durations: 5 ms to the 30 s deadline. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Publish to 2xx: immediate, through the retry schedule (minutes, hours), to a day. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3_600, 14_400, 86_400];

/** `StatusClass` → `status_class`. */
const labelOf = (dimension: string) => dimension.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly counters = new Map<MetricKey, Counter<string> | Histogram<string>>();

  constructor(options: { queues?: () => Promise<QueueReading[]> } = {}) {
    for (const [key, metric] of Object.entries(CLOUDWATCH_METRICS) as [
      MetricKey,
      (typeof CLOUDWATCH_METRICS)[MetricKey],
    ][]) {
      const common = {
        name: metric.prometheus,
        help: metric.help,
        labelNames: metric.by.map(labelOf),
        registers: [this.registry],
      };
      this.counters.set(
        key,
        metric.unit === 'Count'
          ? new Counter(common)
          : new Histogram({
              ...common,
              buckets: key === 'attemptDuration' ? DURATION_BUCKETS : LATENCY_BUCKETS,
            }),
      );
    }
    if (options.queues) this.queueGauges(options.queues);
  }

  record(fact: MetricFact): void {
    for (const sample of samplesOf(fact)) {
      const labels = Object.fromEntries(Object.entries(sample.dims).map(([k, v]) => [labelOf(k), v]));
      const metric = this.counters.get(sample.metric)!;
      if (metric instanceof Histogram) metric.observe(labels, sample.value / 1000);
      else metric.inc(labels, sample.value);
    }
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
