/**
 * The console on a 400 px wide screen, and its charts at the default range: no page scrolls
 * sideways (a delivery's long ids wrap), every column of a table stays in view (rows stack), and
 * the charts' tick labels keep a readable size and never overlap, on a phone and on a desktop.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import type { LocalApi } from '../../local/api-server';
import { parkedAt } from '../support/fixtures';
import { respond } from '../support/receivers';
import { byRole, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_narrow_${randomBytes(6).toString('hex')}`;
const PHONE = { width: 400, height: 860 };
const DESKTOP = { width: 1280, height: 900 };

let harness: ConsoleHarness;
let api: LocalApi;
let page: Page;
let connectionId: string;

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  height: number;
}
interface PageGlobals {
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(s: string): Array<{ getBoundingClientRect(): Box; textContent: string | null }>;
  };
  innerWidth: number;
}

const scrollWidth = (p: Page) =>
  p.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth);

/** Every cell of the table's rows that lies (partly) outside the viewport, by column. */
async function cellsOutOfView(p: Page, table: string): Promise<string[]> {
  return p.evaluate((selector) => {
    const g = globalThis as unknown as PageGlobals;
    if (g.document.querySelectorAll(`${selector} tbody td`).length === 0) return ['no cells'];
    return Array.from(g.document.querySelectorAll(`${selector} tbody td`))
      .filter((td) => {
        const r = td.getBoundingClientRect();
        return r.left < 0 || r.right > g.innerWidth + 0.5;
      })
      .map((td) => (td.textContent ?? '').slice(0, 30));
  }, table);
}

/** The x-axis labels of each chart: size, and pairs that overlap. */
async function tickLabels(p: Page) {
  return p.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    const charts = Array.from(g.document.querySelectorAll('svg.chart')) as unknown as Array<{
      getAttribute(n: string): string | null;
      querySelectorAll(s: string): Array<{ getBoundingClientRect(): Box; textContent: string | null }>;
    }>;
    return charts.map((svg) => {
      const groups = Array.from(svg.querySelectorAll('g.axis'));
      const xAxis = groups.at(-1) as unknown as {
        querySelectorAll(s: string): Array<{ getBoundingClientRect(): Box; textContent: string | null }>;
      };
      const boxes = Array.from(xAxis.querySelectorAll('text')).map((t) => ({
        text: t.textContent,
        box: t.getBoundingClientRect(),
      }));
      const frame = (svg as unknown as { getBoundingClientRect(): Box }).getBoundingClientRect();
      const clipped = boxes
        .filter((b) => b.box.left < frame.left - 0.5 || b.box.right > frame.right + 0.5)
        .map((b) => b.text);
      const overlaps = boxes
        .slice(1)
        .filter((b, i) => b.box.left < boxes[i]!.box.right + 2)
        .map((b) => b.text);
      return {
        chart: svg.getAttribute('aria-label'),
        labels: boxes.length,
        minHeight: Math.min(...boxes.map((b) => b.box.height)),
        overlaps,
        clipped,
        bars: svg.querySelectorAll('g > title').length,
      };
    });
  });
}

beforeAll(async () => {
  const parkedStore = new DynamoParked({ tableName: process.env[ENV.parkedTable]! });
  const health = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! }).health;
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(503, '{"error":"down"}'),
    seed: async ({ management, receiver }) => {
      await management.connections.create({
        applicationId,
        name: 'Billing with a rather long connection name',
        url: `${receiver.url}/billing/webhooks/v2/incoming-events-from-the-crm`,
      });
      const con = await management.connections.create({
        applicationId,
        name: 'CRM',
        url: `${receiver.url}/hooks/a/long/path/that/does/not/break/on/its/own`,
        headers: { 'X-Team': 'crm' },
      });
      connectionId = con.connectionId;
      for (let i = 0; i < 3; i++) await management.sendTest(connectionId);
      const since = new Date(Date.now() - 30 * 60_000).toISOString();
      await health.write(
        connectionId,
        { state: 'failing', consecutiveFailures: 3, failingSince: since, lastFailureAt: since, version: 1 },
        0,
      );
      for (let i = 0; i < 2; i++) {
        const at = Date.now() - (20 - i) * 60_000;
        await parkedStore.park(
          parkedAt(connectionId, applicationId, at, {
            lastError: 'receiver answered HTTP 503 with a long explanation of why it is down today',
          }),
        );
      }
    },
  });
  ({ api } = harness);
  ({ page } = await harness.openPage());
  await page.setViewport(PHONE);
  await page.goto(harness.consoleUrl);
});

