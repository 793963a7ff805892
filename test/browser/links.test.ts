/**
 * Console links opened in a tab that already shows the console (a real Chromium against local
 * mode's API): a link for another application only asks, naming both, and switches when the
 * user says so; the same application's link refreshes the session. Whichever way a link arrives
 * (a fresh page load, or a fragment change with no reload), its token never stays in the
 * address bar or in the tab's history. A link whose token the API does not accept (a forged
 * signature) replaces nothing: the working session stays, and the page says the link was not valid.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import type { WebhookManagement } from '../../lambdas/management';
import type { LocalApi } from '../../local/api-server';
import { respond } from '../support/receivers';
import { bodyText, byRole, clickButton, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const appA = `app_linka_${randomBytes(5).toString('hex')}`;
const appB = `app_linkb_${randomBytes(5).toString('hex')}`;

let harness: ConsoleHarness;
let management: WebhookManagement;
let api: LocalApi;
let page: Page;

interface TabGlobals {
  location: { href: string; hash: string };
  history: { length: number; back(): void; forward(): void };
  sessionStorage: { getItem(k: string): string | null; length: number; key(i: number): string | null };
}

/** What the tab holds: its address, its history length, and the application of its stored session. */
async function tabState(p: Page): Promise<{ href: string; length: number; stored: string }> {
  return p.evaluate(() => {
    const g = globalThis as unknown as TabGlobals;
    const key = g.sessionStorage.key(0);
    const token = key ? (g.sessionStorage.getItem(key) ?? '') : '';
    const payload = token.split('.')[1] ?? '';
    const claims = payload ? JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) : {};
    const app = Object.values(claims).find((v) => typeof v === 'string' && v.startsWith('app_'));
    return { href: g.location.href, length: g.history.length, stored: String(app ?? '') };
  });
}

const link = async (applicationId: string) =>
  (await management.createConsoleSession({ applicationId, apiUrl: api.origin })).consoleUrl;
const fragmentOf = (url: string) => new URL(url).hash;

/** A link's fragment with its token's claims changed (a later expiry) and the signature kept. */
function forged(fragment: string): string {
  const [header, payload, signature] = new URLSearchParams(fragment.slice(1)).get('token')!.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as { exp: number };
  const changed = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url');
  return `#token=${header}.${changed}.${signature}`;
}

const storedToken = (p: Page) =>
  p.evaluate(() => {
    const g = globalThis as unknown as TabGlobals;
    const key = g.sessionStorage.key(0);
    return key ? g.sessionStorage.getItem(key) : null;
  });

beforeAll(async () => {
  harness = await startConsoleHarness({
    applicationId: appA,
    behaviour: respond(200, '{"received":true}'),
    seed: async ({ management: m, receiver }) => {
      await m.connections.create({ applicationId: appA, name: 'Alpha CRM', url: `${receiver.url}/a` });
      await m.connections.create({ applicationId: appB, name: 'Bravo CRM', url: `${receiver.url}/b` });
    },
  });
  ({ management, api } = harness);
  ({ page } = await harness.openPage());
});

afterAll(async () => {
  await harness?.close();
});

