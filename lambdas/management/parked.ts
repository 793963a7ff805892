/**
 * Parked deliveries for operators and dashboards (docs/design.md §9): list them, retry one, and
 * recover a connection's since a time. A recovered delivery goes back on the internal retry
 * queue as a new chain: same delivery id, byte-identical body, attempt numbers continuing,
 * oldest first, spread in time by SQS message delays so a recovering endpoint is not flooded.
 *
 * Each parked delivery is claimed (a conditional write with a lease) before it is sent and
 * removed after, so two recoveries never re-queue the same one. A recovery interrupted
 * between a claim and the send leaves the claim to expire (RECOVERY_LEASE_MS), after which
 * the next recovery picks the delivery up; one interrupted between the send and the removal
 * may re-queue those deliveries (at most one batch of 10) once more: receivers de-duplicate
 * on the delivery id (docs/protocol.md §3). docs/reliability.md.
 */

import { MAX_ATTEMPT } from '../core/constants';
import { ValidationError } from '../core/errors';
import { connectionIdOf, deliveryIdTimePrefix, isConnectionId } from '../core/ids';
import { type ParkedDelivery, recoveryMessage } from '../core/parking';
import type { ClaimedDelivery, Page, ParkedTable } from '../core/stores';
import { ConflictError, NotFoundError } from './errors';
import { type DeliveryQueue, MAX_DELAY_SECONDS, type ManagementBackend, QUEUE_BATCH_LIMIT } from './ports';
import { parseSince } from './since';

/** Re-queued deliveries per second a recovery aims at, unless told otherwise. */
export const DEFAULT_RECOVERY_RATE_PER_SECOND = 10;
export const MAX_RECOVERY_RATE_PER_SECOND = 500;
/** How long a claim keeps other recoveries off a parked delivery. */
export const RECOVERY_LEASE_MS = 5 * 60_000;
/** Page size of listings unless asked. */
export const DEFAULT_PARKED_PAGE = 50;
export const MAX_PARKED_PAGE = 200;

export interface ParkedPageResult {
  data: ParkedDelivery[];
  nextCursor?: string;
}

export interface RecoverResult {
  /** Deliveries put back on the retry queue by this call. */
  requeued: number;
  /** Parked deliveries of the connection in the time range still waiting (a next call takes them). */
  remaining: number;
}

/** Scope of a call: an API caller names its application and gets 404 for another's ids. */
export interface Scope {
  applicationId?: string;
}

export class ParkedDeliveriesAdmin {
  /** Absent on a deployment that predates parked deliveries: every call is refused by name. */
  private readonly table?: ParkedTable;
  private readonly queues: DeliveryQueue;

  constructor(
    backend: Pick<ManagementBackend, 'parked' | 'retryQueue'>,
    /** Reads a connection (404 when missing); the scope check is done here. */
    private readonly connectionOf: (connectionId: string) => Promise<{ applicationId: string }>,
    private readonly clock: { now(): number } = { now: () => Date.now() },
    /**
     * Marks a re-queued delivery's last attempt as resent (management/resend.ts), so a Resend
     * that arrives before the re-queued attempt is logged is refused instead of queueing the
     * same attempt number again. Absent: no mark (a store without Resend).
     */
    private readonly markResent?: (deliveryId: string, attempt: number) => Promise<boolean>,
  ) {
    this.table = backend.parked;
    this.queues = backend.retryQueue;
  }

  /** The parked table, or a ValidationError naming it on a deployment without one. */
  private get store(): ParkedTable {
    this.requireTable();
    return this.table!;
  }

  private requireTable(): void {
    if (!this.table) {
      throw new ValidationError(
        'resources.parkedTable',
        'is not set: this deployment predates parked deliveries (redeploy the stack, or restart npm start)',
      );
    }
  }

  private async scoped(connectionId: string, scope: Scope): Promise<void> {
    if (!isConnectionId(connectionId)) throw new ValidationError('connectionId', 'must look like con_<id>');
    const connection = await this.connectionOf(connectionId);
    if (scope.applicationId !== undefined && connection.applicationId !== scope.applicationId) {
      throw new NotFoundError('connection', connectionId);
    }
  }

  /**
   * A connection's parked deliveries, newest events first (by delivery id, whose time is its
   * event's; `parkedAt` can be later); `since` keeps those whose event is that recent.
   */
  async list(
    connectionId: string,
    query: { since?: string; limit?: number; cursor?: string } & Scope = {},
  ): Promise<ParkedPageResult> {
    this.requireTable();
    await this.scoped(connectionId, query);
    const sinceMs = parseSince(query.since, this.clock.now());
    const page = await this.store.listByConnection(connectionId, {
      afterDeliveryId: sinceMs === undefined ? undefined : lowerBound(sinceMs),
      limit: pageSize(query.limit),
      cursor: query.cursor,
    });
    return result(page);
  }

  /** An application's parked deliveries, newest events first, as {@link list} (GET /failures). */
  async listApplication(applicationId: string, query: { limit?: number; cursor?: string } = {}) {
    this.requireTable();
    const page = await this.store.listByApplication(applicationId, {
      limit: pageSize(query.limit),
      cursor: query.cursor,
    });
    return result(page);
  }

