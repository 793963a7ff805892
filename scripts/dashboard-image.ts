/**
 * Draws the stack's dashboard layout for docs/operations.md#dashboard: synthesises the stack
 * with every default, writes docs/images/dashboard.svg from its dashboard body
 * (scripts/dashboard-svg.ts) and a PNG of it rendered by the headless Chromium of the browser
 * tests (@sparticuz/chromium with puppeteer-core). `npm run dashboard:image`; the infra test
 * test/infra/dashboard-image.test.ts fails when the SVG no longer matches lib/dashboard.ts.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { WebhookStack } from '../lib/webhook-stack';
import { dashboardBodyOf, dashboardSvg, widgetBoxes } from './dashboard-svg';

export const DASHBOARD_SVG = join(__dirname, '..', 'docs', 'images', 'dashboard.svg');
export const DASHBOARD_PNG = join(__dirname, '..', 'docs', 'images', 'dashboard.png');
export const DASHBOARD_CAPTION = 'Webhooks dashboard (the stack with every default; 5-minute periods)';

/** The SVG of the default stack's dashboard. */
export function defaultDashboardSvg(): string {
  // No Lambda bundling: the dashboard does not depend on the code.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new WebhookStack(app, 'Webhooks');
  const template = app.synth().getStackByName(stack.stackName).template;
  return dashboardSvg(widgetBoxes(dashboardBodyOf(template)), DASHBOARD_CAPTION);
}

async function main(): Promise<void> {
  const svg = defaultDashboardSvg();
  writeFileSync(DASHBOARD_SVG, svg);
  const [{ default: chromium }, { default: puppeteer }] = await Promise.all([
    import('@sparticuz/chromium'),
    import('puppeteer-core'),
  ]);
  const browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args,
    headless: true,
  });
  try {
    const page = await browser.newPage();
    const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(svg)!.map(Number);
    await page.setViewport({ width: width!, height: height!, deviceScaleFactor: 1 });
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    await page.screenshot({ path: DASHBOARD_PNG, clip: { x: 0, y: 0, width: width!, height: height! } });
  } finally {
    await browser.close();
  }
  process.stdout.write(`wrote ${DASHBOARD_SVG} and ${DASHBOARD_PNG}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`dashboard-image: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
