/**
 * Resend (docs/design.md §9, docs/api.md): a delivery still in the attempt log, delivered or not,
 * goes out again as a new attempt of the same delivery. The message goes on the retry queue and
 * the dispatcher sends it, signing it afresh, so it is logged, retried and parked like any
 * attempt; nothing is sent from here.
 *
 * Two Resends at once: each marks the last attempt's record `resentAs` with a conditional write
 * before queueing, so one wins and the other answers 409; a Resend that SQS refuses takes its
 * mark back. A parked delivery is resent through its claim (parked.ts), so a recovery running
 * meanwhile does not queue it too.
 */

import type { ParkedDelivery } from '../core/parking';
import type { RetryScheduler } from '../core/ports';
import { planResend } from '../core/resend';
import type { AttemptTable } from '../core/stores';
import { ConflictError, NotFoundError } from './errors';
import type { Scope } from './parked';

export interface ResendResult {
  deliveryId: string;
  connectionId: string;
  /** The number the new attempt carries (the delivery's last plus one). */
  attempt: number;
}

export interface ResendDeps {
  attempts: AttemptTable;
  queue: RetryScheduler;
  /** Checks the delivery's connection is in scope: NotFoundError('delivery') otherwise. */
  scoped(deliveryId: string, scope: Scope): Promise<string>;
  /** The delivery's parked item, if it is parked. */
  parkedItem(deliveryId: string, scope: Scope): Promise<ParkedDelivery | undefined>;
  /** Re-queues a parked delivery through its claim (NotFoundError when another took it). */
  retryParked(deliveryId: string, scope: Scope): Promise<unknown>;
}

export async function resendDelivery(
  deps: ResendDeps,
  deliveryId: string,
  scope: Scope = {},
): Promise<ResendResult> {
  const connectionId = await deps.scoped(deliveryId, scope);
  const records = (await deps.attempts.ofDelivery(deliveryId)).filter(
    (r) => scope.applicationId === undefined || r.applicationId === scope.applicationId,
  );
  const plan = planResend(records);
  if (!plan.ok) {
    if (plan.reason === 'not_found') throw new NotFoundError('delivery', deliveryId);
    throw new ConflictError(plan.message);
  }
  const { last, message } = plan;
  if (!(await deps.attempts.markResent(deliveryId, last.attempt))) {
    throw new ConflictError(
      `delivery ${deliveryId} is already being sent again; wait for that attempt to arrive`,
    );
  }
  const result = { deliveryId, connectionId, attempt: message.attempt };
  if (await deps.parkedItem(deliveryId, scope)) {
    try {
      await deps.retryParked(deliveryId, scope);
    } catch (error) {
      // Another recovery claimed it first: it queues this same attempt number, so the mark stays.
      if (error instanceof NotFoundError) {
        throw new ConflictError(
          `delivery ${deliveryId} is being recovered right now; wait for that attempt to arrive`,
        );
      }
      await deps.attempts.unmarkResent(deliveryId, last.attempt);
      throw error;
    }
    return result;
  }
  try {
    await deps.queue.schedule(message, 0);
  } catch (error) {
    await deps.attempts.unmarkResent(deliveryId, last.attempt);
    throw error;
  }
  return result;
}
