/**
 * A new user walks the web console against the real management API of local mode (emulators,
 * a real HTTPS receiver on loopback, a real Chromium): opens the console link, adds a webhook
 * connection, reveals its secret, sends a test and finds it in the attempt log, and sees what a
 * hostile receiver answers as plain characters. Every page visited is saved as a screenshot.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import type { WebhookManagement } from '../../lambdas/management';
import { mintSessionToken } from '../../lambdas/management/console-session';
import { verifyWebhook } from '../../lambdas/receiver';
import type { LocalApi } from '../../local/api-server';
import { type Receiver, respond } from '../support/receivers';
import { bodyText, byRole, clickButton, field, fill, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_browser_${randomBytes(6).toString('hex')}`;
const HOSTILE_BODY =
  '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold claim</b>';

let harness: ConsoleHarness;
let receiver: Receiver;
let management: WebhookManagement;
let api: LocalApi;
let page: Page;
let consoleUrl: string;
let shownSecret: string;
/** Script errors and console errors of the walk's page, except HTTP errors the API answers on purpose. */
const pageErrors: string[] = [];

beforeAll(async () => {
  harness = await startConsoleHarness({ applicationId, behaviour: respond(200, '{"received":true}') });
  ({ receiver, management, api, consoleUrl } = harness);
  ({ page } = await harness.openPage());
  page.on('pageerror', (error) => pageErrors.push(`script error: ${(error as Error).message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      pageErrors.push(message.text());
  });
});

afterAll(async () => {
  await harness?.close();
});

describe('the web console, walked by a new user', () => {
  it('opens the console link, keeps the session and takes the token out of the address bar', async () => {
    await page.goto(consoleUrl);
    await byRole(page, 'heading', 'CRM Connections');
    await waitForText(page, 'No connections yet');
    expect(page.url()).toBe(`${api.origin}/console/`);
    expect(await page.title()).toBe('CRM Connections · Webhooks');
    expect(page.url()).not.toContain('token');
    const stored = await page.evaluate(
      () => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length,
    );
    expect(stored).toBe(1);
    await screenshot(page, '01-connections-empty');
  });

  it('asks for the type first: a labelled Type selector with Webhook', async () => {
    await clickButton(page, 'Add connection');
    await byRole(page, 'heading', 'Add connection');
    const type = await field(page, 'Type');
    expect(await type.evaluate((el) => [(el as any).value, el.textContent])).toEqual(['webhook', 'Webhook']);
    const order = await page.$$eval('main form label', (labels) => labels.map((l) => l.textContent));
    expect(order).toEqual([
      'Type',
      'Name',
      'URL',
      'Method',
      'Rate limit (deliveries per second)',
      'Headers',
      'Automatic recovery',
    ]);
  });

  it('shows every broken rule at once, in words, beside its field, before sending anything', async () => {
    const posts: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === 'POST') posts.push(request.url());
    };
    page.on('request', onRequest);
    await fill(page, 'Name', '');
    await fill(page, 'URL', 'http://crm.example.com/hooks');
    await fill(page, 'Headers', '{"X-Team": ');
    await clickButton(page, 'Add connection');
    await waitForText(page, 'URL must start with https://');
    page.off('request', onRequest);
    expect(posts).toEqual([]);
    // Each error is inside its field's block and named by the input's aria-describedby.
    const shown = await page.$$eval('form .field', (fields) =>
      fields.map((f) => {
        const input = f.querySelector('input, select, textarea')!;
        const error = f.querySelector('.field-error');
        return {
          label: f.querySelector('label')?.textContent,
          invalid: input.getAttribute('aria-invalid'),
          error: error?.textContent ?? null,
          described: error
            ? (input.getAttribute('aria-describedby') ?? '').split(' ').includes(error.id)
            : null,
        };
      }),
    );
    expect(shown).toEqual([
      { label: 'Type', invalid: null, error: null, described: null },
      { label: 'Name', invalid: 'true', error: expect.stringMatching(/^Name is required/), described: true },
      {
        label: 'URL',
        invalid: 'true',
        // Local mode (its API's index says so): the next step for an http:// receiver on this machine.
        error: expect.stringMatching(/^URL must start with https:\/\/\. .*npx webhooks --local certs issue/),
        described: true,
      },
      { label: 'Method', invalid: null, error: null, described: null },
      { label: 'Rate limit (deliveries per second)', invalid: null, error: null, described: null },
      {
        label: 'Headers',
        invalid: 'true',
        error: expect.stringMatching(/^Headers is not valid JSON/),
        described: true,
      },
      { label: 'Automatic recovery', invalid: null, error: null, described: null },
    ]);
    // Focus is on the first field to fix.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe('name');
    await screenshot(page, '02-add-connection-errors');
  });

  it("shows the API's refusal of a field in words beside it", async () => {
    await fill(page, 'Name', 'CRM');
    await fill(page, 'Headers', '{"X-Team": "crm"}');
    await fill(page, 'URL', 'https://crm.example.com:8443/hooks');
    await clickButton(page, 'Add connection');
    const url = await field(page, 'URL');
    await page.waitForFunction((el) => el.getAttribute('aria-invalid') === 'true', {}, url);
    const text = await bodyText(page);
    expect(text).not.toContain('Headers is not valid JSON');
    expect(text).not.toContain('Name is required');
    expect(text).toContain('URL not accepted: port 8443 is not allowed');
    expect(text).not.toMatch(/^url:/m);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe('url');
  });

  it('adds a webhook connection to a local HTTPS receiver', async () => {
    await fill(page, 'URL', receiver.url);
    await screenshot(page, '03-add-connection');
    await clickButton(page, 'Add connection');
    await byRole(page, 'heading', 'Signing secret');
    await waitForText(page, 'No delivery attempts yet');
    await waitForText(page, 'Nothing to chart in this range');
    const text = await bodyText(page);
    expect(text).toContain('CRM');
    expect(text).toContain(receiver.url);
    expect(text).toContain('Enabled');
    expect(text).toContain('X-Team');
    expect(text).toContain('No delivery attempts yet');
  });

  it('reveals the secret with Show Secret', async () => {
    await clickButton(page, 'Show Secret');
    await page.waitForSelector('code.secret');
    shownSecret = await page.$eval('code.secret', (el) => el.textContent ?? '');
    expect(shownSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('sends a test the receiver verifies with that secret, and finds it in the attempt log', async () => {
    const before = receiver.requests.length;
    await clickButton(page, 'Send Test');
    await byRole(page, 'region', 'Test result');
    await waitForText(page, 'Delivered');
    const [received] = (await receiver.waitFor(before + 1)).slice(before);
    const verified = verifyWebhook({
      rawBody: received!.body,
      headers: received!.headers,
      secret: shownSecret,
    });
    expect(verified.deliveryId).toMatch(/^dlv_/);

    const result = await page.$eval('[aria-label="Test result"]', (el) => el.textContent ?? '');
    expect(result).toContain('200');
    expect(result).toContain('{"received":true}');
    expect(result).toContain(verified.deliveryId!);

    const log = await byRole(page, 'table', 'Attempts');
    await page.waitForFunction(
      (el, id) => Boolean(el.querySelector(`a[href*="${id}"]`)),
      { timeout: 15_000 },
      log,
      verified.deliveryId!,
    );
    // The order said as it is: by when each attempt was sent (shown first), newest first.
    expect(await log.evaluate((el) => el.querySelector('caption')?.textContent ?? '')).toContain(
      'Ordered by when each attempt was sent, newest first.',
    );
    const row = await log.evaluate((el) => el.querySelector('tbody tr')?.textContent ?? '');
    expect(row).toContain('Delivered');
    expect(row).toContain('200');
    await waitForText(page, 'Attempts by outcome');
    await screenshot(page, '04-connection-detail');
  });

  it('shows a receiver answering with HTML and script as characters', async () => {
    receiver.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(HOSTILE_BODY);
    });
    await clickButton(page, 'Send Test');
    await waitForText(page, '<b>bold claim</b>');
    const snippet = await page.$eval('.test-result pre', (el) => ({
      text: el.textContent,
      elements: el.children.length,
    }));
    expect(snippet).toEqual({ text: HOSTILE_BODY, elements: 0 });
    const pwned = await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned);
    expect(pwned).toBeUndefined();
    await screenshot(page, '05-html-as-text');
    receiver.behave(respond(200, '{"received":true}'));
  });

  it("shows a failing receiver's status and answer, and charts it apart", async () => {
    receiver.behave(respond(503, '{"error":"down for maintenance"}'));
    await clickButton(page, 'Send Test');
    await waitForText(page, 'down for maintenance');
    const result = await page.$eval('[aria-label="Test result"]', (el) => el.textContent ?? '');
    expect(result).toContain('HTTP error');
    expect(result).toContain('503');
    await waitForText(page, '3 attempts · 2 delivered · 1 http error');
    await screenshot(page, '06-connection-detail-failure');
    receiver.behave(respond(200, '{"received":true}'));
  });

  it('opens a delivery with every attempt', async () => {
    await page.waitForSelector('table[aria-label="Attempts"] tbody tr:nth-child(3)');
    const link = await page.$('table[aria-label="Attempts"] tbody tr:nth-child(2) a[href*="deliveries"]');
    await link!.click();
    await byRole(page, 'heading', 'Delivery');
    await waitForText(page, 'Attempt 1');
    expect(await bodyText(page)).toContain(HOSTILE_BODY);
    await screenshot(page, '07-delivery');
  });

  it("shows each attempt's request as it went out, and the body once, as text", async () => {
    const request = await page.$eval('.attempt', (el) => el.textContent ?? '');
    expect(request).toContain(`POST ${receiver.url}`);
    const headers = await page.$$eval('table[aria-label="Request headers of attempt 1"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(headers).toContainEqual(['X-Team', '[hidden]']);
    expect(
      headers.some(([name, value]) => /-Signature$/.test(name!) && /^sha256=[0-9a-f]{64}$/.test(value!)),
    ).toBe(true);
    const body = await page.$eval('pre.request-body', (el) => ({
      text: el.textContent ?? '',
      elements: el.children.length,
    }));
    expect(JSON.parse(body.text)).toEqual(
      expect.objectContaining({
        event: 'user.identified',
        user: expect.objectContaining({ id: expect.any(String) }),
      }),
    );
    expect(body.elements).toBe(0);
    expect(await page.$$eval('pre.request-body', (els) => els.length)).toBe(1);
  });

  it('resends the delivery as its next attempt, then says why a second resend waits', async () => {
    await clickButton(page, 'Resend');
    await page.waitForSelector('.resend-result');
    expect(await page.$eval('.resend-result', (el) => el.textContent)).toBe('Queued again as attempt 2.');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.matches('.resend-result'));
    await waitForText(page, 'Resent afterwards as attempt 2.');

    await clickButton(page, 'Resend');
    const refusal = await page.waitForSelector('.form-error[role="alert"]');
    expect(await refusal!.evaluate((el) => el.textContent)).toMatch(/already queued again as attempt 2/);
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.matches('.form-error'));
    expect(await page.$('.resend-result')).toBeNull();
  });

  it('filters the attempt log', async () => {
    await page.goBack();
    await byRole(page, 'table', 'Attempts');
    const outcome = await field(page, 'Outcome');
    await outcome.select('timeout');
    await clickButton(page, 'Apply filters');
    await waitForText(page, 'No attempts match these filters');
    await outcome.select('delivered');
    await clickButton(page, 'Apply filters');
    await byRole(page, 'table', 'Attempts');
    const rows = await page.$$eval('table[aria-label="Attempts"] tbody tr', (trs) => trs.length);
    expect(rows).toBe(2);
  });

  it('edits the name, keeping the hidden header values, and rotates the secret', async () => {
    await clickButton(page, 'Edit');
    await byRole(page, 'heading', 'Edit connection');
    await fill(page, 'Name', 'CRM production');
    await clickButton(page, 'Save changes');
    await waitForText(page, 'CRM production');
    const [stored] = await management.connections.list({ applicationId });
    expect(stored).toMatchObject({ name: 'CRM production', headers: { 'X-Team': 'crm' } });

    // Rotate with the deployment's overlap: both secrets shown, the switch time with them.
    await clickButton(page, 'Rotate');
    await clickButton(page, 'Rotate now');
    await waitForText(page, 'New secret made. It signs deliveries from');
    const shown = await management.connections.showSecret(stored!.connectionId);
    expect(shown).toMatchObject({ secret: shownSecret, next: { secret: expect.stringMatching(/^whsec_/) } });
    const text = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
    // The panel shows both secrets once it has read them again after the rotation.
    await page.waitForSelector('code.secret[data-secret="next"]', { timeout: 10_000 });
    expect(await text('code.secret[data-secret="current"]')).toBe(shownSecret);
    expect(await text('code.secret[data-secret="next"]')).toBe(shown.next!.secret);
    // The time the API answers, to the millisecond, written in the browser's zone.
    expect(await page.$eval('.secret-next time', (el) => el.getAttribute('datetime'))).toBe(
      shown.next!.switchAt,
    );
    expect(Date.parse(shown.next!.switchAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    await waitForText(page, 'Next secret, signs deliveries from');
    await waitForText(page, 'Have your receiver accept both now');
    await screenshot(page, '07b-secret-rotation-pending');

    // Rotate again, at once: the new secret alone signs, and the panel shows it alone.
    await clickButton(page, 'Rotate');
    await screenshot(page, '07c-secret-rotate-confirm');
    await (await field(page, 'Switch to the new secret')).select('now');
    await clickButton(page, 'Rotate now');
    await waitForText(page, 'New secret in use at once');
    const now = await management.connections.showSecret(stored!.connectionId);
    expect(now.next).toBeUndefined();
    expect(now.secret).not.toBe(shownSecret);
    expect(await text('code.secret[data-secret="current"]')).toBe(now.secret);
    expect(await page.$('code.secret[data-secret="next"]')).toBeNull();
  });

  it('fits a phone screen without sideways scrolling', async () => {
    await page.setViewport({ width: 390, height: 844 });
    try {
      await page.reload();
      await byRole(page, 'table', 'Attempts');
      await waitForText(page, 'Attempts by outcome');
      const overflow = await page.evaluate(() => {
        const { document, innerWidth } = globalThis as unknown as {
          document: { documentElement: { scrollWidth: number } };
          innerWidth: number;
        };
        return document.documentElement.scrollWidth - innerWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, '08-connection-phone');
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
    }
  });

  it('lists the connection, then disables and deletes it after confirmation', async () => {
    await page.goto(`${api.origin}/console/#/connections`);
    await byRole(page, 'link', 'CRM production');
    await waitForText(page, 'Healthy');
    await screenshot(page, '09-connections');
    const title = await page.$eval('.badge.health-healthy', (el) => el.getAttribute('title'));
    expect(title).toBe('No failed deliveries in a row');
    await (await byRole(page, 'link', 'CRM production')).click();
    await clickButton(page, 'Disable');
    await waitForText(page, 'Disabled: new events are not sent');
    await clickButton(page, 'Delete');
    await waitForText(page, 'This cannot be undone');
    await screenshot(page, '10-delete-confirmation');
    await clickButton(page, 'Delete connection');
    await waitForText(page, 'No connections yet');
    await expect(management.connections.list({ applicationId })).resolves.toEqual([]);
  });

  it('ran the whole walk under the Content-Security-Policy without a script error', () => {
    expect(pageErrors).toEqual([]);
  });

  it('tells a visitor with an expired link that it expired and how to get a new one', async () => {
    const key = await management.consoleSessionKey().get();
    const { token } = await mintSessionToken(key, {
      applicationId,
      ttlSeconds: 60,
      now: Date.now() - 3_600_000,
    });
    const visitor = await harness.openPage();
    try {
      await visitor.page.goto(`${api.origin}/console/#token=${token}`);
      await byRole(visitor.page, 'heading', 'Your session has expired');
      // Local mode served it, so the command that works here has --local (the API's index says so).
      await waitForText(visitor.page, `npx webhooks --local console --application ${applicationId}`);
      expect(visitor.page.url()).not.toContain('token');
      await screenshot(visitor.page, '11-session-expired');
    } finally {
      await visitor.context.close();
    }
  });
});
