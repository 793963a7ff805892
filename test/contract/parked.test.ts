/**
 * The parked deliveries' contract (core/stores.ts ParkedTable), run against
 * test/support/memory/parked.ts and lambdas/adapters/dynamodb/parked.ts on dynalite.
 */

import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import { InvalidCursorError } from '../../lambdas/core/errors';
import { deliveryIdTimePrefix } from '../../lambdas/core/ids';
import { type ParkedItem, parkedListing } from '../../lambdas/core/parking';
import type { Page, ParkedTable } from '../../lambdas/core/stores';
import { id, parkedAt } from '../support/fixtures';
import { MemoryParked } from '../support/memory';
import { contract, lightClient } from './contract';

/** An id of the same shape that no item has: its last character changed (never to itself). */
const missingId = (deliveryId: string) => `${deliveryId.slice(0, -1)}${deliveryId.endsWith('X') ? 'Y' : 'X'}`;

const SECOND = 1_000;

/** `n` deliveries of one new connection parked a second apart, oldest first. */
async function parkSome(table: ParkedTable, n: number, applicationId = id('app'), connectionId = id('con')) {
  const t0 = Date.now() - 60 * SECOND;
  const items = Array.from({ length: n }, (_, i) => parkedAt(connectionId, applicationId, t0 + i * SECOND));
  for (const item of items) await table.park(item);
  return { applicationId, connectionId, items };
}

/** Every page of a listing, `next` reading one from a cursor: the items' delivery ids. */
async function allPages<T>(next: (cursor?: string) => Promise<Page<T>>, idOf: (item: T) => string) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await next(cursor);
    ids.push(...page.items.map(idOf));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  return { ids, pages };
}

const deliveryIds = (items: ParkedItem[]) => items.map((i) => i.deliveryId);

