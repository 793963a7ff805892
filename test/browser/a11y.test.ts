/**
 * Accessibility of every view, checked by axe-core in the real Chromium: no serious or
 * critical violation on the list, the add form (empty and showing its errors), a healthy
 * connection, a failing connection with parked deliveries, and a delivery's detail with the
 * request view. And where focus goes after an action: to the revealed secret after Show Secret,
 * to the result after Send Test and after Resend, never back to <body>.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import type { LocalApi } from '../../local/api-server';
import { parkedAt } from '../support/fixtures';
import { respond } from '../support/receivers';
import { seriousViolations } from './support/axe';
import { byRole, clickButton, fill, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_a11y_${randomBytes(6).toString('hex')}`;

let harness: ConsoleHarness;
let api: LocalApi;
let page: Page;
let healthy: string;
let failing: string;
let testDelivery: string;

/** What has focus: its tag, class and accessible name, or `body`. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const el = (globalThis as any).document.activeElement;
    return el
      ? `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}`
      : 'none';
  });

beforeAll(async () => {
  const parkedStore = new DynamoParked({ tableName: process.env[ENV.parkedTable]! });
  const health = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! }).health;
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management, receiver }) => {
      healthy = (
        await management.connections.create({
          applicationId,
          name: 'Billing',
          url: `${receiver.url}/b`,
          rateLimit: 20,
        })
      ).connectionId;
      failing = (
        await management.connections.create({ applicationId, name: 'CRM', url: `${receiver.url}/c` })
      ).connectionId;
      const since = new Date(Date.now() - 30 * 60_000).toISOString();
      await health.write(
        failing,
        { state: 'failing', consecutiveFailures: 3, failingSince: since, lastFailureAt: since, version: 1 },
        0,
      );
      for (let i = 0; i < 3; i++) {
        const at = Date.now() - (20 - i) * 60_000;
        await parkedStore.park(
          parkedAt(failing, applicationId, at, {
            reason: i === 2 ? 'connection_disabled' : 'exhausted',
            lastError: 'receiver answered HTTP 503',
          }),
        );
      }
    },
  });
  ({ api } = harness);
  ({ page } = await harness.openPage());
  // axe is injected as an inline script, which the console's Content-Security-Policy refuses.
  await page.setBypassCSP(true);
  await page.goto(harness.consoleUrl);
});

afterAll(async () => {
  await harness?.close();
});

describe('accessibility of every view (axe-core: no serious or critical violation)', () => {
  it('the list of connections', async () => {
    await byRole(page, 'link', 'Billing');
    await waitForText(page, 'Failing');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('the add form, empty and showing its errors', async () => {
    await clickButton(page, 'Add connection');
    await byRole(page, 'heading', 'Add connection');
    expect(await seriousViolations(page)).toEqual([]);
    await fill(page, 'URL', 'http://crm.example.com');
    await fill(page, 'Headers', '{');
    await fill(page, 'Rate limit (deliveries per second)', '0');
    await clickButton(page, 'Add connection');
    await waitForText(page, 'URL must start with https://');
    await waitForText(page, 'Rate limit must be a whole number');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a healthy connection, its secret shown and a test sent: focus goes to what appeared', async () => {
    await page.goto(`${api.origin}/console/#/connections/${healthy}`);
    await byRole(page, 'heading', 'Signing secret');
    await waitForText(page, 'No delivery attempts yet');
    await waitForText(page, 'waiting for the rate limit');
    expect(await seriousViolations(page)).toEqual([]);

    await clickButton(page, 'Show Secret');
    await page.waitForSelector('code.secret');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.matches('code.secret'));
    expect(await focused(page)).toBe('code.secret');

    await clickButton(page, 'Send Test');
    await byRole(page, 'region', 'Test result');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.matches('.test-result'));
    expect(await focused(page)).toBe('section.test-result');
    testDelivery = await page.$eval('.test-result a.mono', (a) => a.textContent ?? '');
    await byRole(page, 'table', 'Attempts');
    await waitForText(page, 'Attempts by outcome');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a failing connection with parked deliveries', async () => {
    await page.goto(`${api.origin}/console/#/connections/${failing}`);
    await byRole(page, 'table', 'Parked deliveries');
    await waitForText(page, '3 deliveries in a row failed on every attempt');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("a delivery's detail with its request view, and after Resend: focus goes to the result", async () => {
    await page.goto(`${api.origin}/console/#/deliveries/${testDelivery}?connection=${healthy}`);
    await waitForText(page, 'Attempt 1');
    await byRole(page, 'table', 'Request headers of attempt 1');
    await page.waitForSelector('pre.request-body');
    expect(await seriousViolations(page)).toEqual([]);

    await clickButton(page, 'Resend');
    await page.waitForSelector('.resend-result');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.matches('.resend-result'));
    expect(await focused(page)).toBe('p.resend-result');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
