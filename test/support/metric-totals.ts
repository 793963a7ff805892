/**
 * The metrics a run emitted, as CloudWatch would total them: the production EMF adapter's
 * documents summed per metric under `[Stack]` (and `Deliveries` per `Result`). The fault suite's
 * ledger holds them against what the attempt log, the parked table and the DLQ hold, so a metric
 * that silently stops being emitted fails every scenario.
 */

import type { EmfDocument } from '../../lambdas/adapters/metrics/emf';
import type { AttemptRecord } from '../../lambdas/core/types';
import type { DlqMessage, Ledger, MetricTotalsView } from './ledger';

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

  /**
   * Totals of the EMF documents in a file, one a line (a child dispatcher's `metricsFile`); a
   * line that is not a document is returned, not skipped, so the ledger can name it.
   */
  static fromFile(text: string): { totals: MetricTotals; unreadable: string[] } {
    const totals = new MetricTotals();
    const unreadable: string[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        totals.add(JSON.parse(line) as EmfDocument);
      } catch {
        unreadable.push(line.slice(0, 80));
      }
    }
    return { totals, unreadable };
  }

  /** Adds another process's totals (a dispatcher in a child process). */
  merge(other: MetricTotalsView): void {
    for (const [k, v] of Object.entries(other.byMetric)) this.byMetric[k] = (this.byMetric[k] ?? 0) + v;
    for (const [k, v] of Object.entries(other.deliveries)) this.deliveries[k] = (this.deliveries[k] ?? 0) + v;
  }
}

/**
 * Where each delivery's chains ended, from its records: its first final record is where its first
 * chain ended (delivered, or failed); a 2xx after it is a later chain's (recovered).
 */
function chainEnds(records: readonly AttemptRecord[]): {
  delivered: number;
  failed: number;
  recovered: number;
} {
  const firstFinal = new Map<string, number>();
  for (const r of records) {
    // A 2xx always ends its chain.
    const final = r.final || r.outcome === 'delivered';
    if (final && r.attempt < (firstFinal.get(r.deliveryId) ?? Number.POSITIVE_INFINITY)) {
      firstFinal.set(r.deliveryId, r.attempt);
    }
  }
  const delivered = new Set<string>();
  const failed = new Set<string>();
  const recovered = new Set<string>();
  for (const r of records) {
    const first = firstFinal.get(r.deliveryId);
    if (first === undefined) continue;
    // Only the records that ended it: a retried attempt's first send (a 503) does not end a chain.
    if (r.attempt === first && (r.final || r.outcome === 'delivered')) {
      (r.outcome === 'delivered' ? delivered : failed).add(r.deliveryId);
    } else if (r.attempt > first && r.outcome === 'delivered') recovered.add(`${r.deliveryId}#${r.attempt}`);
  }
  return { delivered: delivered.size, failed: failed.size, recovered: recovered.size };
}

/** What the run did besides the ledger's records, for {@link metricProblems}. */
export interface MetricCheckInput {
  attempts: readonly AttemptRecord[];
  dlq: readonly DlqMessage[];
  deliveryIds: ReadonlySet<string>;
  /**
   * Sends the receivers saw of a (delivery, attempt) they had already seen: the same attempt
   * processed again (a redelivered record), which the dispatcher counts again but logs once.
   */
  resentCopies: number;
  /** A dispatcher was SIGKILLed: what its unfinished invocations counted was never flushed. */
  killed: boolean;
  /**
   * When each SIGKILL came, and the function timeout: an attempt requested up to one function
   * timeout before a kill may have been settled, logged and never counted. Its event, redelivered,
   * finds its delivery claimed and settled (core/claims.ts) and sends it no more, so nothing counts
   * it again: below the log by at most those.
   */
  kills?: { at: readonly number[]; functionTimeoutMs: number };
}

/** The records an invocation killed after settling them may have left uncounted. */
function unflushed(records: readonly AttemptRecord[], kills: MetricCheckInput['kills']): AttemptRecord[] {
  if (!kills) return [];
  return records.filter((r) => {
    const t = Date.parse(r.requestedAt);
    return kills.at.some((k) => t >= k - kills.functionTimeoutMs && t <= k);
  });
}

/**
 * Sends of a (delivery, attempt) the receivers had already seen, over the given deliveries:
 * each is one more `Attempts` count than the attempt log's distinct records.
 */
export function resentCopies(
  deliveries: ReadonlyMap<string, { sends: ReadonlyArray<{ attempt: number }> }>,
  deliveryIds: ReadonlySet<string>,
): number {
  let copies = 0;
  for (const [deliveryId, r] of deliveries) {
    if (!deliveryIds.has(deliveryId)) continue;
    const seen = new Set<number>();
    for (const send of r.sends) {
      if (seen.has(send.attempt)) copies++;
      seen.add(send.attempt);
    }
  }
  return copies;
}