describe('a console link opened in a tab that already shows the console', () => {
  it('asks before switching to another application when only the fragment changes', async () => {
    await page.goto(harness.consoleUrl);
    await byRole(page, 'link', 'Alpha CRM');
    const before = await tabState(page);
    expect(before.href).not.toContain('token');

    const linkB = await link(appB);
    await page.evaluate((hash) => {
      (globalThis as unknown as TabGlobals).location.hash = hash;
    }, fragmentOf(linkB));
    await byRole(page, 'alertdialog', 'Switch application?');
    const text = await bodyText(page);
    expect(text).toContain(`This link opens ${appB}. This tab is signed in to ${appA}.`);
    await byRole(page, 'button', `Switch to ${appB}`);
    await byRole(page, 'button', `Stay in ${appA}`);
    await screenshot(page, '20-switch-application');

    // The fragment change added one history entry; neither it nor the one before holds the token.
    const asked = await tabState(page);
    expect(asked.href).toBe(`${api.origin}/console/`);
    expect(asked.length).toBe(before.length + 1);
    expect(asked.stored).toBe(appA);
    for (const step of ['back', 'forward'] as const) {
      await page.evaluate((s) => (globalThis as unknown as TabGlobals).history[s](), step);
      await new Promise((r) => setTimeout(r, 250));
      const after = await tabState(page);
      expect({ step, href: after.href, length: after.length }).toEqual({
        step,
        href: `${api.origin}/console/`,
        length: asked.length,
      });
    }
  });

  it('stays in the current application when asked to', async () => {
    await clickButton(page, `Stay in ${appA}`);
    await byRole(page, 'link', 'Alpha CRM');
    expect(await bodyText(page)).not.toContain('Bravo CRM');
    expect((await tabState(page)).stored).toBe(appA);
  });

  it('switches when the user says so, and shows the other application', async () => {
    await page.evaluate(
      (hash) => {
        (globalThis as unknown as TabGlobals).location.hash = hash;
      },
      fragmentOf(await link(appB)),
    );
    await clickButton(page, `Switch to ${appB}`);
    await byRole(page, 'link', 'Bravo CRM');
    const text = await bodyText(page);
    expect(text).toContain(appB);
    expect(text).not.toContain('Alpha CRM');
    const state = await tabState(page);
    expect(state.stored).toBe(appB);
    expect(state.href).not.toContain('token');
  });

  it('asks on a fresh page load too, keeping the offered token out of storage until accepted', async () => {
    await page.goto('about:blank');
    await page.goto(await link(appA));
    await byRole(page, 'alertdialog', 'Switch application?');
    expect(await bodyText(page)).toContain(`This link opens ${appA}. This tab is signed in to ${appB}.`);
    const state = await tabState(page);
    expect(state.href).toBe(`${api.origin}/console/`);
    expect(state.stored).toBe(appB);
    await clickButton(page, `Switch to ${appA}`);
    await byRole(page, 'link', 'Alpha CRM');
    expect((await tabState(page)).stored).toBe(appA);
  });

  it('refreshes the session without asking for a new link of the same application', async () => {
    await waitForText(page, 'Alpha CRM');
    await page.evaluate(
      (hash) => {
        (globalThis as unknown as TabGlobals).location.hash = hash;
      },
      fragmentOf(await link(appA)),
    );
    await page.waitForFunction(() => !(globalThis as unknown as TabGlobals).location.href.includes('token'));
    await byRole(page, 'link', 'Alpha CRM');
    expect(await page.$('::-p-aria([role="alertdialog"])')).toBeNull();
    expect((await tabState(page)).href).toBe(`${api.origin}/console/`);
  });

  it('keeps the working session when a link for the same application has a forged token', async () => {
    await byRole(page, 'link', 'Alpha CRM');
    const working = await storedToken(page);
    const bad = forged(fragmentOf(await link(appA)));
    expect(bad).not.toContain(working);

    // As a fragment change, then as a fresh page load: each time the link is refused.
    await page.evaluate((hash) => {
      (globalThis as unknown as TabGlobals).location.hash = hash;
    }, bad);
    await waitForText(page, 'The link you opened is not a valid console link.');
    expect(await storedToken(page)).toBe(working);
    await page.goto('about:blank');
    await page.goto(`${api.origin}/console/${bad}`);
    await waitForText(page, 'The link you opened is not a valid console link.');
    expect(await bodyText(page)).toContain(`This tab is still signed in to ${appA}.`);
    await screenshot(page, '21-forged-link-refused');
    const state = await tabState(page);
    expect(state.href).not.toContain('token');
    expect(await storedToken(page)).toBe(working);

    // The session still works: the API answers with it.
    await (await byRole(page, 'link', 'Alpha CRM')).click();
    await byRole(page, 'button', 'Send Test');
    expect(await bodyText(page)).toContain('Connection id');
    expect((await tabState(page)).stored).toBe(appA);
  });
});
