/**
 * What a settled attempt reports once it is recorded: its metrics (core/metrics.ts facts) and
 * its log line (a WARN for every failure, keyed as the failing-connections rule reads it).
 */

import { attemptIdsOf } from './ids';
import type { MetricFact } from './metrics';
import { isParkReason } from './parking';
import type { Clock, Log, Metrics } from './ports';
import type { AttemptRecord, AttemptResult, Decision, DeliveryMessage, EventFacts } from './types';

/** What reporting reads of a settlement (core/settle.ts `Settlement`). */
interface Settlement {
  delivery: DeliveryMessage;
  facts: EventFacts;
  request: { requestedAtMs: number };
  result: AttemptResult;
  debugLines?: boolean;
  foreign?: boolean;
}

/** A settled attempt's metrics and its log line (a foreign delivery's names the publisher). */
export function report(
  deps: { log: Log; metrics?: Metrics; clock: Clock },
  s: Settlement,
  decision: Decision,
  rec: AttemptRecord,
  statusCode: number | undefined,
  went: 'parked' | 'dead-lettered' | undefined,
): void {
  if (deps.metrics) count(deps.metrics, deps.clock, s, decision, rec, went);
  if (s.foreign) logForeign(deps.log, s, rec, went);
  else logOutcome(deps.log, s, decision, rec, statusCode, went);
}

function logOutcome(
  log: Log,
  s: Settlement,
  decision: Decision,
  rec: AttemptRecord,
  statusCode?: number,
  went?: 'parked' | 'dead-lettered',
) {
  if (decision.action === 'done') {
    // Nearly every delivery ends here, and its attempt record already holds all of it: the
    // line is written at DEBUG only (docs/performance.md, log bytes per delivery).
    if (s.debugLines) {
      log.debug('delivered', {
        applicationId: s.facts.applicationId,
        ...attemptIdsOf(s.delivery),
        outcome: rec.outcome,
        statusCode,
        durationMs: rec.durationMs,
        test: rec.test,
      });
    }
    return;
  }
  const fields = {
    applicationId: s.facts.applicationId,
    ...attemptIdsOf(s.delivery),
    eventId: s.delivery.eventId,
    outcome: rec.outcome,
    statusCode,
    durationMs: rec.durationMs,
    nextAttemptAt: rec.nextAttemptAt,
    reason: decision.action === 'dead-letter' ? decision.reason : undefined,
    error: rec.error,
    test: rec.test,
  };
  if (decision.action === 'retry') log.warn('attempt failed; retry scheduled', fields);
  else if (s.delivery.test) log.warn('test send failed', fields);
  else if (went === 'parked') log.warn('delivery parked', fields);
  else log.warn('delivery dead-lettered', fields);
}

/**
 * A publisher's mistake, for its own operator: the application that published, the connection
 * it named (under another key than `connectionId`, which the failing-connections rule counts)
 * and where the delivery went.
 */
function logForeign(
  log: Log,
  s: Settlement,
  rec: AttemptRecord,
  went: 'parked' | 'dead-lettered' | undefined,
) {
  log.warn('delivery refused: the event names a connection of another application', {
    applicationId: s.facts.applicationId,
    namedConnectionId: s.delivery.connectionId,
    deliveryId: s.delivery.deliveryId,
    eventId: s.delivery.eventId,
    attempt: s.delivery.attempt,
    reason: s.result.kind === 'refused' ? s.result.reason : undefined,
    deadLettered: went === 'dead-lettered',
    error: rec.error,
    test: rec.test,
  });
}

/**
 * The facts of a settled attempt, once its record is written, recorded together (a retry and a
 * dead letter count as they happen).
 */
function count(
  metrics: Metrics,
  clock: Clock,
  s: Settlement,
  decision: Decision,
  rec: AttemptRecord,
  went: 'parked' | 'dead-lettered' | undefined,
): void {
  const sent = s.result.kind !== 'refused';
  const facts: MetricFact[] = [
    {
      kind: 'attempt',
      outcome: rec.outcome,
      ...(rec.statusCode === undefined ? {} : { statusCode: rec.statusCode }),
      ...(sent ? { durationMs: rec.durationMs } : {}),
    },
  ];
  // RetryStartLag: a message that was due at a time (a retry, a deferred delivery) against when
  // its attempt started; the attempt's own time, so waiting for a slot or the rate limit counts.
  const due = s.delivery.dueAt === undefined ? Number.NaN : Date.parse(s.delivery.dueAt);
  if (Number.isFinite(due)) facts.push({ kind: 'retryLag', ms: Math.max(0, s.request.requestedAtMs - due) });
  if (rec.outcome === 'blocked') facts.push({ kind: 'blocked' });
  // A test send is one attempt and no delivery: it has no final result.
  if (!s.delivery.test) facts.push(...finalFacts(clock, s, decision, went));
  metrics.record(...facts);
}

/** Where the delivery ended, if this attempt ended its chain: its final result (and latency). */
function finalFacts(
  clock: Clock,
  s: Settlement,
  decision: Decision,
  went: 'parked' | 'dead-lettered' | undefined,
): MetricFact[] {
  // A chain an operator started (recover, redrive, resend): the delivery has its final result.
  const later = (s.delivery.chainStart ?? 1) > 1;
  if (decision.action === 'done') {
    // From publish; a Resend's message (built from the attempt log) knows its first attempt only.
    const from = Date.parse(s.delivery.publishedAt ?? s.delivery.firstAttemptAt);
    return [
      { kind: 'final', result: later ? 'recovered' : 'delivered' },
      ...(Number.isFinite(from) ? [{ kind: 'latency', ms: Math.max(0, clock.now() - from) } as const] : []),
    ];
  }
  if (went === 'parked' && decision.action === 'dead-letter' && isParkReason(decision.reason)) {
    return [
      later
        ? { kind: 'parkedAgain', reason: decision.reason }
        : { kind: 'final', result: 'parked', reason: decision.reason },
    ];
  }
  return went === 'dead-lettered' && !later ? [{ kind: 'final', result: 'dead_lettered' }] : [];
}
