/**
 * Resend (docs/design.md §9): any delivery still in the attempt log, delivered or not, sent again
 * as a new attempt of the same delivery. Pure: from the delivery's records it decides the message
 * to queue (same delivery id and body, the next attempt number, a new chain that the dispatcher
 * signs afresh when it sends it) or says why it cannot. The management library
 * (management/resend.ts) reads the records, marks the last one resent and queues the message.
 */

import { MAX_ATTEMPT } from './constants';
import type { AttemptRecord, DeliveryMessage } from './types';

/** Why a delivery's body is not there to show or resend. */
export type MissingBody = 'not_kept' | 'aged_out';

/** A delivery's body as its records hold it, or why it is missing. */
export type BodyOf = { body: string } | { missing: MissingBody; message: string };

/**
 * The body a delivery's records keep (on its first attempt's record, docs/design.md §5), or why
 * there is none: the first record aged out, or the stack's `keepBodies` did not keep it.
 */
export function bodyOfDelivery(records: readonly AttemptRecord[]): BodyOf {
  const kept = records.find((r) => r.body !== undefined);
  if (kept) return { body: kept.body! };
  const first = records.find((r) => r.attempt === 1);
  if (!first) {
    return {
      missing: 'aged_out',
      message: 'the body of this delivery is no longer kept: the record of its first attempt has aged out',
    };
  }
  if (first.outcome === 'delivered') {
    return {
      missing: 'not_kept',
      message:
        "bodies of delivered deliveries are not kept by this stack's settings (keepBodies: 'failures')",
    };
  }
  return {
    missing: 'not_kept',
    message: 'the body of this delivery was not kept: it was sent before this stack kept bodies',
  };
}

/** What a Resend of a delivery does: the message to queue after `last`, or why it cannot. */
export type ResendPlan =
  | { ok: true; last: AttemptRecord; message: DeliveryMessage }
  | {
      ok: false;
      reason: 'not_found' | 'in_progress' | 'already_resent' | 'no_body' | 'exhausted_numbers';
      message: string;
    };

/**
 * Plans a Resend from a delivery's records (oldest first). The new attempt starts a chain of its
 * own (`chainStart` = its number), as a recovery or a redrive does: if it fails it is retried
 * after 1 s, 2 s and 4 s and then parked. A delivery whose chain is still running (its last
 * record schedules a retry) or that a Resend has already queued is refused: two attempts must
 * never carry one number.
 */
export function planResend(records: readonly AttemptRecord[]): ResendPlan {
  const last = records.at(-1);
  if (!last) return { ok: false, reason: 'not_found', message: 'delivery not found' };
  const next = last.attempt + 1;
  if (last.resentAs !== undefined) {
    return {
      ok: false,
      reason: 'already_resent',
      message: `delivery ${last.deliveryId} is already queued again as attempt ${last.resentAs}; wait for it to arrive`,
    };
  }
  if (!last.final) {
    return {
      ok: false,
      reason: 'in_progress',
      message: `delivery ${last.deliveryId} has a retry scheduled (attempt ${next}${last.nextAttemptAt ? ` at ${last.nextAttemptAt}` : ''}); resend it once its retries have ended`,
    };
  }
  if (next > MAX_ATTEMPT) {
    return {
      ok: false,
      reason: 'exhausted_numbers',
      message: `delivery ${last.deliveryId} has used all ${MAX_ATTEMPT} attempt numbers`,
    };
  }
  const body = bodyOfDelivery(records);
  if (!('body' in body)) {
    return {
      ok: false,
      reason: 'no_body',
      message: `delivery ${last.deliveryId} cannot be resent: ${body.message}`,
    };
  }
  const message: DeliveryMessage = {
    v: 1,
    type: 'delivery',
    deliveryId: last.deliveryId,
    eventId: last.eventId,
    connectionId: last.connectionId,
    attempt: next,
    chainStart: next,
    body: body.body,
    firstAttemptAt: records[0]!.requestedAt,
  };
  if (last.test) message.test = true;
  return { ok: true, last, message };
}
