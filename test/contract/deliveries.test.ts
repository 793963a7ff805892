/**
 * An application's deliveries (core/stores.ts AttemptTable.deliveries), run against
 * test/support/memory/attempts.ts and lambdas/adapters/dynamodb/attempts.ts on dynalite: the
 * merged list across connections (one of them sharded), and the delivery search by user and event.
 */

import { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import { ENV } from '../../lambdas/config';
import { attemptShardSteps } from '../../lambdas/core/attempt-shards';
import { InvalidCursorError } from '../../lambdas/core/errors';
import type { AttemptTable, DeliveryPageQuery } from '../../lambdas/core/stores';
import type { AttemptRecord, AttemptShardStep } from '../../lambdas/core/types';
import { attemptAt, id } from '../support/fixtures';
import { MemoryAttempts } from '../support/memory';
import { contract, lightClient } from './contract';

const MINUTE = 60_000;
/** The connection whose attempts are spread over four partitions (the seed's second). */
const sharded: { id?: string } = {};
const unsharded: AttemptShardStep[] = attemptShardSteps({
  attemptShards: [{ count: 1, from: new Date(0).toISOString() }],
});
const fourShards: AttemptShardStep[] = attemptShardSteps({
  attemptShards: [
    { count: 1, from: new Date(0).toISOString() },
    { count: 4, from: new Date(1).toISOString() },
  ],
});

/** Every page of a listing, `limit` at a time: the delivery ids in order. */
async function allIds(log: AttemptTable, query: Omit<DeliveryPageQuery, 'cursor'>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await log.deliveries({ ...query, cursor });
    expect(page.items.length).toBeLessThanOrEqual(query.limit);
    ids.push(...page.items.map((d) => d.deliveryId));
    cursor = page.nextCursor;
  } while (cursor && ++pages < 30);
  return ids;
}

/**
 * Two connections of one application (the second sharded in four), deliveries a minute apart
 * alternating between them, users `usr_a` and `usr_b` in turn; every other one retried once.
 * Another application has a delivery for `usr_a` too.
 */
async function seeded(log: AttemptTable) {
  const app = id('app');
  const [a, b] = [id('con'), id('con')];
  sharded.id = b;
  const t0 = Date.now() - 30 * MINUTE;
  const firsts: AttemptRecord[] = [];
  for (let i = 0; i < 6; i++) {
    const first = attemptAt(i % 2 ? b : a, app, t0 + i * MINUTE, { userId: i % 2 ? 'usr_b' : 'usr_a' });
    firsts.push(first);
    if (i % 2 === 0) {
      expect(await log.append({ ...first, outcome: 'http_error', statusCode: 503, final: false })).toBe(
        'written',
      );
      const retry = { ...first, attempt: 2, requestedAt: new Date(t0 + i * MINUTE + 1_000).toISOString() };
      expect(await log.append(retry)).toBe('written');
    } else expect(await log.append(first)).toBe('written');
  }
  const other = attemptAt(id('con'), id('app'), t0, { userId: 'usr_a' });
  expect(await log.append(other)).toBe('written');
  const newestFirst = [...firsts].reverse();
  return { app, a, b, firsts, newestFirst, t0 };
}

const shardsOf = (b: { id?: string }) => async (connectionId: string) =>
  connectionId === b.id ? fourShards : unsharded;

describe.each([true, false])('delivery search %s', (lookups) => {
  contract<AttemptTable>(
    'AttemptTable.deliveries',
    {
      memory: () => new MemoryAttempts(undefined, lookups),
      emulators: () =>
        new DynamoAttempts({
          tableName: process.env[ENV.attemptsTable]!,
          shards: shardsOf(sharded),
          lookups,
        }),
      light: () =>
        new DynamoAttempts({
          tableName: process.env[ENV.attemptsTable]!,
          shards: shardsOf(sharded),
          lookups,
          client: lightClient(),
        }),
    },
    (make) => {
      it('lists an application’s deliveries across its connections, newest first, once each, page by page', async () => {
        const log = make();
        const { app, a, b, newestFirst } = await seeded(log);
        const query = { applicationId: app, connectionIds: [a, b], limit: 2 };
        expect(await allIds(log, query)).toEqual(newestFirst.map((r) => r.deliveryId));
        const [first] = (await log.deliveries({ ...query, limit: 1 })).items;
        const { deliveryId, connectionId, eventId, userId, requestedAt } = newestFirst[0]!;
        expect(first).toEqual({ deliveryId, connectionId, eventId, userId, requestedAt });
        // One connection, and a time window on the first attempt.
        expect(await allIds(log, { ...query, connectionIds: [a] })).toEqual(
          newestFirst.filter((r) => r.connectionId === a).map((r) => r.deliveryId),
        );
        const since = new Date(Date.parse(newestFirst[3]!.requestedAt));
        const until = new Date(Date.parse(newestFirst[0]!.requestedAt));
        expect(await allIds(log, { ...query, since, until })).toEqual(
          newestFirst.slice(1, 4).map((r) => r.deliveryId),
        );
      });

      it(`finds a user’s and an event’s deliveries by their ids ${lookups ? 'when search is on' : 'only when search is on: off, none'}`, async () => {
        const log = make();
        const { app, a, newestFirst } = await seeded(log);
        const ofUser = newestFirst.filter((r) => r.userId === 'usr_a').map((r) => r.deliveryId);
        const byUser = { applicationId: app, connectionIds: [], userId: 'usr_a', limit: 2 };
        expect(await allIds(log, byUser)).toEqual(lookups ? ofUser : []);
        const target = newestFirst[2]!;
        const byEvent = { applicationId: app, connectionIds: [], eventId: target.eventId, limit: 5 };
        expect(await allIds(log, byEvent)).toEqual(lookups ? [target.deliveryId] : []);
        expect(await allIds(log, { ...byUser, connectionId: id('con') })).toEqual([]);
        expect(await allIds(log, { ...byUser, connectionId: a })).toEqual(lookups ? ofUser : []);
        // Another application's user of the same id is not this one's.
        expect(await allIds(log, { ...byUser, applicationId: id('app') })).toEqual([]);
      });

      it('refuses a cursor of another listing', async () => {
        const log = make();
        const { app, a, b } = await seeded(log);
        const page = await log.deliveries({ applicationId: app, connectionIds: [a, b], limit: 1 });
        expect(page.nextCursor).toBeDefined();
        await expect(
          log.deliveries({ applicationId: id('app'), connectionIds: [a], limit: 1, cursor: page.nextCursor }),
        ).rejects.toThrow(InvalidCursorError);
        await expect(
          log.deliveries({
            applicationId: app,
            connectionIds: [],
            userId: 'usr_a',
            limit: 1,
            cursor: page.nextCursor,
          }),
        ).rejects.toThrow(InvalidCursorError);
      });
    },
  );
});
