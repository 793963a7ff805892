/**
 * The connections table's contract (core/stores.ts ConnectionTable), run against
 * test/support/memory/connections.ts and lambdas/adapters/dynamodb/connections.ts on dynalite.
 */

import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { ENV } from '../../lambdas/config';
import { InvalidCursorError } from '../../lambdas/core/errors';
import type { ConnectionHealth } from '../../lambdas/core/health';
import type { ConnectionTable } from '../../lambdas/core/stores';
import type { Connection } from '../../lambdas/core/types';
import { connection, id } from '../support/fixtures';
import { MemoryConnections } from '../support/memory';
import { contract, lightClient } from './contract';

/** A new connection of `applicationId` (a new one when absent) with a fresh id. */
const fresh = (applicationId = id('app'), overrides: Partial<Connection> = {}) =>
  connection(id('con'), { applicationId, ...overrides });

/** Connections in id order: oldest first (ids made within one millisecond order at random). */
const byId = (connections: Connection[]) =>
  [...connections].sort((a, b) => (a.connectionId < b.connectionId ? -1 : 1));

const failing = (version: number, consecutiveFailures = 3): ConnectionHealth => ({
  state: 'failing',
  consecutiveFailures,
  failingSince: '2026-11-21T15:00:00.000Z',
  lastFailureAt: '2026-11-21T15:00:00.000Z',
  version,
});

