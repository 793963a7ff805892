/**
 * The browser project: the emulators (as for integration tests), plus one headless Chromium
 * from @sparticuz/chromium for every test file. puppeteer-core and @sparticuz/chromium are
 * ESM-only, which Jest's CommonJS sandbox cannot load; so the browser is launched here, outside
 * the sandbox, and tests connect to it through a CommonJS bundle of puppeteer-core built with
 * the project's esbuild (support/browser.ts).
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import integrationSetup from '../integration/global-setup';
import { BROWSER_ENV, BROWSER_KEY } from './support/env';

/**
 * Flags of @sparticuz/chromium's Lambda profile a console test must not have: one process
 * (breaks separate browser contexts, i.e. a second visitor with its own sessionStorage), and
 * switched-off web security (the same-origin rules the console relies on would not be tested).
 */
const DROPPED_ARGS = new Set([
  '--single-process',
  '--disable-web-security',
  '--allow-running-insecure-content',
]);

interface Launched {
  wsEndpoint(): string;
  close(): Promise<void>;
}

export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-browser-'));
  const bundle = join(dir, 'puppeteer-core.cjs');
  await build({
    entryPoints: [require.resolve('puppeteer-core')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    logLevel: 'error',
  });
  const [{ default: chromium }, { default: puppeteer }] = await Promise.all([
    import('@sparticuz/chromium'),
    import('puppeteer-core'),
  ]);
  const [browser] = await Promise.all([
    puppeteer.launch({
      executablePath: await chromium.executablePath(),
      args: chromium.args.filter((arg) => !DROPPED_ARGS.has(arg)),
      headless: true,
    }),
    integrationSetup(),
  ]);
  (globalThis as Record<string, unknown>)[BROWSER_KEY] = browser as Launched;
  process.env[BROWSER_ENV.wsEndpoint] = browser.wsEndpoint();
  process.env[BROWSER_ENV.puppeteerBundle] = bundle;
}
