/**
 * What every console walk needs: the console built into a temporary folder, a session key in
 * the local Secrets Manager, a real HTTPS receiver, the management library on the emulators,
 * local mode's API serving both, a console link for one application, and pages of the shared
 * Chromium to open it in (each closed with the harness).
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { buildConsole } from '../../../console/build';
import { WebhookManagement } from '../../../lambdas/management';
import { ensureConsoleKey, type LocalApi, startLocalApi } from '../../../local/api-server';
import type { LocalPki } from '../../../local/tls';
import { testPki } from '../../support/pki';
import { type Behaviour, type Receiver, startReceiver } from '../../support/receivers';
import { resourcesFromEnv } from '../../support/resources';
import { connectBrowser, newUserPage } from './browser';

export interface ConsoleHarness {
  receiver: Receiver;
  management: WebhookManagement;
  api: LocalApi;
  consoleUrl: string;
  /** A new user's page (a browser context of its own) on the shared Chromium. */
  openPage(): Promise<{ context: BrowserContext; page: Page }>;
  /** Closes the pages opened, the API, the receiver and the built console. */
  close(): Promise<void>;
}

export async function startConsoleHarness(options: {
  applicationId: string;
  behaviour: Behaviour;
  /** The receiver's certificate and key (default: the test PKI's, which the dispatcher trusts). */
  receiverPki?: LocalPki;
  /** Runs before the API starts (seed data). */
  seed?: (h: { management: WebhookManagement; receiver: Receiver }) => Promise<void>;
}): Promise<ConsoleHarness> {
  const consoleDir = mkdtempSync(join(tmpdir(), 'webhooks-console-'));
  const sm = new SecretsManagerClient({});
  const [, consoleKeySecret, receiver] = await Promise.all([
    buildConsole(consoleDir),
    ensureConsoleKey(sm, `webhooks-test/console-key-${randomBytes(4).toString('hex')}`),
    startReceiver(options.behaviour, options.receiverPki),
  ]);
  sm.destroy();
  const management = new WebhookManagement({
    resources: resourcesFromEnv({ consoleKeySecret }),
    allowLoopback: true,
    allowedPorts: [443, receiver.port],
    ca: [testPki().caPem],
  });
  await options.seed?.({ management, receiver });
  const api = await startLocalApi({ management, port: 0, consoleDir });
  const { consoleUrl } = await management.createConsoleSession({
    applicationId: options.applicationId,
    apiUrl: api.origin,
  });
  let browser: Promise<Browser> | undefined;
  const contexts: BrowserContext[] = [];
  return {
    receiver,
    management,
    api,
    consoleUrl,
    async openPage() {
      browser ??= connectBrowser();
      const opened = await newUserPage(await browser);
      contexts.push(opened.context);
      return opened;
    },
    close: async () => {
      for (const context of contexts) await context.close().catch(() => {});
      if (browser)
        await browser.then(
          (b) => b.disconnect(),
          () => {},
        );
      await api.close();
      await receiver.close();
      rmSync(consoleDir, { recursive: true, force: true });
    },
  };
}
