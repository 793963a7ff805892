/**
 * The attempt log's contract (core/stores.ts AttemptTable), run against
 * test/support/memory/attempts.ts and lambdas/adapters/dynamodb/attempts.ts on dynalite.
 */

import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import { documentClient } from '../../lambdas/adapters/dynamodb/client';
import { ENV } from '../../lambdas/config';
import { attemptShardSteps } from '../../lambdas/core/attempt-shards';
import { InvalidCursorError } from '../../lambdas/core/errors';
import { newSendId } from '../../lambdas/core/ids';
import type { AttemptPageQuery, AttemptTable } from '../../lambdas/core/stores';
import type { AttemptRecord, AttemptShardStep } from '../../lambdas/core/types';
import { attemptAt, id } from '../support/fixtures';
import { MemoryAttempts } from '../support/memory';
import { contract, lightClient } from './contract';

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

/**
 * A connection's history: five deliveries a minute apart, every other one failing once and
 * retried a second later; one created first but held back (as by a rate limit) and attempted last;
 * and three attempted in the same millisecond, so a page can end inside a tie.
 */
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
  const held = attemptAt(connectionId, app, t0 - MINUTE);
  records.push({ ...held, requestedAt: iso(t0 + 4.5 * MINUTE) });
  for (let i = 0; i < 3; i++)
    records.push({ ...attemptAt(connectionId, app, t0 + i), requestedAt: iso(t0 + 2.5 * MINUTE) });
  for (const r of records) expect(await log.append(r)).toBe('written');
  // Newest first: by attempt time, a tie by delivery id and attempt number.
  const position = (r: AttemptRecord) =>
    `${r.requestedAt}|${r.deliveryId}#${String(r.attempt).padStart(4, '0')}`;
  const newestFirst = [...records].sort((a, b) => (position(a) < position(b) ? 1 : -1));
  return { app, connectionId, records, newestFirst };
}

/** Shard steps from `ago` before now (the module's start), oldest first after the unsharded one. */
const LOADED = Date.now();
/** Runs of the final-failures test so far: each reads a week no other run writes to. */
let failureWeeks = 0;
const steps = (...raises: [count: number, agoMs: number][]): AttemptShardStep[] =>
  attemptShardSteps({
    attemptShards: [
      { count: 1, from: iso(0) },
      ...raises.map(([count, ago]) => ({ count, from: iso(LOADED - ago) })),
    ],
  });

/**
 * Every connection's layout, as the suite runs it on the emulators: unsharded (as before
 * sharding); four shards; and raised from 1 to 4 to 16 shards in the middle of the seeded
 * histories (deliveries created an hour ago and before under 1 and 4, later ones under 16),
 * so one listing spans every step. The memory log has no partitions: the same answers are
 * expected of it whatever the layout.
 */
const LAYOUTS: Record<string, AttemptShardStep[]> = {
  unsharded: steps(),
  'four shards': steps([4, 10 * 365 * 24 * HOUR]),
  'raised 1 → 4 → 16 within the history': steps([4, 60.5 * MINUTE], [16, 58.5 * MINUTE]),
};

