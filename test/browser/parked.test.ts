/**
 * A customer whose endpoint was down sees it in the console and gets the parked deliveries
 * back (docs/design.md §9), in a real Chromium against local mode's management API: a health badge
 * per connection on the list, the parked deliveries with reason and last error, Retry of one,
 * Recover of the rest, and, after enabling a connection health had disabled, the offer to
 * recover what was parked meanwhile. Whatever comes from outside (a last error) shows as text.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import { attemptShardSteps } from '../../lambdas/core/attempt-shards';
import type { ParkedItem } from '../../lambdas/core/parking';
import type { WebhookManagement } from '../../lambdas/management';
import type { LocalApi } from '../../local/api-server';
import { attemptAt, parkedAt } from '../support/fixtures';
import { respond } from '../support/receivers';
import { bodyText, byRole, clickButton, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_parked_${randomBytes(6).toString('hex')}`;
const HOSTILE_ERROR = '<img src=x onerror="window.__pwned=1">gateway down';
const NEXT_CHECK_AT = new Date(Date.now() + 60 * 60_000).toISOString();

let harness: ConsoleHarness;
let management: WebhookManagement;
let api: LocalApi;
let page: Page;
let consoleUrl: string;
let parkedStore: DynamoParked;
let failing: string;
let disabled: string;
/** Healthy by state (2 exhausted in a row, below the threshold of 3), and every delivery parked. */
let ledger: string;
/** A delivery delivered at its first attempt whose body the stack did not keep (keepBodies: 'failures'). */
let bodiless: string;
const parkedOf: Record<string, ParkedItem[]> = {};

/** A parked delivery of this application, with an error the page must show as text. */
const parked = (connectionId: string, at: number, fields: Partial<ParkedItem> = {}): ParkedItem =>
  parkedAt(connectionId, applicationId, at, { lastError: HOSTILE_ERROR, ...fields });

beforeAll(async () => {
  parkedStore = new DynamoParked({ tableName: process.env[ENV.parkedTable]! });
  const health = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! }).health;
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management: m, receiver }) => {
      const create = async (name: string) =>
        (await m.connections.create({ applicationId, name, url: `${receiver.url}/${name}` })).connectionId;
      const billing = await create('Billing');
      // As the dispatcher writes it under keepBodies 'failures': delivered, so no body kept.
      const record = attemptAt(billing, applicationId, Date.now() - 30 * 60_000, {
        target: `${receiver.url}/Billing`,
      });
      bodiless = record.deliveryId;
      const log = new DynamoAttempts({
        tableName: process.env[ENV.attemptsTable]!,
        shards: async () =>
          attemptShardSteps({ attemptShards: [{ count: 1, from: new Date(0).toISOString() }] }),
      });
      expect(await log.append(record)).toBe('written');
      failing = await create('CRM');
      disabled = await create('Warehouse');
      ledger = await create('Ledger');
      const now = Date.now();
      const since = new Date(now - 20 * 60_000).toISOString();
      for (const [id, count] of [
        [failing, 3],
        [disabled, 5],
      ] as const) {
        await health.write(
          id,
          {
            state: id === failing ? 'failing' : 'disabled',
            consecutiveFailures: count,
            failingSince: since,
            lastFailureAt: since,
            // A recovery check waits (core/probes.ts): the panel says when.
            ...(id === failing ? { downSince: since, nextCheckAt: NEXT_CHECK_AT, checkSeq: 2 } : {}),
            version: 1,
          },
          0,
        );
      }
      parkedOf[failing] = [0, 1, 2].map((i) => parked(failing, now - 15 * 60_000 + i * 60_000));
      await health.write(
        ledger,
        { state: 'healthy', consecutiveFailures: 2, lastFailureAt: since, version: 1 },
        0,
      );
      parkedOf[ledger] = [0, 1].map((i) => parked(ledger, now - 12 * 60_000 + i * 60_000));
      parkedOf[disabled] = [
        parked(disabled, now - 10 * 60_000),
        parked(disabled, now - 5 * 60_000, {
          reason: 'connection_disabled',
          attempts: 0,
          lastError: undefined,
        }),
      ];
      for (const item of Object.values(parkedOf).flat()) await parkedStore.park(item);
    },
  });
  ({ management, api, consoleUrl } = harness);
  ({ page } = await harness.openPage());
});

afterAll(async () => {
  await harness?.close();
});

const stillParked = async (connectionId: string) =>
  (await management.listParked(connectionId)).data.map((p) => p.deliveryId);

