/**
 * A page in the shared Chromium, found by what a user sees: elements by their role and
 * accessible name (a button's text, an input's <label>), and a screenshot of every page visited.
 */

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, ElementHandle, Page } from 'puppeteer-core';
import { BROWSER_ENV } from './env';

/** Screenshots of every page the walk visits (gitignored; the best are copied to docs/images). */
export const SCREENSHOT_DIR = resolve(__dirname, '..', '..', '..', '.screenshots', 'console');
const VIEWPORT = { width: 1280, height: 900 };

type Puppeteer = typeof import('puppeteer-core').default;

export async function connectBrowser(): Promise<Browser> {
  const bundle = process.env[BROWSER_ENV.puppeteerBundle];
  const browserWSEndpoint = process.env[BROWSER_ENV.wsEndpoint];
  if (!bundle || !browserWSEndpoint) throw new Error('the browser project global-setup did not run');
  const puppeteer = (require(bundle) as { default: Puppeteer }).default;
  return puppeteer.connect({ browserWSEndpoint, defaultViewport: VIEWPORT });
}

/** A fresh incognito-like context: its own sessionStorage, like a new tab of a new user. */
export async function newUserPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(VIEWPORT);
  return { context, page };
}

const aria = (role: string, name: string) => `::-p-aria([name=${JSON.stringify(name)}][role="${role}"])`;

export function byRole(page: Page, role: string, name: string): Promise<ElementHandle> {
  return page.locator(aria(role, name)).setTimeout(15_000).waitHandle() as Promise<ElementHandle>;
}

export async function clickButton(page: Page, name: string): Promise<void> {
  await page.locator(aria('button', name)).setTimeout(15_000).click();
}

/** The input, select or textarea whose visible <label> reads `label`. */
export async function field(page: Page, label: string): Promise<ElementHandle> {
  for (const role of ['textbox', 'combobox']) {
    const found = await page.$(aria(role, label));
    if (found) return found;
  }
  throw new Error(`no input labelled "${label}"`);
}

export async function fill(page: Page, label: string, value: string): Promise<void> {
  const input = await field(page, label);
  await input.click({ count: 3 });
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  if (value) await input.type(value);
}

/** The page's globals as the test reads them (the project's tsconfig has no DOM library). */
interface PageGlobals {
  document: { body: { innerText: string } };
}

/** Waits until the page's visible text contains `text`. */
export async function waitForText(page: Page, text: string, timeoutMs = 15_000): Promise<void> {
  await page.waitForFunction(
    // biome-ignore lint/performance/useDomNodeTextContent: the visible text, as a user reads it
    (t: string) => (globalThis as unknown as PageGlobals).document.body.innerText.includes(t),
    { timeout: timeoutMs },
    text,
  );
}

/** The page's visible text, as a user reads it. */
export async function bodyText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the visible text, as a user reads it
  return page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) as `${string}.png`, fullPage: true });
}
