/**
 * "Where is the webhook for usr_101?" answered in the console, in a real Chromium against local
 * mode's API: the top bar's Find box takes a user id, an event id or a delivery id; the first two
 * list the application's deliveries across its connections with where each stands now, the third
 * opens the delivery. The attempt log names each row's user and event.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import { attemptShardSteps } from '../../lambdas/core/attempt-shards';
import type { AttemptRecord } from '../../lambdas/core/types';
import { attemptAt, parkedAt } from '../support/fixtures';
import { respond } from '../support/receivers';
import { bodyText, byRole, clickButton, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_find_${randomBytes(6).toString('hex')}`;
const MINUTE = 60_000;

let harness: ConsoleHarness;
let page: Page;
let crm: string;
/** usr_101's delivered delivery to CRM, usr_202's parked one to Ledger, usr_101's parked one to Ledger. */
let seeded: Record<'delivered' | 'parked' | 'again' | 'elsewhere', AttemptRecord>;

beforeAll(async () => {
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management, receiver }) => {
      const create = async (name: string) =>
        (await management.connections.create({ applicationId, name, url: `${receiver.url}/${name}` }))
          .connectionId;
      crm = await create('CRM');
      const ledger = await create('Ledger');
      // As the dispatcher writes them with delivery search on (the default).
      const log = new DynamoAttempts({
        tableName: process.env[ENV.attemptsTable]!,
        shards: async () =>
          attemptShardSteps({ attemptShards: [{ count: 1, from: new Date(0).toISOString() }] }),
        lookups: true,
      });
      const t0 = Date.now() - 30 * MINUTE;
      const failed = { outcome: 'http_error', statusCode: 503, final: true } as const;
      seeded = {
        delivered: attemptAt(crm, applicationId, t0, { userId: 'usr_101' }),
        parked: attemptAt(ledger, applicationId, t0 + MINUTE, { userId: 'usr_202', ...failed }),
        again: attemptAt(ledger, applicationId, t0 + 2 * MINUTE, { userId: 'usr_101', ...failed }),
        elsewhere: attemptAt(
          ledger.replace('con_', 'con_x'),
          `app_other_${randomBytes(4).toString('hex')}`,
          t0,
          {
            userId: 'usr_101',
          },
        ),
      };
      for (const record of Object.values(seeded)) expect(await log.append(record)).toBe('written');
      const parked = new DynamoParked({ tableName: process.env[ENV.parkedTable]! });
      for (const r of [seeded.parked, seeded.again])
        await parked.park(
          parkedAt(ledger, applicationId, t0, { deliveryId: r.deliveryId, eventId: r.eventId }),
        );
    },
  });
  ({ page } = await harness.openPage());
});

afterAll(async () => {
  await harness?.close();
});

/** Types `text` into the top bar's Find box and submits it. */
async function find(text: string): Promise<void> {
  const box = page
    .locator('::-p-aria([name="Delivery, event or user id"][role="searchbox"])')
    .setTimeout(15_000);
  await box.fill(text);
  await clickButton(page, 'Find');
}

/** The delivery ids of the Deliveries table's rows, in order. */
async function listed(): Promise<string[]> {
  await byRole(page, 'table', 'Deliveries');
  // Each row's first cell carries the delivery id under its time.
  return page.$$eval('table[aria-label="Deliveries"] tbody td[data-label="First attempt"] .mono', (ids) =>
    ids.map((id) => id.textContent ?? ''),
  );
}

describe('finding a delivery in the console', () => {
  it('finds a user’s deliveries across the application’s connections, newest first, with where each stands', async () => {
    await page.goto(harness.consoleUrl);
    await byRole(page, 'heading', 'CRM Connections');
    await find('usr_101');
    await byRole(page, 'heading', 'Deliveries for user usr_101');
    expect(await listed()).toEqual([seeded.again.deliveryId, seeded.delivered.deliveryId]);
    const text = await bodyText(page);
    expect(text).toContain('Parked');
    expect(text).toContain('Delivered');
    expect(text).not.toContain(seeded.elsewhere.deliveryId);
    await screenshot(page, '42-find-by-user');
  });

  it('finds an event’s delivery by the event id', async () => {
    await find(seeded.parked.eventId);
    await byRole(page, 'heading', `Deliveries of event ${seeded.parked.eventId}`);
    expect(await listed()).toEqual([seeded.parked.deliveryId]);
    expect(await bodyText(page)).toContain('usr_202');
  });

  it('opens a delivery by its id, and says what it cannot read', async () => {
    await find(seeded.delivered.deliveryId);
    await byRole(page, 'heading', 'Delivery');
    await waitForText(page, seeded.delivered.eventId);
    await find('101');
    await waitForText(page, 'Not an id this console knows');
  });

  it('lists every delivery of the application, and names each attempt’s user and event in the attempt log', async () => {
    await page.goto(harness.consoleUrl);
    await page.locator('::-p-aria([name="Deliveries"][role="link"])').setTimeout(15_000).click();
    await byRole(page, 'heading', 'Deliveries');
    expect(await listed()).toEqual([seeded.again, seeded.parked, seeded.delivered].map((r) => r.deliveryId));
    await page.goto(`${harness.api.origin}/console/#/connections/${crm}`);
    await byRole(page, 'table', 'Attempts');
    const row = await page.$eval('table[aria-label="Attempts"] tbody tr', (tr) => tr.textContent ?? '');
    expect(row).toContain('usr_101');
    expect(row).toContain(seeded.delivered.eventId);
  });
});