/** Every page of an application's connections, `limit` at a time; also how many pages it took. */
async function allPages(table: ConnectionTable, applicationId: string, limit: number) {
  const pages: Connection[][] = [];
  let cursor: string | undefined;
  do {
    const page = await table.page(applicationId, { limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    pages.push(page.items);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 20);
  return { ids: pages.flat().map((c) => c.connectionId), pages: pages.length };
}

contract<ConnectionTable>(
  'ConnectionTable',
  {
    memory: () => new MemoryConnections(),
    emulators: () => new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! }),
    light: () =>
      new DynamoConnections({ tableName: process.env[ENV.connectionsTable]!, client: lightClient() }),
  },
  (make) => {
    it('gives back what was created, with every field; undefined for an id never created', async () => {
      const table = make();
      const created = fresh(undefined, { headers: { Authorization: 'Bearer x', 'X-Tenant': 't' } });
      expect(await table.create(created)).toBe('created');
      expect(await table.get(created.connectionId)).toEqual(created);
      expect(await table.get(created.connectionId, { consistent: true })).toEqual(created);
      expect(await table.get(id('con'))).toBeUndefined();
    });

    it('refuses to create over an existing id and keeps the first', async () => {
      const table = make();
      const first = fresh();
      await table.create(first);
      expect(await table.create({ ...first, name: 'Impostor' })).toBe('exists');
      expect((await table.get(first.connectionId))?.name).toBe(first.name);
    });

    it("lists an application's connections oldest first, and no other application's", async () => {
      const table = make();
      const app = id('app');
      const mine = byId([fresh(app), fresh(app), fresh(app)]);
      const theirs = fresh();
      for (const c of [mine[2]!, theirs, mine[0]!, mine[1]!]) await table.create(c);
      const ids = mine.map((c) => c.connectionId);
      expect((await table.listByApplication(app)).map((c) => c.connectionId)).toEqual(ids);
      expect(await table.listByApplication(id('app'))).toEqual([]);
      const all = (await table.listAll()).map((c) => c.connectionId);
      expect(all).toEqual(expect.arrayContaining([...ids, theirs.connectionId]));
    });

    it('pages them oldest first, each once, with cursors that only this listing takes', async () => {
      const table = make();
      const app = id('app');
      const made = byId([fresh(app), fresh(app), fresh(app), fresh(app), fresh(app)]);
      for (const c of made) await table.create(c);
      const { ids, pages } = await allPages(table, app, 2);
      expect(ids).toEqual(made.map((c) => c.connectionId));
      expect(pages).toBeGreaterThanOrEqual(3);
      expect(pages).toBeLessThanOrEqual(4);
      expect(await table.page(app, { limit: 10 })).toEqual({ items: made });

      const { nextCursor } = await table.page(app, { limit: 1 });
      await expect(table.page(id('app'), { limit: 1, cursor: nextCursor })).rejects.toThrow(
        new InvalidCursorError('belongs to another listing'),
      );
      for (const cursor of ['garbage', nextCursor!.slice(0, -4)]) {
        await expect(table.page(app, { limit: 1, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
      }
    });

    it('updates only as read: the changes are written when updatedAt is unchanged, else nothing', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      await table.health.write(created.connectionId, failing(1), 0);
      const changes = { name: 'Renamed', enabled: false, updatedAt: '2026-11-22T00:00:00.000Z' };
      expect(await table.update(created.connectionId, changes, created.updatedAt)).toBe('updated');
      const updated = await table.get(created.connectionId, { consistent: true });
      // What was not changed stays, health included.
      expect(updated).toEqual({ ...created, ...changes, health: failing(1) });
      const stale = { name: 'Lost update', updatedAt: '2026-11-23T00:00:00.000Z' };
      expect(await table.update(created.connectionId, stale, created.updatedAt)).toBe('conflict');
      expect(await table.get(created.connectionId, { consistent: true })).toEqual(updated);
      expect(await table.update(id('con'), stale, created.updatedAt)).toBe('conflict');
      expect(await table.get(id('con'))).toBeUndefined();
    });

    const noneAhead = { nextSecretVersion: null, nextSecretCiphertext: null, secretSwitchAt: null };
    const seenOf = (c: { secretVersion?: string; nextSecretVersion?: string }) => ({
      secretVersion: c.secretVersion,
      nextSecretVersion: c.nextSecretVersion,
    });

    it('points a connection at a new secret version, and says when it is gone', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      const fields = { secretArn: created.secretArn, secretVersion: 'v2' };
      const at = '2026-11-22T00:00:00.000Z';
      expect(
        await table.setSecret(created.connectionId, { ...fields, ...noneAhead }, at, seenOf(created)),
      ).toBe('updated');
      expect(await table.get(created.connectionId, { consistent: true })).toEqual({
        ...created,
        ...fields,
        updatedAt: at,
      });
      expect(await table.setSecret(id('con'), { ...fields, ...noneAhead }, at, seenOf(created))).toBe(
        'missing',
      );
    });

    it('keeps a pending secret beside the current one, and removes it when it is replaced at once', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      const at = '2026-11-22T00:00:00.000Z';
      const pending = {
        nextSecretVersion: 'v2',
        nextSecretCiphertext: 'c2',
        secretSwitchAt: '2026-11-23T00:00:00.000Z',
      };
      const kept = { secretArn: created.secretArn, secretVersion: created.secretVersion! };
      expect(await table.setSecret(created.connectionId, { ...kept, ...pending }, at, seenOf(created))).toBe(
        'updated',
      );
      const withPending = await table.get(created.connectionId, { consistent: true });
      expect(withPending).toEqual({ ...created, ...pending, updatedAt: at });
      // A rotation that read the connection before the pending secret was written loses.
      const v3 = { secretArn: created.secretArn, secretVersion: 'v3', ...noneAhead };
      expect(await table.setSecret(created.connectionId, v3, at, seenOf(created))).toBe('conflict');
      expect(await table.setSecret(created.connectionId, v3, at, seenOf(withPending!))).toBe('updated');
      expect(await table.get(created.connectionId, { consistent: true })).toEqual({
        ...created,
        secretVersion: 'v3',
        updatedAt: at,
      });
    });

    it('refuses a secret version swap when another rotation changed the version first', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      const at = '2026-11-22T00:00:00.000Z';
      const first = { secretArn: created.secretArn, secretVersion: 'v2', ...noneAhead };
      const second = { secretArn: created.secretArn, secretVersion: 'v3', ...noneAhead };
      expect(await table.setSecret(created.connectionId, first, at, seenOf(created))).toBe('updated');
      // The second rotation read the version before the first one's swap.
      expect(await table.setSecret(created.connectionId, second, at, seenOf(created))).toBe('conflict');
      expect((await table.get(created.connectionId, { consistent: true }))?.secretVersion).toBe('v2');
    });

    it('deletes a connection and gives back what it was; nothing for one that is not there', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      expect(await table.delete(created.connectionId)).toEqual(created);
      expect(await table.get(created.connectionId, { consistent: true })).toBeUndefined();
      expect(await table.delete(created.connectionId)).toBeUndefined();
    });

    it('writes health only on the version read: the first write, then each next version once', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      expect(await table.health.read(created.connectionId)).toBeUndefined();
      expect(await table.health.write(created.connectionId, failing(1), 0)).toBe('written');
      expect(await table.health.write(created.connectionId, failing(1, 9), 0)).toBe('conflict');
      expect(await table.health.read(created.connectionId)).toEqual(failing(1));
      expect(await table.health.write(created.connectionId, failing(2, 4), 1)).toBe('written');
      expect(await table.health.write(created.connectionId, failing(2, 9), 1)).toBe('conflict');
      expect(await table.health.write(created.connectionId, failing(9, 9), 5)).toBe('conflict');
      expect(await table.health.read(created.connectionId)).toEqual(failing(2, 4));
      // Health is part of the connection: a read of it shows the same.
      expect((await table.get(created.connectionId, { consistent: true }))?.health).toEqual(failing(2, 4));
    });

    it('lets one of many concurrent writers of the same version win', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => table.health.write(created.connectionId, failing(1, i + 1), 0)),
      );
      expect(outcomes.filter((o) => o === 'written')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'conflict')).toHaveLength(7);
    });

    it('disables the connection with its health, and says missing for a connection that is gone', async () => {
      const table = make();
      const created = fresh();
      await table.create(created);
      const disabled: ConnectionHealth = { ...failing(1, 5), state: 'disabled' };
      expect(await table.health.write(created.connectionId, disabled, 0)).toBe('written');
      const after = await table.get(created.connectionId, { consistent: true });
      expect(after).toMatchObject({ enabled: false, health: disabled });
      expect(after!.updatedAt > created.updatedAt).toBe(true);
      expect(await table.health.read(id('con'))).toBeUndefined();
      expect(await table.health.write(id('con'), failing(1), 0)).toBe('missing');
      expect(await table.get(id('con'))).toBeUndefined();
    });
  },
);
