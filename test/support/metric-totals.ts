/**
 * The metrics a run emitted, as CloudWatch would total them: the production EMF adapter's
 * documents summed per metric under `[Stack]` (and `Deliveries` per `Result`). The fault suite's
 * ledger holds them against what the attempt log, the parked table and the DLQ hold, so a metric
 * that silently stops being emitted fails every scenario.
 */

import type { EmfDocument } from '../../lambdas/adapters/metrics/emf';
import type { AttemptRecord } from '../../lambdas/core/types';
import type { DlqMessage, Ledger } from './ledger';

export interface MetricTotalsView {
  /** Metric name → its total under `[Stack]`. */
  readonly byMetric: Record<string, number>;
  /** `Deliveries` by `Result`. */
  readonly deliveries: Record<string, number>;
}

export class MetricTotals implements MetricTotalsView {
  readonly byMetric: Record<string, number> = {};
  readonly deliveries: Record<string, number> = {};

  /** Adds one EMF document (a line the adapter wrote). */
  add(doc: EmfDocument): void {
    for (const directive of doc._aws.CloudWatchMetrics) {
      for (const metric of directive.Metrics) {
        const value = doc[metric.Name] as number | number[];
        // Durations count their values; counts are sums.
        const total = Array.isArray(value) ? value.length : value;
        this.byMetric[metric.Name] = (this.byMetric[metric.Name] ?? 0) + total;
        if (metric.Name === 'Deliveries') {
          const result = String(doc.Result);
          this.deliveries[result] = (this.deliveries[result] ?? 0) + total;
        }
      }
    }
  }

  /** Adds another process's totals (a dispatcher in a child process). */
  merge(other: MetricTotalsView): void {
    for (const [k, v] of Object.entries(other.byMetric)) this.byMetric[k] = (this.byMetric[k] ?? 0) + v;
    for (const [k, v] of Object.entries(other.deliveries)) this.deliveries[k] = (this.deliveries[k] ?? 0) + v;
  }
}

/**
 * What the metrics must agree with. Attempts counted are the attempt records settled; the log
 * holds each (delivery, attempt) once, so a duplicate send (a redelivered record sent again,
 * which the ledger explains) may count once more: counted within [logged, logged + duplicates].
 * Final results the same way against the attempt log's delivered deliveries, the parked table
 * and the DLQ's dispatcher-written letters.
 */
export function metricProblems(
  totals: MetricTotalsView,
  ledger: Ledger,
  input: { attempts: readonly AttemptRecord[]; dlq: readonly DlqMessage[]; deliveryIds: ReadonlySet<string> },
): string[] {
  const problems: string[] = [];
  const slack = ledger.duplicateSends;
  const within = (what: string, counted: number, happened: number) => {
    if (counted < happened || counted > happened + slack) {
      problems.push(
        `metrics: ${what} counted ${counted}, ${happened} happened${slack ? ` (+${slack} duplicate sends allowed)` : ''}`,
      );
    }
  };
  const records = input.attempts.filter((a) => !a.test && input.deliveryIds.has(a.deliveryId));
  const distinct = new Set(records.map((a) => `${a.deliveryId}#${a.attempt}`));
  within('attempts', totals.byMetric.Attempts ?? 0, distinct.size);
  within('attempt durations', totals.byMetric.AttemptDuration ?? 0, ledger.attemptsLogged);
  const delivered = new Set(records.filter((a) => a.outcome === 'delivered').map((a) => a.deliveryId));
  within('deliveries delivered', totals.deliveries.delivered ?? 0, delivered.size);
  within('deliveries parked', totals.deliveries.parked ?? 0, ledger.parked);
  const letters = input.dlq.filter((m) => {
    try {
      return (JSON.parse(m.body) as { type?: unknown }).type === 'dead-letter';
    } catch {
      return false;
    }
  });
  within('dead letters', totals.byMetric.DeadLetters ?? 0, letters.length);
  return problems;
}
