/**
 * What follows an attempt (or a refusal): the one decision (outcome.ts), acted on (retry
 * scheduled, delivery parked or dead-lettered), then the attempt record written, the
 * connection's health counted and the outcome logged. Throws only InfrastructureError.
 */

import { attemptRecordOf, type SentRequest } from './attempt-record';
import { attemptShardSteps } from './attempt-shards';
import { infra } from './errors';
import { statusClassOf } from './metrics';
import { decide } from './outcome';
import { isParkReason, type ParkReason, parkedItemOf } from './parking';
import { errorText } from './poison';
import type { AppendOutcome, DispatcherDeps, Metrics } from './ports';
import { isoTime } from './time';
import type {
  AttemptRecord,
  AttemptResult,
  AttemptShardStep,
  Connection,
  DeadLetter,
  Decision,
  DeliveryMessage,
  EventFacts,
  KeepBodies,
  Outcome,
} from './types';

/** One attempt's facts, from which settling decides and records. */
export interface Settlement {
  delivery: DeliveryMessage;
  facts: EventFacts;
  request: SentRequest;
  result: AttemptResult;
  /** Values that must never reach the record or a log: secret, custom header values, query values. */
  sensitive: readonly string[];
  /** The connection attempted; absent for a refusal before any attempt (its health is not counted). */
  connection?: Connection;
  /** Whether success lines are written (DEBUG), asked once per invocation. */
  debugLines?: boolean;
  /**
   * The delivery named another application's connection (core/targets.ts): its record is
   * written to no attempt log and its log line names the publishing application, not the
   * connection, so nothing of it reaches that connection's log, stats or failure counts.
   */
  foreign?: boolean;
}

export interface SettleOptions {
  attemptTtlDays: number;
  /** TTL of a delivery's one and only record (delivered on its first attempt): docs/cost.md. */
  deliveredTtlDays: number;
  /** Which deliveries' bodies the first attempt's record keeps (docs/design.md §5). @default 'all' */
  keepBodies?: KeepBodies;
}

export interface Settler {
  settle(settlement: Settlement): Promise<AttemptRecord>;
  /** Writes an attempt record; if the log is down, queues it instead of failing the record. */
  record(rec: AttemptRecord): Promise<void>;
  /** Logs an attempt-log write that met a different record under the same key (never replaced). */
  noteAppend(rec: AttemptRecord, outcome: AppendOutcome | undefined, via: string): void;
}

type Deps = Pick<
  DispatcherDeps,
  | 'scheduler'
  | 'deadLetters'
  | 'parked'
  | 'health'
  | 'attemptLog'
  | 'attemptLogFallback'
  | 'clock'
  | 'log'
  | 'metrics'
>;

