/**
 * Republished events (docs/reliability.md "Republished events"). An upstream that publishes the
 * same eventId again (a retried Lambda) must not make new deliveries. Before fan-out sends an
 * event's delivery it claims it, in a small record keyed by application, event and connection
 * that lives {@link CLAIM_WINDOW_S}:
 *
 * - The claim keeps the delivery id's time from the event's first sight (its `occurredAt`), so
 *   the id is the same whatever a later publish's `occurredAt` says.
 * - It is settled once the delivery was attempted or handed on (retry queue, parked): a later
 *   publish of the event skips it, since its own chain (retries, parking) already owns it.
 * - It holds a send only until the invocation's end (its lease). A send that crashed leaves a
 *   claim that SQS's redelivery of the event, due after the visibility timeout (never shorter than
 *   the function timeout), finds expired and takes over: a real retry is never lost.
 *
 * Only events are claimed: retries, recoveries, Resends and redrives are delivery messages and go
 * out as before. A claim that cannot be read or written is logged and the delivery sent anyway:
 * the check never costs a delivery.
 */

import { InfrastructureError } from './errors';
import { errorText } from './poison';
import type { DispatcherDeps } from './ports';
import type { Claim, ClaimKey } from './types';

/** How long a republished event is recognised: 24 hours after its first sight. */
export const CLAIM_WINDOW_S = 86_400;

type Deps = Pick<DispatcherDeps, 'claims' | 'clock' | 'log'>;

/** A claim as fan-out holds it: `held` when there is a claim of this send's to settle. */
export type HeldClaim = Claim & { held: boolean };

/**
 * Claims one delivery of an event for a send that ends with the invocation (`remainingMs`).
 * Without the claims port, or when the claim fails, the delivery is sent unclaimed, its id's time
 * the event's own `occurredAt` (as before de-duplication).
 */
export async function claimDelivery(
  deps: Deps,
  key: ClaimKey,
  occurredAtMs: number,
  remainingMs: number,
): Promise<HeldClaim> {
  const unclaimed: HeldClaim = { kind: 'claimed', timeMs: occurredAtMs, held: false };
  if (!deps.claims) return unclaimed;
  const nowMs = deps.clock.now();
  try {
    const claim = await deps.claims.claim(key, {
      timeMs: occurredAtMs,
      nowMs,
      leaseUntilMs: nowMs + Math.max(0, remainingMs),
      expiresAtS: Math.floor(nowMs / 1000) + CLAIM_WINDOW_S,
    });
    return { ...claim, held: claim.kind === 'claimed' };
  } catch (error) {
    deps.log.warn(
      'delivery claim failed: sending without the republished-event check, so a republished event may reach the receiver twice',
      { ...key, error: errorText(error) },
    );
    return unclaimed;
  }
}

/** Marks a claimed delivery settled; a failure is logged, never thrown (the delivery is done). */
export async function settleClaim(deps: Deps, key: ClaimKey, claim?: Claim): Promise<void> {
  try {
    await deps.claims?.settle(key, claim);
  } catch (error) {
    deps.log.warn(
      'delivery claim not settled: a republish of this event after the invocation ends would send it again',
      { ...key, error: errorText(error) },
    );
  }
}

/** Says why a republished event's delivery was not sent now. */
export function noteNotSent(deps: Deps, key: ClaimKey, deliveryId: string, claim: Claim): void {
  const fields = { ...key, deliveryId };
  if (claim.kind === 'settled') {
    deps.log.info(
      'republished event: this delivery was already attempted (see its attempts); not sent again',
      fields,
    );
  } else {
    deps.log.info(
      'republished event: this delivery is being sent by another invocation; the event is left for SQS to redeliver',
      fields,
    );
  }
}

/**
 * An event with a delivery another invocation is sending (a republish that arrived during the first
 * send): left for SQS to redeliver, when that send has settled (then skipped) or its lease has run
 * out (then sent).
 */
export class DeliveryInFlightError extends InfrastructureError {
  constructor(ids: { connectionId: string; deliveryId: string }) {
    super('claims.claim', ids, {
      code: 'delivery_in_flight',
      message: `delivery ${ids.deliveryId} of this republished event is being sent by another invocation; the event is left for SQS to redeliver`,
    });
    this.name = 'DeliveryInFlightError';
  }
}