/**
 * What the metrics must agree with, by equality wherever the run allows it:
 * - `Attempts` = the attempt log's distinct records (sends and refusals); `AttemptDuration` the
 *   same over sends. An attempt is counted when it settles (its record written, or deferred to
 *   the queue), and every invocation flushes what it counted when it ends, so with no attempt
 *   processed twice the two are equal. Where the receivers saw a copy of an attempt (a
 *   redelivered record processed again), the copy is counted once more only if that
 *   processing settled: one whose infrastructure call failed after the send (the DynamoDB and
 *   SQS scenarios) hands the record back uncounted, and one SIGKILLed before its invocation
 *   ended never flushed (the kill scenarios). Which copies settled the log cannot tell (the
 *   write is conditional: one record either way), so then counted lies in
 *   [logged, logged + re-sent copies]; it is never below logged, since a record whose
 *   processing was not counted goes back to SQS and is processed, and counted, again.
 * - `DeadLetters` = the dispatcher's letters in the DLQ (every write is a message, copies
 *   included), except after a SIGKILL: a letter written by an invocation killed before it
 *   ended is there uncounted (its redo writes and counts another), so at most the letters.
 * - `Deliveries` by result, each delivery once where its first chain ended (its first final
 *   record): delivered = deliveries whose first final record is a 2xx; parked + dead_lettered =
 *   those whose first final record is a failure (each ends in one of them); recovered = the 2xx
 *   records after a delivery's first final record (a recovery or redrive that arrived). Equal
 *   when the run had no duplicate send, else up to the ledger's duplicate sends more (a
 *   re-processed final attempt reaches its result again or not, by what the receiver answers
 *   the copy, which the log does not keep). Parked alone is at least what the parked table
 *   holds now of first parks (a recovery empties it) and dead_lettered at most one per delivery
 *   letter in the DLQ.
 * - After a SIGKILL, each of these may fall short by the attempts settled within one function
 *   timeout before it (MetricCheckInput.kills).
 */
export function metricProblems(totals: MetricTotalsView, ledger: Ledger, input: MetricCheckInput): string[] {
  const problems: string[] = [];
  const exact = (what: string, counted: number, happened: number, why: string) => {
    if (counted !== happened)
      problems.push(`metrics: ${what} counted ${counted}, expected ${happened} (${why})`);
  };
  const within = (what: string, counted: number, low: number, high: number, why: string) => {
    if (low === high) exact(what, counted, low, why);
    else if (counted < low || counted > high) {
      problems.push(`metrics: ${what} counted ${counted}, expected ${low}..${high} (${why})`);
    }
  };
  const records = input.attempts.filter((a) => !a.test && input.deliveryIds.has(a.deliveryId));
  const distinct = new Set(records.map((a) => `${a.deliveryId}#${a.attempt}`));
  const copies = input.resentCopies;
  const attemptsCounted = totals.byMetric.Attempts ?? 0;
  const durationsCounted = totals.byMetric.AttemptDuration ?? 0;
  // Equal when no copy was re-sent; a copy counts once more only if its processing settled.
  const why = copies
    ? `${copies} re-sent copies: counted once more each only if that processing settled its attempt`
    : 'no attempt was re-sent';
  const killed = unflushed(records, input.kills);
  const short = new Set(killed.map((a) => `${a.deliveryId}#${a.attempt}`)).size;
  within('attempts', attemptsCounted, distinct.size - short, distinct.size + copies, why);
  within(
    'attempt durations',
    durationsCounted,
    ledger.attemptsLogged - short,
    ledger.attemptsLogged + copies,
    why,
  );
  const slack = ledger.duplicateSends;
  const result = (what: string, counted: number, happened: number, below = 0) =>
    slack === 0 && below === 0
      ? exact(what, counted, happened, 'no duplicate sends')
      : // A duplicate send can also move a delivery between delivered, recovered and failed as
        // the log reads it (a re-sent attempt 2 answered 200 after the chain's attempt 3 was), so
        // each one widens the range both ways.
        within(
          what,
          counted,
          Math.max(0, happened - below - slack),
          happened + slack,
          `±${slack} duplicate sends, -${below} killed uncounted`,
        );
  const ends = chainEnds(records);
  const killedDelivered = new Set(killed.filter((a) => a.outcome === 'delivered').map((a) => a.deliveryId))
    .size;
  result('deliveries delivered', totals.deliveries.delivered ?? 0, ends.delivered, killedDelivered);
  result('deliveries recovered', totals.deliveries.recovered ?? 0, ends.recovered);
  // Every first chain that failed ends parked or dead-lettered (a park the table refused is
  // dead-lettered), whether or not it is still parked: a recovery empties the table.
  const finalFailures = ends.failed;
  const parkedCounted = totals.deliveries.parked ?? 0;
  const killedFinal = killed.filter((a) => a.final && a.outcome !== 'delivered').length;
  result(
    'final failures (parked + dead-lettered)',
    parkedCounted + (totals.deliveries.dead_lettered ?? 0),
    finalFailures,
    killedFinal,
  );
  within(
    'deliveries parked',
    parkedCounted,
    // A delivery parked again after a recovery is in the table but counted once, at its first park.
    Math.min(ledger.parked, finalFailures),
    finalFailures + slack,
    'at least those parked now',
  );
  const letters = input.dlq.flatMap((m) => {
    try {
      const body = JSON.parse(m.body) as { type?: unknown; delivery?: { deliveryId?: unknown } };
      return body.type === 'dead-letter' ? [{ deliveryId: body.delivery?.deliveryId }] : [];
    } catch {
      return [];
    }
  });
  // A delivery's letter written before any attempt (its connection deleted) has no final
  // result, so a delivery letter is at most one `dead_lettered`.
  const deliveryLetters = letters.filter(
    (l) => typeof l.deliveryId === 'string' && input.deliveryIds.has(l.deliveryId),
  ).length;
  within(
    'deliveries dead-lettered',
    totals.deliveries.dead_lettered ?? 0,
    0,
    deliveryLetters,
    'at most one per delivery letter in the DLQ',
  );
  if (input.killed) {
    const why =
      'a kill: a letter its invocation wrote is in the DLQ uncounted; its redo writes and counts one';
    within(
      'dead letters',
      totals.byMetric.DeadLetters ?? 0,
      Math.min(1, letters.length),
      letters.length,
      why,
    );
  } else {
    exact('dead letters', totals.byMetric.DeadLetters ?? 0, letters.length, 'every letter is a DLQ message');
  }
  return problems;
}