  /** The connection of a delivery, in scope; a delivery whose connection is gone or another application's is not found. */
  async deliveryScoped(deliveryId: string, scope: Scope): Promise<string> {
    const connectionId = connectionIdOf(deliveryId);
    try {
      await this.scoped(connectionId, scope);
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError('delivery', deliveryId);
      throw error;
    }
    return connectionId;
  }

  /**
   * One parked delivery (never its body); undefined when it is not parked (never was, or was
   * sent again since), and on a deployment that predates parking, which parks nothing.
   * NotFoundError when its connection no longer exists (or is another application's).
   */
  async get(deliveryId: string, scope: Scope = {}): Promise<ParkedDelivery | undefined> {
    const connectionId = await this.deliveryScoped(deliveryId, scope);
    return this.table?.find(connectionId, deliveryId);
  }

  /** Re-queues one parked delivery now. */
  async retry(deliveryId: string, scope: Scope = {}): Promise<{ requeued: true; connectionId: string }> {
    this.requireTable();
    const connectionId = await this.deliveryScoped(deliveryId, scope);
    const now = this.clock.now();
    const item = await this.store.claim(connectionId, deliveryId, now, now + RECOVERY_LEASE_MS);
    if (!item) throw new NotFoundError('delivery', deliveryId);
    const sent = await this.send([item], 0, 1);
    if (sent === 0) {
      throw new ConflictError(
        item.attempts + 1 > MAX_ATTEMPT
          ? `delivery ${deliveryId} has used all ${MAX_ATTEMPT} attempt numbers; it stays parked`
          : `delivery ${deliveryId} could not be queued (SQS refused it); it stays parked, try again in ${RECOVERY_LEASE_MS / 60_000} minutes`,
      );
    }
    return { requeued: true, connectionId };
  }

  /**
   * Re-queues a connection's parked deliveries whose events happened since `since` (all when
   * absent), oldest first, at most `ratePerSecond` a second (SQS delays, up to 15 minutes
   * ahead: one call takes up to rate × 900 deliveries and reports the rest as `remaining`).
   */
  async recover(
    connectionId: string,
    options: { since?: string; ratePerSecond?: number } & Scope = {},
  ): Promise<RecoverResult> {
    this.requireTable();
    await this.scoped(connectionId, options);
    const rate = options.ratePerSecond ?? DEFAULT_RECOVERY_RATE_PER_SECOND;
    if (!Number.isInteger(rate) || rate < 1 || rate > MAX_RECOVERY_RATE_PER_SECOND) {
      throw new ValidationError(
        'ratePerSecond',
        `must be a whole number from 1 to ${MAX_RECOVERY_RATE_PER_SECOND}`,
      );
    }
    const sinceMs = parseSince(options.since, this.clock.now());
    const after = sinceMs === undefined ? undefined : lowerBound(sinceMs);
    const budget = rate * MAX_DELAY_SECONDS;
    let requeued = 0;
    let cursor: string | undefined;
    do {
      const page = await this.store.idsOldestFirst(connectionId, {
        afterDeliveryId: after,
        limit: QUEUE_BATCH_LIMIT,
        cursor,
      });
      cursor = page.nextCursor;
      const now = this.clock.now();
      // The page is in oldest-first order; claims of one page go out together.
      const wanted = page.items.slice(0, Math.max(0, budget - requeued));
      const claims = await Promise.all(
        wanted.map((deliveryId) => this.store.claim(connectionId, deliveryId, now, now + RECOVERY_LEASE_MS)),
      );
      const claimed = claims.filter((item): item is ClaimedDelivery => item !== undefined);
      requeued += await this.send(claimed, requeued, rate);
      if (requeued >= budget) break;
    } while (cursor);
    const remaining = await this.store.count(connectionId, after);
    return { requeued, remaining };
  }

  /**
   * Sends claimed items as new chains, the i-th (counting from `offset`) delayed by i / rate
   * seconds, and removes those SQS took. Returns how many were sent.
   */
  private async send(items: ClaimedDelivery[], offset: number, rate: number): Promise<number> {
    const sendable = items.filter((item) => item.attempts + 1 <= MAX_ATTEMPT);
    if (sendable.length === 0) return 0;
    const batch = sendable.map((item, i) => ({
      delivery: recoveryMessage(item),
      delaySeconds: Math.floor((offset + i) / rate),
    }));
    const sent = new Set(await this.queues.scheduleBatch(batch));
    await Promise.all(
      sendable
        .filter((item) => sent.has(item.deliveryId))
        .map(async (item) => {
          // Marked while the claim still holds the parked item, so a Resend meanwhile is refused
          // either way (by the claim, then by the mark). False when a Resend marked it first (it
          // queued this very attempt through this claim). A mark that cannot be written leaves
          // only that race open: the delivery is queued already, so it must not fail here.
          await this.markResent?.(item.deliveryId, item.attempts).catch(() => false);
          await this.store.release(item.connectionId, item.deliveryId, item.claimedUntil);
        }),
    );
    return sent.size;
  }
}

/** The smallest delivery id of an event at `ms`: ids sort by their time part (core/ids.ts). */
function lowerBound(ms: number): string {
  return deliveryIdTimePrefix(ms);
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PARKED_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PARKED_PAGE) {
    throw new ValidationError('limit', `must be a whole number from 1 to ${MAX_PARKED_PAGE}`);
  }
  return limit;
}

function result(page: Page<ParkedDelivery>): ParkedPageResult {
  return page.nextCursor ? { data: page.items, nextCursor: page.nextCursor } : { data: page.items };
}