afterAll(async () => {
  await harness?.close();
});

describe('the console on a 400 px wide screen', () => {
  it('lists connections without sideways scrolling, every column in view', async () => {
    await byRole(page, 'link', 'CRM');
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(await cellsOutOfView(page, 'main table')).toEqual([]);
    await screenshot(page, '30-connections-400px');
  });

  it('shows a connection without sideways scrolling: attempts and parked deliveries in view', async () => {
    await page.goto(`${api.origin}/console/#/connections/${connectionId}`);
    await byRole(page, 'table', 'Attempts');
    await byRole(page, 'table', 'Parked deliveries');
    await waitForText(page, 'Attempts by outcome');
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    expect(await cellsOutOfView(page, 'table[aria-label="Attempts"]')).toEqual([]);
    expect(await cellsOutOfView(page, 'table[aria-label="Parked deliveries"]')).toEqual([]);
    // Health in short labelled parts, not one long sentence.
    expect(await page.$$eval('.health-parts dt', (dts) => dts.map((dt) => dt.textContent))).toEqual([
      'State',
      'Failing since',
      'Parked',
      'Last failure',
    ]);
    await screenshot(page, '31-connection-400px');
  });

  it('shows a delivery without sideways scrolling: its long ids wrap', async () => {
    const link = await page.$eval('table[aria-label="Attempts"] tbody a', (a) => a.getAttribute('href'));
    await page.goto(`${api.origin}/console/${link}`);
    await waitForText(page, 'Request body');
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    // The breadcrumb names the connection; times name their zone.
    await byRole(page, 'link', 'CRM');
    const zone = await page.evaluate(
      () =>
        new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
          .formatToParts(new Date())
          .find((p) => p.type === 'timeZoneName')?.value,
    );
    const times = await page.$$eval('.attempt .card-head > span', (spans) => spans.map((s) => s.textContent));
    expect(times.length).toBeGreaterThan(0);
    for (const time of times)
      expect({ time, zoned: time?.endsWith(` ${zone}`) }).toEqual({ time, zoned: true });
    await screenshot(page, '33-delivery-400px');
    await page.goto(`${api.origin}/console/#/connections/${connectionId}`);
    await byRole(page, 'table', 'Attempts');
  });

  it('draws the default range (24 hourly buckets) with tick labels readable and apart', async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewport(viewport);
      // Drawn at the width shown: the SVG's own width is its figure's.
      await page.waitForFunction(() => {
        const svg = (globalThis as any).document.querySelector('svg.chart');
        const figure = svg?.parentElement?.getBoundingClientRect().width ?? 0;
        return svg && Math.abs(Number(svg.getAttribute('width')) - figure) < 2;
      });
      const charts = await tickLabels(page);
      expect(charts).toHaveLength(2);
      for (const chart of charts) {
        expect({ viewport: viewport.width, ...chart }).toEqual({
          viewport: viewport.width,
          chart: chart.chart,
          labels: expect.any(Number),
          minHeight: expect.any(Number),
          overlaps: [],
          clipped: [],
          bars: chart.bars,
        });
        expect(chart.labels).toBeGreaterThanOrEqual(2);
        expect(chart.minHeight).toBeGreaterThanOrEqual(10);
      }
      expect(charts[0]!.bars).toBe(24);
      await screenshot(page, `32-charts-${viewport.width}px`);
    }
  });
});
