/**
 * A batch of queue records: each read (poison is dead-lettered on its first receipt, docs/design.md
 * §3 "Poison") and routed by type: an event fans out, a delivery is attempted again, a queued
 * attempt record is written. Records run side by side; only infrastructure failures and a near
 * deadline leave a record for SQS to redeliver (`batchItemFailures`).
 */

import type { Attempter, Run } from './attempt';
import { MAX_ERROR_LENGTH } from './attempt-record';
import { DeliveryInFlightError } from './claims';
import { type QueueSource, type ReadMessage, readMessage } from './envelope';
import { DeadlineError, InfrastructureError, infra, PoisonMessageError } from './errors';
import type { FanOut } from './fan-out';
import { countFailure } from './metrics';
import { deadLetterSource, errorText } from './poison';
import type { BatchResult, DispatcherDeps, InputRecord } from './ports';
import type { Prober } from './prober';
import { truncateUtf8 } from './redact';
import type { Settler } from './settle';
import { judgeTarget, type Target } from './targets';
import { isoTime } from './time';
import type { AttemptRecord, DeadLetter } from './types';

export type ProcessBatch = (records: readonly InputRecord[], run: Run) => Promise<BatchResult>;

type Deps = Pick<
  DispatcherDeps,
  'connections' | 'deadLetters' | 'attemptLog' | 'clock' | 'log' | 'metrics' | 'pendingWrites'
>;
type Parts = { fanOut: FanOut; attempter: Attempter; settler: Settler; prober?: Prober };
interface Context extends Parts {
  deps: Deps;
}

export function createBatch(deps: Deps, parts: Parts): ProcessBatch {
  const ctx: Context = { deps, ...parts };
  return async (records, run) => {
    const settled = await Promise.allSettled(records.map((r) => processRecord(ctx, r, run)));
    await flushPending(ctx.deps);
    const failures: string[] = [];
    settled.forEach((result, i) => {
      if (result.status === 'rejected') failures.push(failed(ctx, records[i]!.messageId, result.reason));
    });
    return { failures };
  };
}

/**
 * One queue record, its stages in order: received (read and checked; poison is dead-lettered
 * on its first receipt), then by type: an event fans out to one delivery per target connection
 * (core/fan-out.ts), a delivery message is judged against its connection as it is now, and
 * each delivery goes through its own stages (core/attempt.ts `deliver`: judge, secret, rate
 * limit, sign, send, settle and record); a queued attempt record is written; a recovery check
 * is made (core/prober.ts).
 */
async function processRecord(ctx: Context, record: InputRecord, run: Run): Promise<void> {
  const read = await receive(ctx, record);
  // Each step is awaited, not returned: an async function that returns a promise costs
  // two more turns of the microtask queue than one that awaits it.
  switch (read?.type) {
    case 'event':
      await ctx.fanOut(read.message, read.body, read.facts, run, record.sentAtMs, record.traceparent);
      return;
    case 'delivery':
      await ctx.attempter.deliverTo(read.message, await retargeted(ctx, read), read.facts, run);
      return;
    case 'attempt-log':
      await appendQueued(ctx, read.message.record);
      return;
    case 'probe':
      await ctx.prober?.(read.message, run);
      return;
  }
}

/** The record read and checked (core/envelope.ts), or undefined once its poison is dead-lettered. */
async function receive(ctx: Context, record: InputRecord): Promise<ReadMessage | undefined> {
  const source = record.source ?? 'ingress';
  try {
    return readMessage(record.body, source);
  } catch (thrown) {
    await deadLetterPoison(ctx, record, source, thrown);
    return undefined;
  }
}

/**
 * A delivery message's target: its connection as it is now. The body names its application: a
 * connection of another application never receives it (nor signs it with its secret), whatever
 * the message says (docs/security.md).
 */
async function retargeted(ctx: Context, read: Extract<ReadMessage, { type: 'delivery' }>): Promise<Target> {
  const { connections } = ctx.deps;
  const { connectionId } = read.message;
  const connection = await infra('connections.get', { connectionId }, () => connections.get(connectionId));
  const target = judgeTarget(connectionId, connection, read.facts.applicationId);
  if (target.refusal?.[0] !== 'connection_disabled' || !connections.fresh) return target;
  // A delivery message is a retry, a recovery, a Resend or a deferral. A customer who enables a
  // connection and recovers its parked deliveries at once must not see them parked again
  // because a cached copy still says disabled: ask the table before parking.
  const latest = await infra('connections.get', { connectionId }, () => connections.fresh!(connectionId));
  return judgeTarget(connectionId, latest, read.facts.applicationId);
}

/** A queued attempt record (the attempt log was down when it was made), written now. */
async function appendQueued(ctx: Context, rec: AttemptRecord): Promise<void> {
  const outcome = await infra('attemptLog.append', { deliveryId: rec.deliveryId }, () =>
    ctx.deps.attemptLog.append(rec),
  );
  ctx.settler.noteAppend(rec, outcome, 'retry queue');
}

/** Dead-letters a message that cannot be read, with its reason. */
async function deadLetterPoison(
  ctx: Context,
  record: InputRecord,
  source: QueueSource,
  thrown: unknown,
): Promise<void> {
  // Parsing is pure: whatever it throws, it would throw on every receipt, so the message
  // is poison now, on its first receipt, not after maxReceiveCount (docs/security.md).
  const error =
    thrown instanceof PoisonMessageError
      ? thrown
      : new PoisonMessageError(`message could not be read: ${errorText(thrown)}`);
  const text = truncateUtf8(error.message, MAX_ERROR_LENGTH);
  const letter: DeadLetter = {
    v: 1,
    type: 'dead-letter',
    reason: error.reason,
    error: text,
    failedAt: isoTime(ctx.deps.clock.now()),
    sourceQueue: source,
    ...deadLetterSource(record.body),
  };
  await infra('deadLetters.put', {}, () => ctx.deps.deadLetters.put(letter));
  ctx.deps.metrics?.record({ kind: 'deadLetter', reason: error.reason });
  ctx.deps.log.warn('poison message dead-lettered', {
    messageId: record.messageId,
    sourceQueue: source,
    reason: error.reason,
    error: text,
  });
}

/** A record left for SQS to redeliver: counted and logged with the ids its error carries. */
function failed(ctx: Context, messageId: string, error: unknown): string {
  countFailure(ctx.deps.metrics, error);
  const fields = {
    messageId,
    ...(error instanceof InfrastructureError ? error.ids : {}),
    error: errorText(error),
    errorName: error instanceof Error ? error.name : 'Error',
  };
  if (error instanceof DeadlineError)
    ctx.deps.log.warn('record left for redelivery: invocation deadline near', fields);
  else if (error instanceof DeliveryInFlightError)
    ctx.deps.log.warn(
      'record left for redelivery: a delivery of this republished event is in flight',
      fields,
    );
  else ctx.deps.log.error('record failed; SQS will redeliver it', fields);
  return messageId;
}

/**
 * The writes adapters held for the batch end (lookup items, claim settlements), before the batch
 * reports: a failure is logged, never thrown. Every send is done and recorded by now, so asking
 * SQS to redeliver would only send them again (docs/reliability.md "Writes after the batch").
 */
async function flushPending(deps: Deps): Promise<void> {
  if (!deps.pendingWrites) return;
  try {
    await deps.pendingWrites.flush();
  } catch (error) {
    deps.log.error(
      'writes after the batch failed: its deliveries may not be findable by user or event id, and a republish of their events after this invocation would send them again',
      { error: errorText(error) },
    );
  }
}
