/**
 * "Waiting for the rate limit" as live state in a real Chromium (issue 25, docs/console.md): a
 * connection limited to 20/s says nothing is waiting, then, once the dispatchers' counters show
 * deliveries over the limit (written here through the production adapter, as the limiter
 * writes them), says within one refresh that it is waiting, at what rate, and how many were
 * deferred in the last minute; axe-core finds no serious violation in either state. A
 * connection without a limit shows no rate-limit line at all.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { DynamoRateWindows } from '../../lambdas/adapters/dynamodb/rate-windows';
import { ENV } from '../../lambdas/config';
import { respond } from '../support/receivers';
import { seriousViolations } from './support/axe';
import { bodyText, byRole, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_rate_${randomBytes(6).toString('hex')}`;
/** How often the page reads the state again (RATE_LIMIT_POLL_MS in console/components/rate-limit-state.tsx). */
const POLL_MS = 5_000;

let harness: ConsoleHarness;
let page: Page;
let limited: string;
let free: string;

beforeAll(async () => {
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management, receiver }) => {
      limited = (
        await management.connections.create({
          applicationId,
          name: 'Ledger',
          url: `${receiver.url}/l`,
          rateLimit: 20,
        })
      ).connectionId;
      free = (
        await management.connections.create({ applicationId, name: 'Billing', url: `${receiver.url}/b` })
      ).connectionId;
    },
  });
  ({ page } = await harness.openPage());
  await page.setBypassCSP(true);
  await page.goto(harness.consoleUrl);
  // The session is kept once the list shows (the link's token is taken out of the address).
  await byRole(page, 'link', 'Ledger');
});

afterAll(async () => {
  await harness?.close();
});

it('says a limited connection with nothing held back is not waiting', async () => {
  await page.goto(`${harness.api.origin}/console/#/connections/${limited}`);
  await byRole(page, 'heading', 'Signing secret');
  await waitForText(page, 'Rate limit: 20 deliveries per second. Nothing is waiting for the rate limit now.');
  expect(await bodyText(page)).not.toContain('Waiting for the rate limit:');
  expect(await seriousViolations(page)).toEqual([]);
});

it('shows, within one refresh, that its deliveries are waiting for the rate limit, how fast they go and how many were deferred', async () => {
  // What the limiter writes when 45 tries come in one second and 30 in the one before: 20 go in
  // each, 25 + 10 are deferred.
  const windows = new DynamoRateWindows({ tableName: process.env[ENV.rateWindowsTable]! });
  const second = Math.floor(Date.now() / 1000);
  await Promise.all([
    ...Array.from({ length: 45 }, () => windows.increment(limited, second, 0)),
    ...Array.from({ length: 30 }, () => windows.increment(limited, second - 1, 0)),
  ]);
  // The page is not reloaded: it reads the state again by itself.
  await waitForText(
    page,
    'Waiting for the rate limit: sending at 20/s, 35 deferred in the last minute.',
    POLL_MS + 10_000,
  );
  const status = await page.$eval('p.rate-waiting', (el) => ({
    role: el.getAttribute('role'),
    // biome-ignore lint/performance/useDomNodeTextContent: the visible text, as a user reads it
    text: (el as unknown as { innerText: string }).innerText,
  }));
  expect(status.role).toBe('status');
  expect(status.text).toContain('show no attempt until they are sent');
  await screenshot(page, 'rate-limit-waiting');
  expect(await seriousViolations(page)).toEqual([]);
});

it('shows no rate-limit line for a connection without a limit', async () => {
  await page.goto(`${harness.api.origin}/console/#/connections/${free}`);
  await byRole(page, 'heading', 'Signing secret');
  await waitForText(page, 'No delivery attempts yet');
  const text = await bodyText(page);
  expect(text).not.toContain('Rate limit:');
  expect(text).not.toContain('Waiting for the rate limit');
});