export function createSettler(deps: Deps, options: SettleOptions): Settler {
  const { clock, log } = deps;
  /** Days an attempt record is kept: shorter only for a delivery's one and only record. */
  const ttlDaysOf = (outcome: Outcome, attempt: number) =>
    outcome === 'delivered' && attempt === 1 ? options.deliveredTtlDays : options.attemptTtlDays;
  const idsOf = (delivery: DeliveryMessage) => ({
    connectionId: delivery.connectionId,
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
  });

  function noteAppend(rec: AttemptRecord, outcome: AppendOutcome | undefined, via: string): void {
    if (outcome !== 'conflict') return;
    log.warn('attempt record not written: a different record of this attempt exists and is never replaced', {
      connectionId: rec.connectionId,
      deliveryId: rec.deliveryId,
      eventId: rec.eventId,
      attempt: rec.attempt,
      via,
    });
  }

  /** `shards`: the record's connection's shard steps, when settling holds the connection. */
  async function record(rec: AttemptRecord, shards?: readonly AttemptShardStep[]): Promise<void> {
    try {
      noteAppend(rec, await deps.attemptLog.append(rec, shards), 'attempt');
    } catch (cause) {
      const ids = { connectionId: rec.connectionId, deliveryId: rec.deliveryId, attempt: rec.attempt };
      log.warn('attempt log write failed; the record is queued for a later write', {
        ...ids,
        eventId: rec.eventId,
        error: errorText(cause),
      });
      deps.metrics?.record({ kind: 'infrastructure', dependency: 'dynamodb' });
      // Failing the SQS record here would send this attempt again: queue the record instead.
      await infra('attemptLogFallback.defer', ids, () => deps.attemptLogFallback.defer(rec));
      deps.metrics?.record({ kind: 'attemptLogDeferred' });
    }
  }

  /**
   * Parks a delivery for its connection (docs/design.md §9). When the parked table cannot take it
   * (DynamoDB down), the dead-letter queue does, as for any infrastructure failure: nothing is
   * lost, and `dlq redrive` sends it again (docs/design.md §9).
   */
  async function park(
    s: Settlement,
    reason: ParkReason,
    rec: AttemptRecord,
    letter: DeadLetter,
  ): Promise<'parked' | 'dead-lettered'> {
    const ids = idsOf(s.delivery);
    const item = parkedItemOf({
      delivery: s.delivery,
      applicationId: s.facts.applicationId,
      reason,
      attempts: s.delivery.attempt,
      lastError: rec.error,
      lastOutcome: rec.outcome,
      lastStatusCode: rec.statusCode,
      parkedAtMs: clock.now(),
      ttlDays: options.attemptTtlDays,
    });
    try {
      await deps.parked.park(item);
      return 'parked';
    } catch (cause) {
      log.warn('parking failed; the delivery goes to the dead-letter queue instead', {
        ...ids,
        eventId: s.delivery.eventId,
        error: errorText(cause),
      });
      deps.metrics?.record({ kind: 'infrastructure', dependency: 'dynamodb' });
      await infra('deadLetters.put', ids, () => deps.deadLetters.put(letter));
      deps.metrics?.record({ kind: 'deadLetter', reason: letter.reason });
      return 'dead-lettered';
    }
  }

  /**
   * Carries out a decision: a retry scheduled, or a final failure parked or dead-lettered.
   * Returns where a final failure went (a delivery to park goes to the DLQ when parking fails).
   */
  async function act(
    s: Settlement,
    decision: Decision,
    rec: AttemptRecord,
    lastError?: string,
  ): Promise<'parked' | 'dead-lettered' | undefined> {
    const { delivery } = s;
    const ids = idsOf(delivery);
    if (decision.action === 'retry') {
      const next: DeliveryMessage = { ...delivery, attempt: delivery.attempt + 1 };
      await infra('scheduler.schedule', ids, () => deps.scheduler.schedule(next, decision.delaySeconds));
      deps.metrics?.record({ kind: 'retry' });
    } else if (decision.action === 'dead-letter') {
      const letter: DeadLetter = {
        v: 1,
        type: 'dead-letter',
        reason: decision.reason,
        error: lastError ?? decision.reason,
        failedAt: isoTime(clock.now()),
        delivery,
      };
      if (isParkReason(decision.reason)) return park(s, decision.reason, rec, letter);
      await infra('deadLetters.put', ids, () => deps.deadLetters.put(letter));
      deps.metrics?.record({ kind: 'deadLetter', reason: letter.reason });
      return 'dead-lettered';
    }
    return undefined;
  }

  /**
   * Counts the attempt for its connection's health, after the record: health never holds up a
   * delivery. Returns the port's promise, or nothing when there is nothing to count.
   */
  function countHealth(s: Settlement, decision: Decision): Promise<void> | undefined {
    if (!s.connection || s.delivery.test) return undefined;
    if (decision.action === 'done') return deps.health.delivered(s.connection);
    if (decision.action === 'dead-letter' && decision.reason === 'exhausted') {
      return deps.health.exhausted(s.connection);
    }
    return undefined;
  }

  function logOutcome(
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
          ...idsOf(s.delivery),
          outcome: rec.outcome,
          statusCode,
          durationMs: rec.durationMs,
          test: rec.test,
        });
      }
      return;
    }
    const fields = {
      ...idsOf(s.delivery),
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
  function logForeign(s: Settlement, rec: AttemptRecord, went: 'parked' | 'dead-lettered' | undefined) {
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

  /** The facts of a settled attempt, once its record is written (a retry and a dead letter count as they happen). */
  function count(
    metrics: Metrics,
    s: Settlement,
    decision: Decision,
    rec: AttemptRecord,
    went: 'parked' | 'dead-lettered' | undefined,
  ): void {
    const sent = s.result.kind !== 'refused';
    metrics.record({
      kind: 'attempt',
      outcome: rec.outcome,
      statusClass: statusClassOf(rec.statusCode),
      ...(sent ? { durationMs: rec.durationMs } : {}),
    });
    if (rec.outcome === 'blocked') metrics.record({ kind: 'blocked' });
    // A test send is one attempt and no delivery: it has no final result.
    if (s.delivery.test) return;
    if (decision.action === 'done') {
      metrics.record({ kind: 'final', result: 'delivered' });
      const published = s.delivery.publishedAt ? Date.parse(s.delivery.publishedAt) : Number.NaN;
      if (Number.isFinite(published)) {
        metrics.record({ kind: 'latency', ms: Math.max(0, clock.now() - published) });
      }
    } else if (went === 'parked' && decision.action === 'dead-letter' && isParkReason(decision.reason)) {
      metrics.record({ kind: 'final', result: 'parked', reason: decision.reason });
    } else if (went === 'dead-lettered') {
      metrics.record({ kind: 'final', result: 'dead_lettered' });
    }
  }

  return {
    noteAppend,
    record,
    async settle(s) {
      const { delivery } = s;
      // Every outcome, refusals included, is decided here and only here (docs/design.md §2, rule 4).
      const decision = decide(s.result, delivery.attempt - (delivery.chainStart ?? 1), !delivery.test);
      const built = attemptRecordOf({
        delivery,
        facts: s.facts,
        request: s.request,
        result: s.result,
        decision,
        sensitive: s.sensitive,
        ttlDays: ttlDaysOf(decision.outcome, delivery.attempt),
        nowMs: clock.now(),
        keepBodies: options.keepBodies,
      });
      // A delivery (nearly every attempt) has nothing to act on: no await for it.
      const went =
        decision.action !== 'done' ? await act(s, decision, built.record, built.lastError) : undefined;
      // Placed by the connection the attempt was judged with: no second read of it after the
      // receiver answered. That copy is at most a cache time old when the attempt starts, so it
      // knows every raise that places this delivery (core/attempt-shards.ts).
      if (s.foreign) {
        logForeign(s, built.record, went);
        if (deps.metrics) count(deps.metrics, s, decision, built.record, went);
        return built.record;
      }
      await record(built.record, s.connection && attemptShardSteps(s.connection));
      const counting = countHealth(s, decision);
      if (counting) await counting;
      if (deps.metrics) count(deps.metrics, s, decision, built.record, went);
      logOutcome(s, decision, built.record, built.statusCode, went);
      return built.record;
    },
  };
}
