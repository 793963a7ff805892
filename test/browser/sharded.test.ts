/**
 * A sharded connection in the console, in a real Chromium (issue 25, docs/design.md §5
 * "Shards"): its attempt shards raised through the management function behind `webhooks
 * connections shards <id> --raise-to 4`, its attempts stored over the unsharded partition
 * (deliveries before the raise) and four shards (after it). The attempt log shows every attempt
 * once, newest delivery first and each delivery's attempts latest first, across the partitions;
 * a delivery's page shows all its attempts, before the raise and after it.
 */

import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Page } from 'puppeteer-core';
import { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import { documentClient } from '../../lambdas/adapters/dynamodb/client';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { ENV } from '../../lambdas/config';
import { attemptShardSteps } from '../../lambdas/core/attempt-shards';
import { deliveryShard } from '../../lambdas/core/ids';
import type { AttemptRecord } from '../../lambdas/core/types';
import { attemptAt } from '../support/fixtures';
import { respond } from '../support/receivers';
import { seriousViolations } from './support/axe';
import { byRole, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_shards_${randomBytes(6).toString('hex')}`;
const MINUTE = 60_000;

let harness: ConsoleHarness;
let page: Page;
let connectionId: string;
const records: AttemptRecord[] = [];

const keyOf = (r: { deliveryId: string; attempt: number }) => `${r.deliveryId}/${r.attempt}`;

beforeAll(async () => {
  const connections = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! });
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management, receiver }) => {
      connectionId = (
        await management.connections.create({ applicationId, name: 'Ledger', url: `${receiver.url}/l` })
      ).connectionId;
      // The raise `webhooks connections shards <id> --raise-to 4` makes: it places deliveries
      // created a minute from now. Moved half an hour back here, as if raised then, so that
      // deliveries of the last half hour are already on the shards.
      const raised = await management.connections.raiseAttemptShards(connectionId, 4);
      expect(raised.attemptShards!.map((s) => s.count)).toEqual([1, 4]);
      const now = Date.now();
      await connections.update(
        connectionId,
        {
          attemptShards: [
            raised.attemptShards![0]!,
            { count: 4, from: new Date(now - 30 * MINUTE).toISOString() },
          ],
          updatedAt: new Date(now).toISOString(),
        },
        raised.updatedAt,
      );
      // Three deliveries before the raise, five after; each failed once, then was delivered;
      // the newest needed a third attempt.
      for (let i = 0; i < 8; i++) {
        const at = now - (i < 3 ? 50 - i * 5 : 25 - (i - 3) * 4) * MINUTE;
        const make = () =>
          attemptAt(connectionId, applicationId, at, {
            outcome: 'http_error',
            statusCode: 503,
            final: false,
          });
        let first = make();
        // Ids are random: two deliveries after the raise are drawn onto shards 1 and 2, so the
        // attempts always span more than one shard (about 1 run in 11 did not before).
        const onShard = i === 3 ? 1 : i === 4 ? 2 : undefined;
        while (onShard !== undefined && deliveryShard(first.deliveryId, 4) !== onShard) first = make();
        const second = {
          ...first,
          attempt: 2,
          requestedAt: new Date(at + 1_000).toISOString(),
          outcome: 'delivered' as const,
          statusCode: 200,
          final: true,
        };
        records.push(first, second);
      }
      const newest = records.at(-1)!;
      records[records.length - 1] = { ...newest, outcome: 'http_error', statusCode: 502, final: false };
      records.push({
        ...newest,
        attempt: 3,
        requestedAt: new Date(Date.parse(newest.requestedAt) + 2_000).toISOString(),
      });
      // Written where the dispatcher writes them: placed by the connection's shard steps.
      const log = new DynamoAttempts({
        tableName: process.env[ENV.attemptsTable]!,
        shards: async (id) => attemptShardSteps(await connections.get(id, { consistent: true })),
      });
      for (const r of records) expect(await log.append(r)).toBe('written');
    },
  });
  ({ page } = await harness.openPage());
  await page.setBypassCSP(true);
  await page.goto(harness.consoleUrl);
  await byRole(page, 'link', 'Ledger');
});

afterAll(async () => {
  await harness?.close();
});

it('stores the attempts over the unsharded partition and the shards', async () => {
  const client = documentClient();
  const partitions = [connectionId, ...[1, 2, 3].map((k) => `${connectionId}#${k}`)];
  const counts = await Promise.all(
    partitions.map(async (p) => {
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
  expect(counts.reduce((a, b) => a + b, 0)).toBe(records.length);
  // Shard 0 of four shares the unsharded partition's key: at least two more hold attempts.
  expect(counts.slice(1).filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
});

it('shows every attempt once in the attempt log, newest delivery first, across the shards', async () => {
  await page.goto(`${harness.api.origin}/console/#/connections/${connectionId}`);
  await byRole(page, 'table', 'Attempts');
  const shown = await page.$$eval('table[aria-label="Attempts"] tbody tr', (rows) =>
    rows.map((row) => {
      const link = row.querySelector('a')!.getAttribute('href')!;
      const attempt = row.querySelector('[data-label="Attempt"]')!.textContent!;
      return `${decodeURIComponent(/deliveries\/([^?]+)/.exec(link)![1]!)}/${/#(\d+)/.exec(attempt)![1]}`;
    }),
  );
  const newestFirst = [...records].sort((a, b) =>
    a.deliveryId === b.deliveryId ? b.attempt - a.attempt : a.deliveryId < b.deliveryId ? 1 : -1,
  );
  expect(shown).toEqual(newestFirst.map(keyOf));
  await screenshot(page, 'sharded-attempt-log');
  expect(await seriousViolations(page)).toEqual([]);
});

it("shows all of a delivery's attempts, from a shard and from before the raise", async () => {
  const sharded = records.at(-1)!.deliveryId;
  const unsharded = records[0]!.deliveryId;
  for (const [deliveryId, attempts] of [
    [sharded, 3],
    [unsharded, 2],
  ] as const) {
    await page.goto(`${harness.api.origin}/console/#/deliveries/${deliveryId}?connection=${connectionId}`);
    await byRole(page, 'heading', 'Delivery');
    await waitForText(page, `Attempt ${attempts}`);
    const cards = await page.$$eval('li.card.attempt h2, li.card.attempt h3', (hs) =>
      hs.map((h) => /Attempt (\d+)/.exec(h.textContent ?? '')?.[1]).filter(Boolean),
    );
    expect(cards).toEqual(Array.from({ length: attempts }, (_, i) => String(i + 1)));
  }
});
