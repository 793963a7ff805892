/**
 * A connection's own "Automatic recovery" switch in a real Chromium against local mode's API
 * (docs/console.md, docs/operations.md "Recovery checks"): Edit unchecks it and saves
 * `recoveryProbes: false`, the page then says it is off and the parked panel no longer promises a
 * check (a check stored before the switch is never made); Add with the box unchecked creates the
 * connection with it off; an edit that leaves the box alone does not send the field at all; a
 * connection with it off and deliveries parked says they wait for Recover.
 */

import { randomBytes } from 'node:crypto';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import type { WebhookManagement } from '../../lambdas/management';
import { parkedAt } from '../support/fixtures';
import { type Receiver, respond } from '../support/receivers';
import { byRole, clickButton, fill, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_recovery_${randomBytes(6).toString('hex')}`;
const OFF = 'off: parked deliveries wait for Recover';

let harness: ConsoleHarness;
let management: WebhookManagement;
let receiver: Receiver;
let page: Page;
let origin: string;
/** Down, with a recovery check stored and three deliveries parked. */
let down: string;
/** Created with its own recovery checks off, one delivery parked, no probe fields in its health. */
let manual: string;

beforeAll(async () => {
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management: m, receiver: r }) => {
      down = (await m.connections.create({ applicationId, name: 'CRM', url: `${r.url}/crm` })).connectionId;
      const since = new Date(Date.now() - 20 * 60_000).toISOString();
      const health = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! }).health;
      await health.write(
        down,
        {
          state: 'failing',
          consecutiveFailures: 3,
          failingSince: since,
          lastFailureAt: since,
          downSince: since,
          nextCheckAt: new Date(Date.now() + 60 * 60_000).toISOString(),
          checkSeq: 2,
          version: 1,
        },
        0,
      );
      const parked = new DynamoParked({ tableName: process.env[ENV.parkedTable]! });
      for (const i of [0, 1, 2])
        await parked.park(parkedAt(down, applicationId, Date.now() - 15 * 60_000 + i * 60_000));
      manual = (
        await m.connections.create({
          applicationId,
          name: 'Billing',
          url: `${r.url}/b`,
          recoveryProbes: false,
        })
      ).connectionId;
      await parked.park(parkedAt(manual, applicationId, Date.now() - 5 * 60_000));
    },
  });
  ({ management, receiver } = harness);
  origin = harness.api.origin;
  ({ page } = await harness.openPage());
  await page.goto(harness.consoleUrl);
  // The session is kept once the list shows (the link's token is taken out of the address).
  await byRole(page, 'link', 'CRM');
});

afterAll(async () => {
  await harness?.close();
});

/** The text of the connection's "Automatic recovery" fact. */
const setting = () => page.$eval('[data-recovery-setting]', (dd) => dd.textContent ?? '');
/** Waits until the fact reads `text` (after a save the page reads the connection again). */
const settingReads = (text: string) =>
  page.waitForFunction(
    (t: string) =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
      ).document.querySelector('[data-recovery-setting]')?.textContent === t,
    { timeout: 15_000 },
    text,
  );
const recoveryLine = () => page.$eval('[data-recovery-status]', (p) => p.textContent ?? '');

/** The box's state, after waiting for it. */
async function box(): Promise<boolean> {
  const input = await byRole(page, 'checkbox', 'Automatic recovery');
  return input.evaluate((el) => (el as unknown as { checked: boolean }).checked);
}

/** Runs `act` and returns the JSON body of the request it sends with `method`, and the API's answer. */
async function sent(method: string, act: () => Promise<void>) {
  const matches = (r: HTTPRequest) => r.method() === method && r.url().includes('/connections');
  const [response] = await Promise.all([page.waitForResponse((r) => matches(r.request())), act()]);
  const body = JSON.parse(response.request().postData() ?? '{}') as Record<string, unknown>;
  return { body, answer: (await response.json()) as Record<string, unknown>, status: response.status() };
}

it('unchecking Automatic recovery on Edit saves it off, says so, and no longer promises a check', async () => {
  await page.goto(`${origin}/console/#/connections/${down}`);
  await byRole(page, 'table', 'Parked deliveries');
  expect(await setting()).toMatch(/^on/);
  expect(await recoveryLine()).toContain('next check at');

  await clickButton(page, 'Edit');
  await byRole(page, 'heading', 'Edit connection');
  expect(await box()).toBe(true);
  await (await byRole(page, 'checkbox', 'Automatic recovery')).click();
  await screenshot(page, 'recovery-switch-edit');
  const { body, answer, status } = await sent('PATCH', () => clickButton(page, 'Save changes'));
  expect(status).toBe(200);
  expect(body.recoveryProbes).toBe(false);
  expect(answer.recoveryProbes).toBe(false);
  expect((await management.connections.get(down)).recoveryProbes).toBe(false);

  await settingReads(OFF);
  const line = await recoveryLine();
  expect(line).not.toContain('next check');
  expect(line).toMatch(/^Endpoint down since .+\. Automatic recovery is off for this connection/);
  expect(line).toContain('parked deliveries wait for Recover');
  await screenshot(page, 'recovery-switch-off');
});

it('an edit that leaves the box alone does not send it; checking it again sends true', async () => {
  await clickButton(page, 'Edit');
  expect(await box()).toBe(false);
  await fill(page, 'Name', 'CRM production');
  const renamed = await sent('PATCH', () => clickButton(page, 'Save changes'));
  expect(renamed.body).not.toHaveProperty('recoveryProbes');
  expect(renamed.answer.recoveryProbes).toBe(false);
  await waitForText(page, 'CRM production');

  await clickButton(page, 'Edit');
  await (await byRole(page, 'checkbox', 'Automatic recovery')).click();
  const on = await sent('PATCH', () => clickButton(page, 'Save changes'));
  expect(on.body.recoveryProbes).toBe(true);
  expect((await management.connections.get(down)).recoveryProbes).toBe(true);
  await waitForText(page, 'next check at');
  expect(await setting()).toMatch(/^on/);
});

it('Add with Automatic recovery unchecked creates the connection with it off', async () => {
  await page.goto(`${origin}/console/#/connections/new`);
  await byRole(page, 'heading', 'Add connection');
  expect(await box()).toBe(true);
  await fill(page, 'Name', 'Ledger');
  await fill(page, 'URL', `${receiver.url}/ledger`);
  await (await byRole(page, 'checkbox', 'Automatic recovery')).click();
  const { body, answer, status } = await sent('POST', () => clickButton(page, 'Add connection'));
  expect(status).toBe(201);
  expect(body.recoveryProbes).toBe(false);
  expect(answer.recoveryProbes).toBe(false);
  const created = await management.connections.get(answer.connectionId as string);
  expect(created).toMatchObject({ name: 'Ledger', recoveryProbes: false });
  await byRole(page, 'heading', 'Signing secret');
  await settingReads(OFF);
});

it('says parked deliveries wait for Recover on a connection with it off, even with no check ever stored', async () => {
  await page.goto(`${origin}/console/#/connections/${manual}`);
  await byRole(page, 'table', 'Parked deliveries');
  await settingReads(OFF);
  expect(await recoveryLine()).toBe(
    'Automatic recovery is off for this connection: parked deliveries wait for Recover.',
  );
});
