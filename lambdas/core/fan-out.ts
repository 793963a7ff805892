/**
 * Fan-out: one event becomes one delivery per target connection, each attempted at once. A delivery
 * whose attempt fails for an infrastructure reason is handed to the retry queue on its own
 * (docs/design.md §4 "Infrastructure errors"), so SQS redelivering the event never sends its other
 * deliveries twice. With the claims port, each delivery is claimed first (core/claims.ts): a
 * republished event keeps its delivery ids and sends nothing already attempted or in flight.
 */

import type { Attempter, Run } from './attempt';
import { claimDelivery, DeliveryInFlightError, noteNotSent, settleClaim } from './claims';
import { bodyOfEvent } from './envelope';
import { infra } from './errors';
import { deliveryIdFor } from './ids';
import { countFailure } from './metrics';
import { errorText } from './poison';
import type { DispatcherDeps } from './ports';
import { judgeTarget, type Target, targetsOfListing } from './targets';
import { isoTime } from './time';
import type { DeliveryMessage, EventFacts, EventMessage } from './types';

export type FanOut = (
  event: EventMessage,
  body: string,
  facts: EventFacts,
  run: Run,
  /** The event's SQS sent time (Unix ms): its publish time, carried by its deliveries. */
  sentAtMs?: number,
  /** The publisher's trace context (InputRecord.traceparent), carried by its deliveries. */
  traceparent?: string,
) => Promise<void>;

export function createFanOut(
  deps: Pick<DispatcherDeps, 'connections' | 'scheduler' | 'clock' | 'log' | 'metrics' | 'claims'>,
  attempter: Attempter,
): FanOut {
  const { clock, log } = deps;

  /** The connections an event goes to, with the reason each unusable explicit target is refused. */
  async function targetsOf(event: EventMessage): Promise<Target[]> {
    const appId = event.application.id;
    if (!event.connectionIds) {
      const all = await infra('connections.listByApplication', {}, () =>
        deps.connections.listByApplication(appId),
      );
      return targetsOfListing(all);
    }
    return Promise.all(
      event.connectionIds.map(async (id) => {
        const connection = await infra('connections.get', { connectionId: id }, () =>
          deps.connections.get(id),
        );
        return judgeTarget(id, connection, appId);
      }),
    );
  }

  /** `body`: the event's request body as readMessage serialised it, the same bytes for every connection. */
  return async function fanOut(event, body, facts, run, sentAtMs, traceparent) {
    const targets = await targetsOf(event);
    if (targets.length === 0) {
      log.info('no enabled webhook connection for this application; nothing to deliver', {
        eventId: event.eventId,
        applicationId: facts.applicationId,
      });
      return;
    }
    const occurredAtMs = Date.parse(event.occurredAt);
    const firstAttemptAt = isoTime(clock.now());
    const publishedAt = sentAtMs === undefined ? undefined : isoTime(sentAtMs);
    const deliver = async (target: Target) => {
      const key = { applicationId: facts.applicationId, eventId: event.eventId, connectionId: target.id };
      const claim = await claimDelivery(deps, key, occurredAtMs, run.remainingMs());
      const deliveryId = deliveryIdFor(event.eventId, target.id, claim.timeMs);
      if (claim.kind !== 'claimed') {
        noteNotSent(deps, key, deliveryId, claim);
        if (claim.kind === 'busy') throw new DeliveryInFlightError({ connectionId: target.id, deliveryId });
        return;
      }
      // Taken over from an earlier publish (its send crashed): that publish's timestamp, so one
      // delivery id never carries two bodies.
      const sent =
        claim.timeMs === occurredAtMs ? body : bodyOfEvent({ ...event, occurredAt: isoTime(claim.timeMs) });
      const delivery = firstDelivery(event.eventId, target.id, deliveryId, sent, {
        firstAttemptAt,
        publishedAt,
        traceparent,
      });
      try {
        await attempter.deliverTo(delivery, target, facts, run);
      } catch (error) {
        await handBack(deps, delivery, facts.applicationId, error);
      }
      // Attempted or handed to the retry queue: its own chain owns it now, not a republish.
      if (claim.held) await settleClaim(deps, key, claim);
    };
    // Most events have one target: its delivery is awaited as it is, with no settled list.
    if (targets.length === 1) {
      await deliver(targets[0]!);
      return;
    }
    const outcomes = await Promise.allSettled(targets.map(deliver));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  };
}

/** A target's first delivery of an event: attempt 1 of a new chain. */
function firstDelivery(
  eventId: string,
  connectionId: string,
  deliveryId: string,
  body: string,
  stamps: { firstAttemptAt: string; publishedAt?: string; traceparent?: string },
): DeliveryMessage {
  const { firstAttemptAt, publishedAt, traceparent } = stamps;
  return {
    v: 1,
    type: 'delivery',
    deliveryId,
    eventId,
    connectionId,
    attempt: 1,
    chainStart: 1,
    body,
    firstAttemptAt,
    ...(publishedAt ? { publishedAt } : {}),
    ...(traceparent ? { traceparent } : {}),
  };
}

/** A delivery whose attempt failed for an infrastructure reason, handed to the retry queue on its own. */
async function handBack(
  deps: Pick<DispatcherDeps, 'scheduler' | 'log' | 'metrics'>,
  delivery: DeliveryMessage,
  applicationId: string,
  error: unknown,
): Promise<void> {
  deps.log.warn('delivery handed back to the queue', {
    applicationId,
    deliveryId: delivery.deliveryId,
    eventId: delivery.eventId,
    connectionId: delivery.connectionId,
    attempt: delivery.attempt,
    error: errorText(error),
  });
  countFailure(deps.metrics, error);
  await infra('scheduler.schedule', { deliveryId: delivery.deliveryId }, () =>
    deps.scheduler.schedule(delivery, 0),
  );
}