describe.each(Object.entries(LAYOUTS))('%s', (_name, layout) =>
  contract<AttemptTable>(
    'AttemptTable',
    {
      memory: () => new MemoryAttempts(),
      emulators: () =>
        new DynamoAttempts({ tableName: process.env[ENV.attemptsTable]!, shards: async () => layout }),
      light: () =>
        new DynamoAttempts({
          tableName: process.env[ENV.attemptsTable]!,
          shards: async () => layout,
          client: lightClient(),
        }),
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

      it('keeps two sends of the same attempt as two records (a queue message delivered twice), each written once', async () => {
        const log = make();
        const first = attemptAt(id('con'), id('app'), Date.now(), { sendId: newSendId() });
        const again = { ...first, sendId: newSendId(), requestedAt: first.requestedAt, durationMs: 7 };
        expect(await log.append(first)).toBe('written');
        expect(await log.append(again)).toBe('written');
        // Each written again (its write redelivered from the retry queue) is a duplicate.
        expect(await log.append({ ...first })).toBe('duplicate');
        expect(await log.append({ ...again })).toBe('duplicate');
        // The same send changed is refused, wherever its record is kept.
        expect(await log.append({ ...first, outcome: 'timeout' })).toBe('conflict');
        expect(await log.append({ ...again, outcome: 'timeout' })).toBe('conflict');
        const next = retryOf(first, 2, 1_000, { sendId: newSendId() });
        expect(await log.append(next)).toBe('written');
        const read = await log.ofDelivery(first.deliveryId);
        expect(read.map((r) => [r.attempt, r.sendId])).toEqual([
          [1, first.sendId],
          [1, again.sendId],
          [2, next.sendId],
        ]);
        expect((await log.recent({ connectionId: first.connectionId, limit: 10 })).length).toBe(3);
        // Resend's mark goes on the attempt's first record; the attempt is marked once.
        expect(await log.markResent(first.deliveryId, 1)).toBe(true);
        expect(await log.markResent(first.deliveryId, 1)).toBe(false);
      });

      it('keeps the request as it went out: headers in order and the exact body, read back as written', async () => {
        const log = make();
        const body = '{"event":"user.identified","user":{"id":"usr_1","name":"Zoë 𝄞"}}';
        const requestHeaders = [
          { name: 'Content-Type', value: 'application/json' },
          { name: 'X-Service-Signature', value: `sha256=${'0'.repeat(64)}` },
          { name: 'Authorization', value: '[hidden]' },
        ];
        const record = { ...attemptAt(id('con'), id('app'), Date.now()), requestHeaders, body };
        expect(await log.append(record)).toBe('written');
        expect(await log.append({ ...record })).toBe('duplicate');
        expect(await log.append({ ...record, body: `${body} ` })).toBe('conflict');
        const [read] = await log.ofDelivery(record.deliveryId);
        expect(read).toEqual(record);
      });

      it('marks an attempt resent once: of two Resends that read the same attempt, one wins', async () => {
        const log = make();
        const first = attemptAt(id('con'), id('app'), Date.now());
        const second = retryOf(first, 2, 1_000);
        expect(await log.append(first)).toBe('written');
        expect(await log.append(second)).toBe('written');
        const marks = await Promise.all([
          log.markResent(first.deliveryId, 2),
          log.markResent(first.deliveryId, 2),
        ]);
        expect(marks.sort()).toEqual([false, true]);
        expect(await log.markResent(first.deliveryId, 7)).toBe(false); // no such attempt
        const read = await log.ofDelivery(first.deliveryId);
        expect(read.map((r) => r.resentAs)).toEqual([undefined, 3]);
        // A Resend that could not be queued takes its mark back; the next one may mark again.
        await log.unmarkResent(first.deliveryId, 2);
        await log.unmarkResent(first.deliveryId, 1); // not marked: nothing happens
        expect((await log.ofDelivery(first.deliveryId)).map((r) => r.resentAs)).toEqual([
          undefined,
          undefined,
        ]);
        expect(await log.markResent(first.deliveryId, 2)).toBe(true);
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
        // A week of its own for each run of the suite (each layout shares the emulators' table).
        const day = Date.parse('2031-03-15T00:00:00.000Z') + 7 * 24 * HOUR * failureWeeks++;
        const now = new Date(day + 12 * HOUR);
        const app = id('app');
        const [a, b] = [id('con'), id('con')];
        const failure = (connectionId: string, at: number, fields: Partial<AttemptRecord> = {}) =>
          attemptAt(connectionId, app, at, {
            outcome: 'http_error',
            statusCode: 500,
            final: true,
            ...fields,
          });
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
        for (const limit of [1, 2, 3]) {
          const { keys, pages } = await allPages(log, { connectionId, limit });
          expect({ limit, keys }).toEqual({ limit, keys: newestFirst.map(keyOf) });
          expect(pages).toBeGreaterThanOrEqual(Math.ceil(newestFirst.length / limit));
        }

        const { nextCursor } = await log.page({ connectionId, limit: 1 });
        await expect(log.page({ connectionId: id('con'), limit: 1, cursor: nextCursor })).rejects.toThrow(
          new InvalidCursorError('belongs to another listing'),
        );
        for (const cursor of ['garbage', nextCursor!.slice(0, -4)]) {
          await expect(log.page({ connectionId, limit: 1, cursor })).rejects.toBeInstanceOf(
            InvalidCursorError,
          );
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
        const until = new Date(records[6]!.requestedAt);
        await expectKeys(
          { since, until },
          (r) => r.requestedAt >= since.toISOString() && r.requestedAt < until.toISOString(),
        );
      });

      it('reads a chart window: its attempts oldest first, whenever their deliveries were created', async () => {
        const log = make();
        const app = id('app');
        const connectionId = id('con');
        const since = Date.now() - 2 * HOUR;
        const until = since + HOUR;
        const inside = [1, 2, 3].map((m) => attemptAt(connectionId, app, since + m * MINUTE));
        const beforeWindow = attemptAt(connectionId, app, since - 30 * MINUTE);
        const atUntil = attemptAt(connectionId, app, until);
        // A delivery created two hours before the window, retried inside it (a redrive): read.
        const redriven = retryOf(attemptAt(connectionId, app, since - 2 * HOUR), 2, 2 * HOUR + 5 * MINUTE);
        for (const r of [atUntil, inside[1]!, redriven, beforeWindow, inside[2]!, inside[0]!])
          await log.append(r);
        const read = await log.inRange({ connectionId, since: new Date(since), until: new Date(until) });
        expect(read.items.map(keyOf)).toEqual([...inside, redriven].map(keyOf));
        expect(read.scanned).toBe(4);
        expect(read.truncated).toBe(false);
        expect(read.readUnits).toBeGreaterThanOrEqual(0);
      });
    },
  ),
);

describe('DynamoAttempts shards on the emulators (dynalite)', () => {
  const tableName = () => process.env[ENV.attemptsTable]!;
  const client = () => documentClient();
  /** Every item of one partition of the table, or of one partition of the final-failures index. */
  const partition = async (key: string, index?: string) =>
    (
      await client().send(
        new QueryCommand({
          TableName: tableName(),
          ...(index ? { IndexName: index } : {}),
          KeyConditionExpression: '#p = :p',
          ExpressionAttributeNames: { '#p': index ? 'failedOn' : 'connectionId' },
          ExpressionAttributeValues: { ':p': key },
        }),
      )
    ).Items ?? [];

  it("spreads a four-shard connection's attempts over its four partitions, each delivery's in one", async () => {
    const log = new DynamoAttempts({ tableName: tableName(), shards: async () => LAYOUTS['four shards']! });
    const connectionId = id('con');
    const app = id('app');
    const firsts = Array.from({ length: 40 }, (_, i) =>
      attemptAt(connectionId, app, Date.now() - HOUR + i * 1_000, { outcome: 'timeout', final: false }),
    );
    for (const first of firsts) {
      await log.append(first);
      await log.append(retryOf(first, 2, 1_000));
    }
    const parts = await Promise.all(
      [connectionId, `${connectionId}#1`, `${connectionId}#2`, `${connectionId}#3`].map((p) => partition(p)),
    );
    expect(parts.map((items) => items.length).every((n) => n > 0)).toBe(true);
    expect(parts.flat()).toHaveLength(80);
    for (const items of parts) {
      for (const item of items) {
        const sibling = items.filter((other) => other.deliveryId === item.deliveryId);
        expect(sibling).toHaveLength(2);
      }
    }
    // Read back as one log: each record once, connection id without its shard.
    const recent = await log.recent({ connectionId, limit: 100 });
    expect(recent).toHaveLength(80);
    expect(recent.every((r) => r.connectionId === connectionId)).toBe(true);
  });

  it("spreads one day's final failures over the index's shards, the unsharded day partition first", async () => {
    const log = new DynamoAttempts({ tableName: tableName(), shards: async () => LAYOUTS.unsharded! });
    const day = Date.parse('2032-06-01T00:00:00.000Z') + 7 * 24 * HOUR * failureWeeks++;
    const dayKey = iso(day).slice(0, 10);
    const failures = Array.from({ length: 48 }, (_, i) =>
      attemptAt(id('con'), id('app'), day + i * MINUTE, {
        outcome: 'http_error',
        statusCode: 500,
        final: true,
      }),
    );
    for (const r of failures) await log.append(r);
    const shards = await Promise.all(
      Array.from({ length: 8 }, (_, s) => partition(s === 0 ? dayKey : `${dayKey}#${s}`, 'finalFailures')),
    );
    expect(shards.filter((items) => items.length > 0).length).toBeGreaterThanOrEqual(6);
    expect(shards.flat()).toHaveLength(48);
    const read = await log.finalFailures({ days: 1, limit: 50, now: new Date(day + 23 * HOUR) });
    expect(read.map(keyOf)).toEqual([...failures].reverse().map(keyOf));
  });

  it('keeps an item written before sharding (unsharded keys) readable by every query', async () => {
    const connectionId = id('con');
    const day = Date.parse('2033-01-01T00:00:00.000Z') + 7 * 24 * HOUR * failureWeeks++;
    const record = attemptAt(connectionId, id('app'), day + HOUR, { outcome: 'timeout', final: true });
    // As the code before sharding wrote it: the bare connection id, the bare day.
    await client().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...record,
          sk: `${record.deliveryId}#0001`,
          failedOn: record.requestedAt.slice(0, 10),
          failedKey: `${record.requestedAt}#${record.deliveryId}`,
        },
      }),
    );
    const log = new DynamoAttempts({ tableName: tableName(), shards: async () => LAYOUTS.unsharded! });
    expect(await log.ofDelivery(record.deliveryId)).toEqual([record]);
    expect(await log.recent({ connectionId, limit: 5 })).toEqual([record]);
    expect((await log.page({ connectionId, limit: 5 })).items).toEqual([record]);
    expect(await log.finalFailures({ days: 1, limit: 5, now: new Date(day + 2 * HOUR) })).toEqual([record]);
  });

  it('finds what a dispatcher that missed a raise wrote, and keeps a delivery in its partition across the raise', async () => {
    const connectionId = id('con');
    const app = id('app');
    const raiseAt = Date.now() - 10 * MINUTE;
    const before: AttemptShardStep[] = steps();
    const after = [...before, { count: 8, from: iso(raiseAt) }];
    const stale = new DynamoAttempts({ tableName: tableName(), shards: async () => before });
    const log = new DynamoAttempts({ tableName: tableName(), shards: async () => after });
    // Created before the raise, retried after it: its retry stays with its first attempt.
    const old = attemptAt(connectionId, app, raiseAt - MINUTE, { outcome: 'timeout', final: false });
    await stale.append(old);
    await log.append(retryOf(old, 2, 2 * MINUTE));
    expect((await partition(connectionId)).map((item) => item.attempt)).toEqual([1, 2]);
    // Created after the raise but written by a dispatcher still holding the old layout.
    const missed = Array.from({ length: 8 }, (_, i) =>
      attemptAt(connectionId, app, raiseAt + (i + 1) * 1_000),
    );
    for (const r of missed) await stale.append(r);
    const placed = Array.from({ length: 8 }, (_, i) =>
      attemptAt(connectionId, app, raiseAt + (i + 20) * 1_000),
    );
    for (const r of placed) await log.append(r);
    for (const r of [...missed, ...placed]) expect(await log.ofDelivery(r.deliveryId)).toEqual([r]);
    expect((await log.ofDelivery(old.deliveryId)).map((r) => r.attempt)).toEqual([1, 2]);
    // By attempt time: the old delivery's retry (a minute after the raise) is the newest.
    expect((await log.recent({ connectionId, limit: 50 })).map(keyOf)).toEqual(
      [retryOf(old, 2, 2 * MINUTE), ...[...placed].reverse(), ...[...missed].reverse(), old].map(keyOf),
    );
    expect((await allPages(log, { connectionId, limit: 3 })).keys).toHaveLength(18);
  });
});
