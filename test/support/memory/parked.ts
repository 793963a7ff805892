/**
 * Parked deliveries in memory (core/stores.ts ParkedTable), behaving as
 * lambdas/adapters/dynamodb/parked.ts does: parking again replaces the delivery (and drops any
 * claim); listings newest first by delivery id, a recovery's work list oldest first, pages from
 * opaque cursors bound to the connection or application; a claim holds a delivery until its
 * lease passes, and a release removes it only under the same claim. The contract suite
 * (test/contract/parked.test.ts) runs the same tests against both.
 */

import { decodeCursor, encodeCursor } from '../../../lambdas/core/cursor';
import { type ParkedDelivery, type ParkedItem, parkedListing } from '../../../lambdas/core/parking';
import type { ClaimedDelivery, Page, ParkedTable } from '../../../lambdas/core/stores';
import { checkOutage, noOutage, type Outage } from './outage';

const LISTING = { connection: 'parked', application: 'parked-of-application', ids: 'parked-ids' } as const;

type Stored = ParkedItem & { claimedUntil?: number };

const newestFirst = (a: ParkedItem, b: ParkedItem) => (a.deliveryId < b.deliveryId ? 1 : -1);

export class MemoryParked implements ParkedTable {
  private readonly items = new Map<string, Stored>();

  constructor(
    /** Operations: park, get, find, listByConnection, listByApplication, idsOldestFirst, claim, release, count. */
    private readonly outage: Outage = noOutage,
  ) {}

  private check(operation: string): void {
    checkOutage(this.outage, operation, 'DynamoDB');
  }

  /** Every parked delivery with its body, in the order first parked. */
  all(): ParkedItem[] {
    return [...this.items.values()].map(withoutClaim);
  }

  /** Forgets every parked delivery (between benchmark rounds). */
  clear(): void {
    this.items.clear();
  }

  async park(item: ParkedItem): Promise<void> {
    this.check('park');
    this.items.set(key(item.connectionId, item.deliveryId), { ...item });
  }

  async get(connectionId: string, deliveryId: string): Promise<ParkedItem | undefined> {
    this.check('get');
    const item = this.items.get(key(connectionId, deliveryId));
    return item && withoutClaim(item);
  }

  async find(connectionId: string, deliveryId: string): Promise<ParkedDelivery | undefined> {
    this.check('find');
    const item = this.items.get(key(connectionId, deliveryId));
    return item && parkedListing(item);
  }

  async listByConnection(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; cursor?: string },
  ): Promise<Page<ParkedDelivery>> {
    this.check('listByConnection');
    const resume = decodeCursor(query.cursor, LISTING.connection, connectionId, 1)?.[0];
    const rest = this.of(connectionId, query.afterDeliveryId)
      .sort(newestFirst)
      .filter((i) => resume === undefined || i.deliveryId < resume);
    const items = rest.slice(0, query.limit);
    return {
      items: items.map(parkedListing),
      ...(rest.length > items.length
        ? { nextCursor: encodeCursor(LISTING.connection, connectionId, [items.at(-1)!.deliveryId]) }
        : {}),
    };
  }

  async listByApplication(
    applicationId: string,
    query: { limit: number; cursor?: string },
  ): Promise<Page<ParkedDelivery>> {
    this.check('listByApplication');
    const resume = decodeCursor(query.cursor, LISTING.application, applicationId, 2)?.[0];
    const rest = [...this.items.values()]
      .filter((i) => i.applicationId === applicationId)
      .sort(newestFirst)
      .filter((i) => resume === undefined || i.deliveryId < resume);
    const items = rest.slice(0, query.limit);
    const last = items.at(-1);
    return {
      items: items.map(parkedListing),
      ...(last && rest.length > items.length
        ? {
            nextCursor: encodeCursor(LISTING.application, applicationId, [
              last.deliveryId,
              last.connectionId,
            ]),
          }
        : {}),
    };
  }

  async idsOldestFirst(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; cursor?: string },
  ): Promise<Page<string>> {
    this.check('idsOldestFirst');
    const resume = decodeCursor(query.cursor, LISTING.ids, connectionId, 1)?.[0];
    const rest = this.of(connectionId, query.afterDeliveryId)
      .map((i) => i.deliveryId)
      .sort()
      .filter((id) => resume === undefined || id > resume);
    const items = rest.slice(0, query.limit);
    return rest.length > items.length
      ? { items, nextCursor: encodeCursor(LISTING.ids, connectionId, [items.at(-1)!]) }
      : { items };
  }

  async claim(
    connectionId: string,
    deliveryId: string,
    nowMs: number,
    untilMs: number,
  ): Promise<ClaimedDelivery | undefined> {
    this.check('claim');
    const item = this.items.get(key(connectionId, deliveryId));
    if (!item || (item.claimedUntil !== undefined && item.claimedUntil >= nowMs)) return undefined;
    const claimed = { ...item, claimedUntil: untilMs };
    this.items.set(key(connectionId, deliveryId), claimed);
    return { ...claimed };
  }

  async release(connectionId: string, deliveryId: string, claimedUntil: number): Promise<void> {
    this.check('release');
    if (this.items.get(key(connectionId, deliveryId))?.claimedUntil === claimedUntil) {
      this.items.delete(key(connectionId, deliveryId));
    }
  }

  async count(connectionId: string, afterDeliveryId?: string): Promise<number> {
    this.check('count');
    return this.of(connectionId, afterDeliveryId).length;
  }

  private of(connectionId: string, afterDeliveryId?: string): Stored[] {
    return [...this.items.values()].filter(
      (i) =>
        i.connectionId === connectionId && (afterDeliveryId === undefined || i.deliveryId > afterDeliveryId),
    );
  }
}

const key = (connectionId: string, deliveryId: string) => `${connectionId} ${deliveryId}`;

function withoutClaim(item: Stored): ParkedItem {
  const { claimedUntil: _claim, ...rest } = item;
  return rest;
}
