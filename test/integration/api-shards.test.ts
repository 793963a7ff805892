/**
 * A sharded connection through the management library and the HTTP API the console reads
 * (docs/design.md §5 "Shards"): raising its shards, then the attempt log page by page, one
 * delivery's attempts and the chart, each whole across the unsharded partition written before
 * the raise and the shards after it, on the emulators.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambdas/adapters/dynamodb/client';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { ENV } from '../../lambdas/config';
import { RAISE_DELAY_MS } from '../../lambdas/core/attempt-shards';
import { ValidationError } from '../../lambdas/core/errors';
import { deliveryShard } from '../../lambdas/core/ids';
import type { AttemptRecord } from '../../lambdas/core/types';
import { attemptAt, id } from '../support/fixtures';
import { type ApiHarness, appPath, startApiHarness } from './helpers/api';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(() => h.close());

const MINUTE = 60_000;
const keyOf = (r: Pick<AttemptRecord, 'deliveryId' | 'attempt'>) => `${r.deliveryId}/${r.attempt}`;

describe('a connection with raised attempt shards', () => {
  it('raises only upwards, a minute ahead, keeping the steps before', async () => {
    const app = id('app');
    const { connectionId } = await h.createVia(app, await h.tokenFor(app));
    const before = Date.now();
    const raised = await h.management.connections.raiseAttemptShards(connectionId, 4);
    expect(raised.attemptShards!.map((s) => s.count)).toEqual([1, 4]);
    expect(Date.parse(raised.attemptShards![1]!.from)).toBeGreaterThanOrEqual(before + RAISE_DELAY_MS);
    expect((await h.management.connections.get(connectionId)).attemptShards).toEqual(raised.attemptShards);
    await expect(h.management.connections.raiseAttemptShards(connectionId, 4)).rejects.toBeInstanceOf(
      ValidationError,
    );
    const again = await h.management.connections.raiseAttemptShards(connectionId, 16);
    expect(again.attemptShards!.map((s) => s.count)).toEqual([1, 4, 16]);
  });

  it('shows every attempt in the attempt log, a delivery and the chart, across the raise', async () => {
    const app = id('app');
    const token = await h.tokenFor(app);
    const { connectionId } = await h.createVia(app, token);
    const now = Date.now();
    // As if raised to 4 shards half an hour ago: deliveries before stay unsharded.
    const connections = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! });
    const current = (await connections.get(connectionId, { consistent: true }))!;
    await connections.update(
      connectionId,
      {
        attemptShards: [
          { count: 1, from: '1970-01-01T00:00:00.000Z' },
          { count: 4, from: new Date(now - 30 * MINUTE).toISOString() },
        ],
        updatedAt: new Date(now).toISOString(),
      },
      current.updatedAt,
    );
    const records: AttemptRecord[] = [];
    for (let i = 0; i < 16; i++) {
      const at = now - 50 * MINUTE + i * 3 * MINUTE;
      const failed = { outcome: 'http_error' as const, statusCode: 503, final: false };
      // After the raise, each delivery id is drawn until it falls in shard i mod 4, so every
      // shard holds some (random ids left all nine in two partitions once in a few hundred runs).
      let first = attemptAt(connectionId, app, at, failed);
      while (at >= now - 30 * MINUTE && deliveryShard(first.deliveryId, 4) !== i % 4)
        first = attemptAt(connectionId, app, at, failed);
      const retry = {
        ...first,
        attempt: 2,
        requestedAt: new Date(at + 1_000).toISOString(),
        outcome: 'delivered' as const,
        statusCode: 200,
        final: true,
      };
      records.push(first, retry);
    }
    for (const r of records) expect(await h.attemptLog.append(r)).toBe('written');

    // Stored over the unsharded partition and the shards: more than one of them holds attempts.
    const client = documentClient();
    const counts = await Promise.all(
      [connectionId, `${connectionId}#1`, `${connectionId}#2`, `${connectionId}#3`].map(async (p) => {
        const out = await client.send(
          new QueryCommand({
            TableName: process.env[ENV.attemptsTable]!,
            KeyConditionExpression: 'connectionId = :p',
            ExpressionAttributeValues: { ':p': p },
          }),
        );
        return out.Items?.length ?? 0;
      }),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(32);
    expect(counts.every((n) => n > 0)).toBe(true);

    // The attempt log, 5 a page: newest delivery first, each attempt once, connection ids bare.
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await h.call(
        'GET',
        appPath(app, `/connections/${connectionId}/attempts?limit=5${cursor ? `&cursor=${cursor}` : ''}`),
        { token },
      );
      expect(res.status).toBe(200);
      for (const a of res.body.data) {
        expect(a.connectionId).toBe(connectionId);
        seen.push(keyOf(a));
      }
      cursor = res.body.nextCursor;
    } while (cursor && ++pages < 20);
    const newestFirst = [...records].sort((a, b) =>
      a.deliveryId === b.deliveryId ? b.attempt - a.attempt : a.deliveryId < b.deliveryId ? 1 : -1,
    );
    expect(seen).toEqual(newestFirst.map(keyOf));

    // One delivery before the raise, one after: each with both its attempts.
    for (const r of [records[0]!, records.at(-1)!]) {
      const delivery = await h.call('GET', appPath(app, `/deliveries/${r.deliveryId}`), { token });
      expect(delivery.status).toBe(200);
      expect(delivery.body.attempts.map((a: AttemptRecord) => a.attempt)).toEqual([1, 2]);
    }

    // The chart reads every shard.
    const stats = await h.call('GET', appPath(app, `/connections/${connectionId}/stats?bucket=1h`), {
      token,
    });
    expect(stats.body.totals).toMatchObject({
      total: 32,
      outcomes: expect.objectContaining({ delivered: 16, http_error: 16 }),
    });
  });

  it('resends a delivery logged before a raise that would place it elsewhere now (no false 409)', async () => {
    const app = id('app');
    const token = await h.tokenFor(app);
    const { connectionId } = await h.createVia(app, token);
    // An event dated five minutes ahead, logged while the connection had one partition: after a
    // raise to 4, its id time falls after the raise, whose count would place it in another shard.
    let record: AttemptRecord;
    do {
      record = attemptAt(connectionId, app, Date.now() + 5 * MINUTE, { body: '{"event":"user.identified"}' });
    } while (deliveryShard(record.deliveryId, 4) === 0);
    expect(await h.attemptLog.append(record)).toBe('written');
    await h.management.connections.raiseAttemptShards(connectionId, 4);

    const first = await h.call('POST', appPath(app, `/deliveries/${record.deliveryId}/resend`), { token });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ deliveryId: record.deliveryId, attempt: 2 });
    // The mark landed on the record where it was logged: a second Resend is the true 409.
    const [logged] = await h.management.attempts.ofDelivery(record.deliveryId);
    expect(logged).toMatchObject({ attempt: 1, resentAs: 2 });
    const second = await h.call('POST', appPath(app, `/deliveries/${record.deliveryId}/resend`), { token });
    expect(second.status).toBe(409);
  });
});
