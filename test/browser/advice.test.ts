/**
 * What the console says next to what it offers: Send Test to a receiver whose certificate is
 * not trusted (as a self-signed one) shows the CLI's "what to do" advice (local mode's
 * `certs issue`), under the result and on the delivery's page; Send Test says it is sent at
 * once, outside the rate limit; Resend, Retry and Recover say they use the connection as it is
 * now and wait for its rate limit.
 */

import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import type { LocalApi } from '../../local/api-server';
import { createLocalPki } from '../../local/tls';
import { respond } from '../support/receivers';
import { byRole, clickButton, screenshot, waitForText } from './support/browser';
import { type ConsoleHarness, startConsoleHarness } from './support/console-harness';

const applicationId = `app_advice_${randomBytes(6).toString('hex')}`;
/**
 * A receiver certificate from a CA of its own, which the dispatcher does not trust (as a
 * self-signed one): it answers UNABLE_TO_VERIFY_LEAF_SIGNATURE, which the advice matches with
 * DEPTH_ZERO_SELF_SIGNED_CERT and the other untrusted-certificate codes.
 */
const untrusted = createLocalPki();

let harness: ConsoleHarness;
let api: LocalApi;
let page: Page;
let connectionId: string;

const textOf = (p: Page, selector: string) => p.$eval(selector, (el) => el.textContent ?? '');

beforeAll(async () => {
  harness = await startConsoleHarness({
    applicationId,
    behaviour: respond(200, '{"received":true}'),
    receiverPki: untrusted,
    seed: async ({ management, receiver }) => {
      const con = await management.connections.create({
        applicationId,
        name: 'Local CRM',
        url: `${receiver.url}/hooks`,
        rateLimit: 5,
      });
      connectionId = con.connectionId;
    },
  });
  ({ api } = harness);
  ({ page } = await harness.openPage());
});

afterAll(async () => {
  await harness?.close();
});

describe('what the console says beside Send Test and Resend', () => {
  it('shows what to do under a Send Test the receiver with an untrusted certificate failed', async () => {
    await page.goto(harness.consoleUrl);
    await byRole(page, 'link', 'Local CRM');
    await page.goto(`${api.origin}/console/#/connections/${connectionId}`);
    await byRole(page, 'button', 'Send Test');
    await waitForText(page, 'Sends one signed test event to the URL at once');
    await waitForText(page, 'It is not held to the rate limit.');
    await waitForText(
      page,
      "Retry and Recover send to the connection's current URL, method, headers and secret",
    );

    await clickButton(page, 'Send Test');
    await byRole(page, 'region', 'Test result');
    await page.waitForSelector('.test-result .advice');
    const result = await textOf(page, '.test-result');
    expect(result).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    const advice = await textOf(page, '.test-result .advice');
    expect(advice).toMatch(
      /^What to do: the receiver's certificate is not signed by a CA the dispatcher trusts/,
    );
    expect(advice).toContain('npx webhooks --local certs issue --out ./certs');
    await screenshot(page, '40-send-test-untrusted-certificate');
  });

  it("shows the same advice on the delivery's page, and what Resend sends to", async () => {
    await (await page.waitForSelector('.test-result a[href*="deliveries"]'))!.click();
    await waitForText(page, 'Request body');
    await page.waitForSelector('.attempt .advice');
    expect(await textOf(page, '.attempt .advice')).toContain(
      'npx webhooks --local certs issue --out ./certs',
    );
    expect(await textOf(page, '.resend-terms')).toBe(
      "It goes to the connection's current URL, method, headers and secret, not those of the first attempt, and waits for the connection's rate limit like any delivery (a resent test too).",
    );
    await screenshot(page, '41-delivery-untrusted-certificate');
  });
});
