/**
 * A batch of queue records: each read (poison is dead-lettered on its first receipt, docs/design.md
 * §3 "Poison") and routed by type: an event fans out, a delivery is attempted again, a queued
 * attempt record is written. Records run side by side; only infrastructure failures and a near
 * deadline leave a record for SQS to redeliver (`batchItemFailures`).
 */

import type { Attempter, Run } from './attempt';
import { MAX_ERROR_LENGTH } from './attempt-record';
import { type QueueSource, type ReadMessage, readMessage } from './envelope';
import { DeadlineError, InfrastructureError, infra, PoisonMessageError } from './errors';
import type { FanOut } from './fan-out';
import { countFailure } from './metrics';
import { deadLetterSource, errorText } from './poison';
import type { BatchResult, DispatcherDeps, InputRecord } from './ports';
import { truncateUtf8 } from './redact';
import type { Settler } from './settle';
import { judgeTarget } from './targets';
import { isoTime } from './time';
import type { DeadLetter } from './types';

export type ProcessBatch = (records: readonly InputRecord[], run: Run) => Promise<BatchResult>;

export function createBatch(
  deps: Pick<DispatcherDeps, 'connections' | 'deadLetters' | 'attemptLog' | 'clock' | 'log' | 'metrics'>,
  parts: { fanOut: FanOut; attempter: Attempter; settler: Settler },
): ProcessBatch {
  const { clock, log } = deps;

  /** Dead-letters a message that cannot be read, with its reason. */
  async function deadLetterPoison(record: InputRecord, source: QueueSource, thrown: unknown): Promise<void> {
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
      failedAt: isoTime(clock.now()),
      sourceQueue: source,
      ...deadLetterSource(record.body),
    };
    await infra('deadLetters.put', {}, () => deps.deadLetters.put(letter));
    deps.metrics?.record({ kind: 'deadLetter', reason: error.reason });
    log.warn('poison message dead-lettered', {
      messageId: record.messageId,
      sourceQueue: source,
      reason: error.reason,
      error: text,
    });
  }

  async function processRecord(record: InputRecord, run: Run): Promise<void> {
    const source = record.source ?? 'ingress';
    let read: ReadMessage;
    try {
      read = readMessage(record.body, source);
    } catch (thrown) {
      await deadLetterPoison(record, source, thrown);
      return;
    }
    // Each step is awaited, not returned: an async function that returns a promise costs
    // two more turns of the microtask queue than one that awaits it.
    switch (read.type) {
      case 'event':
        await parts.fanOut(read.message, read.body, read.facts, run, record.sentAtMs);
        return;
      case 'delivery': {
        const delivery = read.message;
        const connection = await infra('connections.get', { connectionId: delivery.connectionId }, () =>
          deps.connections.get(delivery.connectionId),
        );
        // The body names its application: a connection of another application never receives it
        // (nor signs it with its secret), whatever the message says (docs/security.md).
        let target = judgeTarget(delivery.connectionId, connection, read.facts.applicationId);
        if (target.refusal?.[0] === 'connection_disabled' && deps.connections.fresh) {
          // A delivery message is a retry, a recovery, a Resend or a deferral. A customer who
          // enables a connection and recovers its parked deliveries at once must not see them
          // parked again because a cached copy still says disabled: ask the table before parking.
          const latest = await infra('connections.get', { connectionId: delivery.connectionId }, () =>
            deps.connections.fresh!(delivery.connectionId),
          );
          target = judgeTarget(delivery.connectionId, latest, read.facts.applicationId);
        }
        await parts.attempter.deliverTo(delivery, target, read.facts, run);
        return;
      }
      case 'attempt-log': {
        const rec = read.message.record;
        const outcome = await infra('attemptLog.append', { deliveryId: rec.deliveryId }, () =>
          deps.attemptLog.append(rec),
        );
        parts.settler.noteAppend(rec, outcome, 'retry queue');
        return;
      }
    }
  }

  return async (records, run) => {
    const settled = await Promise.allSettled(records.map((r) => processRecord(r, run)));
    const failures: string[] = [];
    settled.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      const messageId = records[i]!.messageId;
      failures.push(messageId);
      const error = result.reason;
      countFailure(deps.metrics, error);
      const fields = {
        messageId,
        ...(error instanceof InfrastructureError ? error.ids : {}),
        error: errorText(error),
        errorName: error instanceof Error ? error.name : 'Error',
      };
      if (error instanceof DeadlineError)
        log.warn('record left for redelivery: invocation deadline near', fields);
      else log.error('record failed; SQS will redeliver it', fields);
    });
    return { failures };
  };
}