contract<ParkedTable>(
  'ParkedTable',
  {
    memory: () => new MemoryParked(),
    emulators: () => new DynamoParked({ tableName: process.env[ENV.parkedTable]! }),
    light: () => new DynamoParked({ tableName: process.env[ENV.parkedTable]!, client: lightClient() }),
  },
  (make) => {
    it('keeps a parked delivery with its body; listings show it without; nothing for one not parked', async () => {
      const table = make();
      const { connectionId, items } = await parkSome(table, 1);
      const [item] = items as [ParkedItem];
      expect(await table.get(connectionId, item.deliveryId)).toEqual(item);
      const listed = await table.find(connectionId, item.deliveryId);
      expect(listed).toEqual(parkedListing(item));
      expect(listed).not.toHaveProperty('body');
      expect(await table.get(connectionId, missingId(item.deliveryId))).toBeUndefined();
      expect(await table.find(id('con'), item.deliveryId)).toBeUndefined();
    });

    it('parks a delivery again by replacing it: one item, the latest facts', async () => {
      const table = make();
      const { connectionId, items } = await parkSome(table, 1);
      const again = {
        ...items[0]!,
        attempts: 8,
        reason: 'connection_disabled' as const,
        lastError: 'disabled',
      };
      await table.park(again);
      await table.park(again);
      expect(await table.get(connectionId, again.deliveryId)).toEqual(again);
      expect(await table.count(connectionId)).toBe(1);
    });

    it("lists a connection's parked deliveries newest first, from a delivery id on, paged with its own cursors", async () => {
      const table = make();
      const { connectionId, items } = await parkSome(table, 5);
      const newestFirst = deliveryIds(items).reverse();
      const listing = (query: { afterDeliveryId?: string }) =>
        allPages(
          (cursor) => table.listByConnection(connectionId, { ...query, limit: 2, cursor }),
          (i) => i.deliveryId,
        );
      const all = await listing({});
      expect(all.ids).toEqual(newestFirst);
      expect(all.pages).toBeGreaterThanOrEqual(3);
      expect(all.pages).toBeLessThanOrEqual(4);
      const after = deliveryIdTimePrefix(Date.parse(items[2]!.firstAttemptAt));
      expect((await listing({ afterDeliveryId: after })).ids).toEqual(newestFirst.slice(0, 3));
      const page = await table.listByConnection(connectionId, { limit: 1 });
      expect(page.items[0]).not.toHaveProperty('body');
      await expect(table.listByConnection(id('con'), { limit: 1, cursor: page.nextCursor })).rejects.toThrow(
        new InvalidCursorError('belongs to another listing'),
      );
      await expect(table.listByConnection(connectionId, { limit: 1, cursor: 'x' })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    });

    it("lists an application's parked deliveries of every connection newest first, paged with its own cursors", async () => {
      const table = make();
      const app = id('app');
      const a = await parkSome(table, 3, app);
      const b = await parkSome(table, 2, app);
      await parkSome(table, 2);
      const newestFirst = [...a.items, ...b.items].sort((x, y) => (x.deliveryId < y.deliveryId ? 1 : -1));
      const { ids } = await allPages(
        (cursor) => table.listByApplication(app, { limit: 2, cursor }),
        (i) => i.deliveryId,
      );
      // Delivery ids begin with their event's time: newest first across connections.
      expect(ids).toEqual(deliveryIds(newestFirst));
      const page = await table.listByApplication(app, { limit: 1 });
      expect(page.items).toEqual([parkedListing(newestFirst[0]!)]);
      await expect(table.listByApplication(id('app'), { limit: 1, cursor: page.nextCursor })).rejects.toThrow(
        new InvalidCursorError('belongs to another listing'),
      );
      await expect(
        table.listByConnection(a.connectionId, { limit: 1, cursor: page.nextCursor }),
      ).rejects.toBeInstanceOf(InvalidCursorError);
    });

    it("gives a recovery's work list oldest first, paged, and counts what waits", async () => {
      const table = make();
      const { connectionId, items } = await parkSome(table, 5);
      const { ids } = await allPages(
        (cursor) => table.idsOldestFirst(connectionId, { limit: 2, cursor }),
        (deliveryId) => deliveryId,
      );
      expect(ids).toEqual(deliveryIds(items));
      const after = items[1]!.deliveryId;
      expect((await table.idsOldestFirst(connectionId, { afterDeliveryId: after, limit: 10 })).items).toEqual(
        deliveryIds(items.slice(2)),
      );
      expect(await table.count(connectionId)).toBe(5);
      expect(await table.count(connectionId, after)).toBe(3);
      expect(await table.count(id('con'))).toBe(0);
    });

    it('claims a parked delivery once until its lease passes, and never one that is not parked', async () => {
      const table = make();
      const { connectionId, items } = await parkSome(table, 1);
      const item = items[0]!;
      const now = Date.now();
      const claimed = await table.claim(connectionId, item.deliveryId, now, now + 60 * SECOND);
      expect(claimed).toEqual({ ...item, claimedUntil: now + 60 * SECOND });
      expect(
        await table.claim(connectionId, item.deliveryId, now + SECOND, now + 120 * SECOND),
      ).toBeUndefined();
      // A claim shows in no read of the delivery.
      expect(await table.get(connectionId, item.deliveryId)).toEqual(item);
      const later = now + 61 * SECOND;
      expect(await table.claim(connectionId, item.deliveryId, later, later + 60 * SECOND)).toMatchObject({
        claimedUntil: later + 60 * SECOND,
      });
      expect(await table.claim(connectionId, missingId(item.deliveryId), now, now + 1)).toBeUndefined();
    });

    it('releases a re-queued delivery under its claim only; parked again meanwhile, it stays', async () => {
      const table = make();
      const { connectionId, items } = await parkSome(table, 3);
      const [sent, stale, reparked] = items as [ParkedItem, ParkedItem, ParkedItem];
      const now = Date.now();
      const until = now + 60 * SECOND;
      for (const item of items) await table.claim(connectionId, item.deliveryId, now, until);
      await table.release(connectionId, sent.deliveryId, until);
      await table.release(connectionId, stale.deliveryId, until + 1);
      await table.park({ ...reparked, attempts: 9 });
      await table.release(connectionId, reparked.deliveryId, until);
      expect(await table.get(connectionId, sent.deliveryId)).toBeUndefined();
      expect(await table.get(connectionId, stale.deliveryId)).toEqual(stale);
      expect(await table.get(connectionId, reparked.deliveryId)).toEqual({ ...reparked, attempts: 9 });
      expect(await table.count(connectionId)).toBe(2);
      // Parking again dropped the claim: the delivery can be claimed at once.
      expect(await table.claim(connectionId, reparked.deliveryId, now, until)).toBeDefined();
    });
  },
);
