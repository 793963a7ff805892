/**
 * The attempt log's contract (core/stores.ts AttemptTable), run against
 * test/support/memory/attempts.ts and lambdas/adapters/dynamodb/attempts.ts on dynalite.
 */

import { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import { ENV } from '../../lambdas/config';
import { InvalidCursorError } from '../../lambdas/core/errors';
import type { AttemptPageQuery, AttemptTable } from '../../lambdas/core/stores';
import type { AttemptRecord } from '../../lambdas/core/types';
import { attemptAt, id } from '../support/fixtures';
import { MemoryAttempts } from '../support/memory';
import { contract } from './contract';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
/** Attempt `n` of the delivery of `first`, `afterMs` after it, with `fields`. */
const retryOf = (first: AttemptRecord, n: number, afterMs: number, fields: Partial<AttemptRecord> = {}) => ({
  ...first,
  attempt: n,
  requestedAt: iso(Date.parse(first.requestedAt) + afterMs),
  ...fields,
});
const keyOf = (r: AttemptRecord) => `${r.deliveryId}/${r.attempt}`;

/** Every page of a query, `limit` at a time: the records' keys and how many pages it took. */
async function allPages(log: AttemptTable, query: Omit<AttemptPageQuery, 'cursor'>) {
  const keys: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await log.page({ ...query, cursor });
    expect(page.items.length).toBeLessThanOrEqual(query.limit);
    keys.push(...page.items.map(keyOf));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  return { keys, pages };
}

/** When a record's delivery was created (its retries come a second apart). */
const t = (r: AttemptRecord) => Date.parse(r.requestedAt) - (r.attempt - 1) * 1_000;

/** A connection's log: 5 deliveries a minute apart from `t0`; the 2nd and 4th failed before delivering. */
async function seeded(log: AttemptTable, t0 = Date.now() - HOUR) {
  const app = id('app');
  const connectionId = id('con');
  const records: AttemptRecord[] = [];
  for (let i = 0; i < 5; i++) {
    const first = attemptAt(connectionId, app, t0 + i * MINUTE);
    if (i % 2 === 1) {
      records.push({ ...first, outcome: 'http_error', statusCode: 503, final: false });
      records.push(retryOf(first, 2, 1_000));
    } else records.push(first);
  }
  for (const r of records) expect(await log.append(r)).toBe('written');
  // Newest first: by delivery (created a minute apart), then attempt number.
  const newestFirst = [...records].sort((a, b) => t(b) - t(a) || b.attempt - a.attempt);
  return { app, connectionId, records, newestFirst };
}

contract<AttemptTable>(
  'AttemptTable',
  {
    memory: () => new MemoryAttempts(),
    emulators: () => new DynamoAttempts({ tableName: process.env[ENV.attemptsTable]! }),
  },
  (make) => {
    it('writes a record once: the same again is a duplicate, another for its key a conflict that changes nothing', async () => {
      const log = make();
      const record = attemptAt(id('con'), id('app'), Date.now());
      expect(await log.append(record)).toBe('written');
      expect(await log.append({ ...record })).toBe('duplicate');
      // A field left undefined is a field not there, as the stored record has it.
      expect(await log.append({ ...record, error: undefined })).toBe('duplicate');
      expect(await log.append({ ...record, outcome: 'http_error', statusCode: 500 })).toBe('conflict');
      expect(await log.append({ ...record, test: true })).toBe('conflict');
      expect(await log.ofDelivery(record.deliveryId)).toEqual([record]);
    });

    it("gives every attempt of one delivery, oldest first, and no other delivery's", async () => {
      const log = make();
      const first = attemptAt(id('con'), id('app'), Date.now() - MINUTE, {
        outcome: 'timeout',
        final: false,
      });
      const other = attemptAt(first.connectionId, first.applicationId, Date.now() - MINUTE);
      const attempts = [retryOf(first, 3, 3_000), first, other, retryOf(first, 2, 1_000, { final: false })];
      for (const r of attempts) await log.append(r);
      expect((await log.ofDelivery(first.deliveryId)).map(keyOf)).toEqual(
        [1, 2, 3].map((n) => `${first.deliveryId}/${n}`),
      );
      expect(
        await log.ofDelivery(attemptAt(first.connectionId, first.applicationId, Date.now()).deliveryId),
      ).toEqual([]);
    });

    it("gives a connection's recent attempts newest first, filtered by time and failure, up to the limit", async () => {
      const log = make();
      const { connectionId, records, newestFirst } = await seeded(log);
      expect((await log.recent({ connectionId, limit: 50 })).map(keyOf)).toEqual(newestFirst.map(keyOf));
      expect((await log.recent({ connectionId, limit: 3 })).map(keyOf)).toEqual(
        newestFirst.slice(0, 3).map(keyOf),
      );
      const failed = newestFirst.filter((r) => r.outcome !== 'delivered').map(keyOf);
      expect((await log.recent({ connectionId, failed: true, limit: 50 })).map(keyOf)).toEqual(failed);
      const since = new Date(Date.parse(records[3]!.requestedAt));
      const recent = newestFirst.filter((r) => r.requestedAt >= since.toISOString()).map(keyOf);
      expect((await log.recent({ connectionId, since, limit: 50 })).map(keyOf)).toEqual(recent);
      expect(await log.recent({ connectionId: id('con'), limit: 50 })).toEqual([]);
    });

    it('gives final failures of every connection by UTC day, newest first, test sends included', async () => {
      const log = make();
      // A day no other test writes to: final failures are read across connections.
      const now = new Date('2031-03-15T12:00:00.000Z');
      const day = Date.parse('2031-03-15T00:00:00.000Z');
      const app = id('app');
      const [a, b] = [id('con'), id('con')];
      const failure = (connectionId: string, at: number, fields: Partial<AttemptRecord> = {}) =>
        attemptAt(connectionId, app, at, { outcome: 'http_error', statusCode: 500, final: true, ...fields });
      const early = failure(a, day + 10 * HOUR);
      const late = failure(b, day + 11 * HOUR, { outcome: 'timeout', statusCode: undefined });
      const test = failure(a, day + 9 * HOUR, { test: true });
      const yesterday = failure(b, day - HOUR);
      const notFinal = failure(a, day + 8 * HOUR, { final: false });
      const delivered = attemptAt(a, app, day + 7 * HOUR);
      for (const r of [early, delivered, yesterday, late, notFinal, test]) await log.append(r);
      const keys = (records: AttemptRecord[]) => records.map(keyOf);
      expect(keys(await log.finalFailures({ days: 1, limit: 50, now }))).toEqual(keys([late, early, test]));
      expect(keys(await log.finalFailures({ days: 2, limit: 50, now }))).toEqual(
        keys([late, early, test, yesterday]),
      );
      expect(keys(await log.finalFailures({ days: 2, limit: 2, now }))).toEqual(keys([late, early]));
    });

    it("pages a connection's attempts newest first, each once, with cursors that only this listing takes", async () => {
      const log = make();
      const { connectionId, newestFirst } = await seeded(log);
      const { keys, pages } = await allPages(log, { connectionId, limit: 3 });
      expect(keys).toEqual(newestFirst.map(keyOf));
      expect(pages).toBeGreaterThanOrEqual(3);
      expect(pages).toBeLessThanOrEqual(4);

      const { nextCursor } = await log.page({ connectionId, limit: 1 });
      await expect(log.page({ connectionId: id('con'), limit: 1, cursor: nextCursor })).rejects.toThrow(
        new InvalidCursorError('belongs to another listing'),
      );
      for (const cursor of ['garbage', nextCursor!.slice(0, -4)]) {
        await expect(log.page({ connectionId, limit: 1, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
      }
    });

    it('filters pages by outcome, final, since and until, and pages a sparse filter through to its match', async () => {
      const log = make();
      const { connectionId, records, newestFirst } = await seeded(log);
      const expectKeys = async (query: Partial<AttemptPageQuery>, want: (r: AttemptRecord) => boolean) => {
        const { keys } = await allPages(log, { connectionId, limit: 1, ...query });
        expect({ query, keys }).toEqual({ query, keys: newestFirst.filter(want).map(keyOf) });
      };
      await expectKeys({ outcome: 'http_error' }, (r) => r.outcome === 'http_error');
      await expectKeys({ final: false }, (r) => !r.final);
      await expectKeys({ final: true, outcome: 'delivered' }, (r) => r.final);
      const since = new Date(records[2]!.requestedAt);
      const until = new Date(records[5]!.requestedAt);
      await expectKeys(
        { since, until },
        (r) => r.requestedAt >= since.toISOString() && r.requestedAt < until.toISOString(),
      );
    });

    it('reads a chart window: its attempts oldest first, from deliveries created up to an hour before it', async () => {
      const log = make();
      const app = id('app');
      const connectionId = id('con');
      const since = Date.now() - 2 * HOUR;
      const until = since + HOUR;
      const inside = [1, 2, 3].map((m) => attemptAt(connectionId, app, since + m * MINUTE));
      const beforeWindow = attemptAt(connectionId, app, since - 30 * MINUTE);
      const atUntil = attemptAt(connectionId, app, until);
      // A delivery created two hours before the window, retried inside it (a redrive): not read.
      const redriven = retryOf(attemptAt(connectionId, app, since - 2 * HOUR), 2, 2 * HOUR + 5 * MINUTE);
      for (const r of [atUntil, inside[1]!, redriven, beforeWindow, inside[2]!, inside[0]!])
        await log.append(r);
      const read = await log.inRange({ connectionId, since: new Date(since), until: new Date(until) });
      expect(read.items.map(keyOf)).toEqual(inside.map(keyOf));
      expect(read.scanned).toBe(5);
      expect(read.truncated).toBe(false);
      expect(read.readUnits).toBeGreaterThanOrEqual(0);
    });
  },
);
