/**
 * Finding deliveries (docs/api.md "Deliveries"): an application's deliveries across its
 * connections, newest first, by user, event or connection, in a time window; and where a
 * delivery stands now, which is also what keeps `attempts failures` truthful (a final failure
 * that a later recovery delivered reads "delivered" there, not "failed").
 *
 * The store lists deliveries by their first attempt (core/stores.ts DeliveryPageQuery); the rest
 * of each one's attempts, and for a final failure the parked table, say where it stands. A page
 * costs one Query per delivery on it for that, and one per parked check.
 */

import { ValidationError } from '../core/errors';
import { isConnectionId, isEventId, isUserId } from '../core/ids';
import type { AttemptTable, ConnectionTable, DeliveryRef, Page, ParkedTable } from '../core/stores';
import type { AttemptRecord, Outcome } from '../core/types';
import type { DeliverySummaryView } from '../shapes/resource-types';
import { NotFoundError } from './errors';

/**
 * Where a delivery stands now: `delivered`; `retrying` (a retry is scheduled, or it was sent
 * again and that attempt is not logged yet); `parked` (failed for good, kept to send again);
 * `dead_lettered` (failed for good and not parked: in the DLQ); `failed` (a test send that
 * failed: never retried).
 */
export const DELIVERY_STATES = ['delivered', 'retrying', 'parked', 'dead_lettered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A delivery as a deliveries list shows it (the API's DeliverySummary, lambdas/api/delivery-schemas.ts). */
export type DeliverySummary = DeliverySummaryView;

export interface DeliveryListQuery {
  applicationId: string;
  connectionId?: string;
  userId?: string;
  eventId?: string;
  /** Only deliveries whose latest attempt had this outcome (a page may then hold fewer than `limit`). */
  outcome?: Outcome;
  since?: Date;
  until?: Date;
  limit: number;
  cursor?: string;
}

/** A final failure of the attempt log, and where its delivery stands now. */
export type FailureNow = AttemptRecord & { now: DeliveryState };

/** The state of a delivery from its attempts (oldest first), and whether it is parked. */
export function stateOf(attempts: readonly AttemptRecord[], parked: boolean): DeliveryState {
  const last = attempts.at(-1)!;
  if (last.outcome === 'delivered') return 'delivered';
  if (last.test) return 'failed';
  // A recovery or a Resend marks the attempt it queued the next one after (resentAs).
  if (!last.final || last.resentAs !== undefined) return 'retrying';
  return parked ? 'parked' : 'dead_lettered';
}

export class Deliveries {
  constructor(
    private readonly stores: {
      attempts: AttemptTable;
      connections: ConnectionTable;
      parked?: ParkedTable;
    },
    /** Whether deliveries are findable by user and event (`deliverySearch`). */
    private readonly search: boolean,
  ) {}

  /** One page of an application's deliveries, newest first (by when each was created), with where each stands now. */
  async list(query: DeliveryListQuery): Promise<Page<DeliverySummary>> {
    const { applicationId, connectionId, userId, eventId } = query;
    if (connectionId !== undefined && !isConnectionId(connectionId))
      throw new ValidationError('connectionId', 'must look like con_<id>');
    if (userId !== undefined && !isUserId(userId))
      throw new ValidationError('userId', 'must look like usr_<id>');
    if (eventId !== undefined && !isEventId(eventId))
      throw new ValidationError('eventId', 'must look like evt_<id>');
    if ((userId !== undefined || eventId !== undefined) && !this.search) {
      throw new ValidationError(
        userId !== undefined ? 'userId' : 'eventId',
        'cannot be searched: delivery search is off on this deployment (deliverySearch: false, or the lean profile). Find a delivery by its id (dlv_…), or list deliveries without userId and eventId',
      );
    }
    let connectionIds: string[] = [];
    if (connectionId !== undefined) {
      const connection = await this.stores.connections.get(connectionId);
      if (connection?.applicationId !== applicationId) throw new NotFoundError('connection', connectionId);
      connectionIds = [connectionId];
    } else if (userId === undefined && eventId === undefined) {
      connectionIds = (await this.stores.connections.listByApplication(applicationId)).map(
        (c) => c.connectionId,
      );
    }
    const page = await this.stores.attempts.deliveries({ ...query, connectionIds });
    const found = await Promise.all(page.items.map((ref) => this.summaryOf(ref)));
    const items = found
      .flatMap((f) => (f ? [f.summary] : []))
      .filter((s) => query.outcome === undefined || s.outcome === query.outcome);
    return page.nextCursor ? { items, nextCursor: page.nextCursor } : { items };
  }

  /**
   * One delivery as a list shows it, by its id; undefined when the attempt log does not have it
   * (or, with `applicationId`, when it is another application's).
   */
  async one(deliveryId: string, applicationId?: string): Promise<DeliverySummary | undefined> {
    const found = await this.summaryOf({ deliveryId });
    return found && (applicationId === undefined || found.applicationId === applicationId)
      ? found.summary
      : undefined;
  }

  /** Final failures and where each delivery stands now (a later recovery may have delivered it). */
  async failuresNow(failures: readonly AttemptRecord[]): Promise<FailureNow[]> {
    return Promise.all(
      failures.map(async (failure) => {
        const attempts = await this.stores.attempts.ofDelivery(failure.deliveryId);
        const now = await this.stateNow(attempts.length ? attempts : [failure]);
        return { ...failure, now };
      }),
    );
  }

  private async summaryOf(
    ref: Pick<DeliveryRef, 'deliveryId'>,
  ): Promise<{ summary: DeliverySummary; applicationId: string } | undefined> {
    const attempts = await this.stores.attempts.ofDelivery(ref.deliveryId);
    const first = attempts[0];
    const last = attempts.at(-1);
    // Expired between the list and this read.
    if (!first || !last) return undefined;
    const summary: DeliverySummary = {
      deliveryId: ref.deliveryId,
      connectionId: first.connectionId,
      eventId: first.eventId,
      userId: first.userId,
      event: first.event,
      firstAttemptAt: first.requestedAt,
      lastAttemptAt: last.requestedAt,
      attempts: last.attempt,
      outcome: last.outcome,
      ...(last.statusCode !== undefined ? { statusCode: last.statusCode } : {}),
      state: await this.stateNow(attempts),
      ...(last.test ? { test: true } : {}),
    };
    return { summary, applicationId: first.applicationId };
  }

  /** stateOf, asking the parked table only about a final failure. */
  private async stateNow(attempts: readonly AttemptRecord[]): Promise<DeliveryState> {
    const last = attempts.at(-1)!;
    const failedForGood =
      last.final && last.outcome !== 'delivered' && !last.test && last.resentAs === undefined;
    const parked =
      failedForGood && this.stores.parked
        ? (await this.stores.parked.find(last.connectionId, last.deliveryId)) !== undefined
        : false;
    return stateOf(attempts, parked);
  }
}