describe('endpoint health and parked deliveries in the console', () => {
  it('shows each connection’s health on the list, in words', async () => {
    await page.goto(consoleUrl);
    await byRole(page, 'heading', 'CRM Connections');
    await waitForText(page, 'Warehouse');
    const rows = await page.$$eval('table tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    const row = (name: string) => rows.find((r) => r.includes(name)) ?? '';
    expect(row('Billing')).toContain('Healthy');
    expect(row('CRM')).toMatch(/Failing\s*since/);
    expect(row('Warehouse')).toContain('Disabled by health');
    expect(row('Ledger')).toMatch(/Healthy\s*2 failed in a row/);
    await screenshot(page, '11-connections-health');
  });

  it('lists the parked deliveries of a failing connection with reason and last error, as text', async () => {
    await page.goto(`${api.origin}/console/#/connections/${failing}`);
    await byRole(page, 'table', 'Parked deliveries');
    const text = await bodyText(page);
    expect(text).toContain('Failing');
    expect(text).toContain('3 deliveries in a row failed on every attempt');
    expect(text).toContain('Every attempt failed');
    expect(text).toContain(`HTTP 503: ${HOSTILE_ERROR}`);
    const status = await page.$eval('[data-recovery-status]', (p) => p.textContent ?? '');
    const shown = await page.evaluate(
      (iso) =>
        new Date(iso).toLocaleString(undefined, {
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          timeZoneName: 'short',
        }),
      NEXT_CHECK_AT,
    );
    expect(status).toMatch(/^Endpoint down since .+, next check at /);
    expect(status).toContain(`next check at ${shown}`);
    const rows = await page.$$eval('table[aria-label="Parked deliveries"] tbody tr', (trs) => trs.length);
    expect(rows).toBe(3);
    expect(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
    await screenshot(page, '12-parked-deliveries');
  });

  it('does not say deliveries succeed of a healthy connection whose deliveries were all parked', async () => {
    await page.goto(`${api.origin}/console/#/connections/${ledger}`);
    await byRole(page, 'table', 'Parked deliveries');
    await waitForText(page, 'some deliveries, waiting to be sent again');
    const text = await bodyText(page);
    expect(text).toContain('Healthy');
    expect(text).toContain('Not failing yet: 2 deliveries in a row failed on every attempt');
    expect(text).not.toMatch(/succeed/i);
    await page.goto(`${api.origin}/console/#/connections/${failing}`);
    await byRole(page, 'table', 'Parked deliveries');
  });

  it('retries one parked delivery: it is queued again and leaves the list', async () => {
    const [newest] = [...parkedOf[failing]!].reverse();
    await clickButton(page, `Retry delivery ${newest!.deliveryId}`);
    await waitForText(page, `Delivery ${newest!.deliveryId} is queued again (attempt 5 next).`);
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document.querySelectorAll('table[aria-label="Parked deliveries"] tbody tr').length === 2,
    );
    expect(await stillParked(failing)).not.toContain(newest!.deliveryId);
  });

  it('recovers the rest after a confirmation that says what happens', async () => {
    await clickButton(page, 'Recover');
    await byRole(page, 'alertdialog', 'Confirm recover');
    expect(await bodyText(page)).toContain('Each keeps its delivery id and body');
    expect(await stillParked(failing)).toHaveLength(2);
    await clickButton(page, 'Recover deliveries');
    await waitForText(page, '2 deliveries are queued again, oldest first.');
    await waitForText(page, 'Nothing parked');
    expect(await stillParked(failing)).toEqual([]);
  });

  it('does not offer Recover while the connection is disabled; enabling it offers recovery', async () => {
    await page.goto(`${api.origin}/console/#/connections/${disabled}`);
    await byRole(page, 'table', 'Parked deliveries');
    const before = await bodyText(page);
    expect(before).toContain('Disabled by health');
    expect(before).toContain('enable it first');
    expect(before).toContain('Connection disabled');
    expect(await page.$('::-p-aria([name="Recover"][role="button"])')).toBeNull();

    await clickButton(page, 'Enable');
    await byRole(page, 'region', 'Recover parked deliveries');
    await waitForText(page, 'Send the parked deliveries now?');
    await screenshot(page, '13-enable-offers-recovery');
    const connection = await management.getConnection(disabled);
    expect(connection).toMatchObject({ enabled: true, health: { state: 'healthy', consecutiveFailures: 0 } });

    const offer = await byRole(page, 'region', 'Recover parked deliveries');
    await (await offer.$('::-p-aria([name="Recover"][role="button"])'))!.click();
    await (await offer.$('::-p-aria([name="Recover deliveries"][role="button"])'))!.click();
    await waitForText(page, '2 deliveries are queued again, oldest first.');
    expect(await stillParked(disabled)).toEqual([]);
  });

  it('says why a delivery has no body and offers no Resend that could only fail', async () => {
    await page.goto(`${api.origin}/console/#/deliveries/${bodiless}`);
    await byRole(page, 'heading', 'Delivery');
    await waitForText(page, 'Attempt 1');
    expect(await page.$eval('.delivery-state', (el) => el.textContent)).toBe('Delivered on attempt 1');
    const notKept =
      "bodies of delivered deliveries are not kept by this stack's settings (keepBodies: 'failures')";
    const section = await page.$eval(
      'section[aria-labelledby="request-body-heading"]',
      (el) => el.textContent ?? '',
    );
    expect(section).toContain(notKept);
    expect(await page.$('pre.request-body')).toBeNull();
    expect(await page.$eval('.resend-unavailable', (el) => el.textContent)).toBe(
      `This delivery cannot be sent again: ${notKept}.`,
    );
    expect(await page.$('::-p-aria([name="Resend"][role="button"])')).toBeNull();
  });
});
