/**
 * What follows an attempt (or a refusal): the one decision (outcome.ts), acted on (retry
 * scheduled, delivery parked or dead-lettered), then the attempt record written, the
 * connection's health counted and the outcome logged. Throws only InfrastructureError.
 */

import { attemptRecordOf, type SentRequest } from './attempt-record';
import { attemptShardSteps } from './attempt-shards';
import { ATTEMPTS_PER_CHAIN } from './constants';
import { infra } from './errors';
import { attemptIdsOf } from './ids';
import { decide } from './outcome';
import { isParkReason, type ParkReason, parkedItemOf } from './parking';
import { errorText } from './poison';
import type { AppendOutcome, DispatcherDeps } from './ports';
import { report } from './settle-report';
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

/** What settling needs throughout: its ports and settings. */
interface Context {
  deps: Deps;
  options: SettleOptions;
}

export function createSettler(deps: Deps, options: SettleOptions): Settler {
  const ctx: Context = { deps, options };
  return {
    noteAppend: (rec, outcome, via) => noteAppend(ctx, rec, outcome, via),
    record: (rec) => record(ctx, rec),
    settle: (s) => settle(ctx, s),
  };
}

/**
 * Settling, in order: the one decision, the record built, the decision acted on (retry,
 * park or dead-letter), the record written, the connection's health counted, the metrics and
 * the log line. Every outcome, refusals included, is decided here and only here
 * (docs/design.md §2, rule 4).
 */
async function settle(ctx: Context, s: Settlement): Promise<AttemptRecord> {
  const { delivery } = s;
  // A recovery check is one attempt, the last of its own chain: a failure parks it again at once.
  const position = delivery.probe ? ATTEMPTS_PER_CHAIN - 1 : delivery.attempt - (delivery.chainStart ?? 1);
  const decision = decide(s.result, position, !delivery.test);
  const built = attemptRecordOf({
    delivery,
    facts: s.facts,
    request: s.request,
    result: s.result,
    decision,
    sensitive: s.sensitive,
    ttlDays: ttlDaysOf(ctx.options, decision.outcome, delivery.attempt),
    nowMs: ctx.deps.clock.now(),
    keepBodies: ctx.options.keepBodies,
  });
  // A delivery (nearly every attempt) has nothing to act on: no await for it.
  const went =
    decision.action !== 'done' ? await act(ctx, s, decision, built.record, built.lastError) : undefined;
  if (!s.foreign) {
    // Placed by the connection the attempt was judged with: no second read of it after the
    // receiver answered. That copy is at most a cache time old when the attempt starts, so it
    // knows every raise that places this delivery (core/attempt-shards.ts).
    await record(ctx, built.record, s.connection && attemptShardSteps(s.connection));
    const counting = countHealth(ctx, s, decision);
    if (counting) await counting;
  }
  report(ctx.deps, s, decision, built.record, built.statusCode, went);
  return built.record;
}

/** Days an attempt record is kept: shorter only for a delivery's one and only record. */
function ttlDaysOf(options: SettleOptions, outcome: Outcome, attempt: number): number {
  return outcome === 'delivered' && attempt === 1 ? options.deliveredTtlDays : options.attemptTtlDays;
}

function noteAppend(ctx: Context, rec: AttemptRecord, outcome: AppendOutcome | undefined, via: string): void {
  if (outcome !== 'conflict') return;
  ctx.deps.log.warn(
    'attempt record not written: a different record of this attempt exists and is never replaced',
    {
      applicationId: rec.applicationId,
      connectionId: rec.connectionId,
      deliveryId: rec.deliveryId,
      eventId: rec.eventId,
      attempt: rec.attempt,
      via,
    },
  );
}

/**
 * Writes an attempt record; if the log is down, queues it instead of failing the record.
 * `shards`: the record's connection's shard steps, when settling holds the connection.
 */
async function record(ctx: Context, rec: AttemptRecord, shards?: readonly AttemptShardStep[]): Promise<void> {
  const { deps } = ctx;
  try {
    noteAppend(ctx, rec, await deps.attemptLog.append(rec, shards), 'attempt');
  } catch (cause) {
    const ids = { connectionId: rec.connectionId, deliveryId: rec.deliveryId, attempt: rec.attempt };
    deps.log.warn('attempt log write failed; the record is queued for a later write', {
      applicationId: rec.applicationId,
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
 * Carries out a decision: a retry scheduled, or a final failure parked or dead-lettered.
 * Returns where a final failure went (a delivery to park goes to the DLQ when parking fails).
 */
async function act(
  ctx: Context,
  s: Settlement,
  decision: Decision,
  rec: AttemptRecord,
  lastError?: string,
): Promise<'parked' | 'dead-lettered' | undefined> {
  const { deps } = ctx;
  const { delivery } = s;
  const ids = attemptIdsOf(delivery);
  if (decision.action === 'retry') {
    const dueAt = isoTime(deps.clock.now() + decision.delaySeconds * 1000);
    const next: DeliveryMessage = { ...delivery, attempt: delivery.attempt + 1, dueAt };
    await infra('scheduler.schedule', ids, () => deps.scheduler.schedule(next, decision.delaySeconds));
    deps.metrics?.record({ kind: 'retry' });
    return undefined;
  }
  if (decision.action !== 'dead-letter') return undefined;
  const letter: DeadLetter = {
    v: 1,
    type: 'dead-letter',
    reason: decision.reason,
    error: lastError ?? decision.reason,
    failedAt: isoTime(deps.clock.now()),
    delivery,
  };
  if (isParkReason(decision.reason)) return park(ctx, s, decision.reason, rec, letter);
  await infra('deadLetters.put', ids, () => deps.deadLetters.put(letter));
  deps.metrics?.record({ kind: 'deadLetter', reason: letter.reason });
  return 'dead-lettered';
}

/**
 * Parks a delivery for its connection (docs/design.md §9). When the parked table cannot take it
 * (DynamoDB down), the dead-letter queue does, as for any infrastructure failure: nothing is
 * lost, and `dlq redrive` sends it again (docs/design.md §9).
 */
async function park(
  ctx: Context,
  s: Settlement,
  reason: ParkReason,
  rec: AttemptRecord,
  letter: DeadLetter,
): Promise<'parked' | 'dead-lettered'> {
  const { deps } = ctx;
  const ids = attemptIdsOf(s.delivery);
  const item = parkedItemOf({
    delivery: s.delivery,
    applicationId: s.facts.applicationId,
    reason,
    attempts: s.delivery.attempt,
    lastError: rec.error,
    lastOutcome: rec.outcome,
    lastStatusCode: rec.statusCode,
    parkedAtMs: deps.clock.now(),
    ttlDays: ctx.options.attemptTtlDays,
  });
  try {
    await deps.parked.park(item);
    return 'parked';
  } catch (cause) {
    deps.log.warn('parking failed; the delivery goes to the dead-letter queue instead', {
      applicationId: s.facts.applicationId,
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
 * Counts the attempt for its connection's health, after the record: health never holds up a
 * delivery. Returns the port's promise, or nothing when there is nothing to count.
 */
function countHealth(ctx: Context, s: Settlement, decision: Decision): Promise<void> | undefined {
  // A recovery check's result is the prober's to count (core/prober.ts): never as a new failure.
  if (!s.connection || s.delivery.test || s.delivery.probe) return undefined;
  if (decision.action === 'done') return ctx.deps.health.delivered(s.connection);
  if (decision.action === 'dead-letter' && decision.reason === 'exhausted') {
    return ctx.deps.health.exhausted(s.connection);
  }
  return undefined;
}
