/**
 * The management HTTP API on the emulators for the API tests: local mode's API server in front of
 * a management library, a receiver on loopback, a console key, the attempt log and parked table
 * to seed, and `call`, which answers with status, parsed body, text and headers.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoAttempts } from '../../../lambdas/adapters/dynamodb/attempts';
import { DynamoConnections } from '../../../lambdas/adapters/dynamodb/connections';
import { DynamoParked } from '../../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../../lambdas/config';
import { attemptShardSteps } from '../../../lambdas/core/attempt-shards';
import { WebhookManagement, type WebhookResources } from '../../../lambdas/management';
import { ensureConsoleKey, type LocalApi, startLocalApi } from '../../../local/api-server';
import { testPki } from '../../support/pki';
import { type Receiver, startReceiver } from '../../support/receivers';
import { resourcesFromEnv } from '../../support/resources';

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export interface ApiHarness {
  receiver: Receiver;
  management: WebhookManagement;
  api: LocalApi;
  /** The key that signs console sessions. */
  key: Uint8Array;
  attemptLog: DynamoAttempts;
  parkedStore: DynamoParked;
  resources: WebhookResources;
  /** Where the API serves the console from (a stand-in index.html, app.js and app.css). */
  consoleDir: string;
  call(
    method: string,
    path: string,
    options?: { token?: string; json?: unknown; raw?: string; contentType?: string },
  ): Promise<Answer>;
  /** A console session token of the application. */
  tokenFor(applicationId: string): Promise<string>;
  /** Adds a connection through the API (201 expected); `input` overrides name and URL. */
  createVia(app: string, token: string, input?: Record<string, unknown>): Promise<{ connectionId: string }>;
  close(): Promise<void>;
}

export const appPath = (app: string, rest = '') => `/api/v1/applications/${app}${rest}`;

/** `resources`: settings over the emulators' (e.g. `deliverySearch: false`). */
export async function startApiHarness(overrides: Partial<WebhookResources> = {}): Promise<ApiHarness> {
  const receiver = await startReceiver();
  const consoleKeySecret = await ensureConsoleKey(
    new SecretsManagerClient({}),
    `webhooks-test/console-key-${randomBytes(4).toString('hex')}`,
  );
  // The ceiling a stack has unless its operator sets another (core/rate-limit.ts).
  const resources = resourcesFromEnv({ consoleKeySecret, rateLimitCeiling: 1_000, ...overrides });
  const management = new WebhookManagement({
    resources,
    allowLoopback: true,
    allowedPorts: [443, receiver.port],
    ca: [testPki().caPem],
  });
  const consoleDir = mkdtempSync(join(tmpdir(), 'wh-console-'));
  writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(consoleDir, 'app.js'), 'export {};');
  writeFileSync(join(consoleDir, 'app.css'), 'body{}');
  const api = await startLocalApi({ management, port: 0, consoleDir });

  const call: ApiHarness['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.json !== undefined || options.raw !== undefined) {
      body = options.raw ?? JSON.stringify(options.json);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const res = await fetch(`${api.origin}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  };

  const connections = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]! });
  return {
    receiver,
    management,
    api,
    key: await management.consoleSessionKey().get(),
    attemptLog: new DynamoAttempts({
      tableName: process.env[ENV.attemptsTable]!,
      // Placed as the dispatcher places them: by the connection's shards.
      shards: async (connectionId) => attemptShardSteps(await connections.get(connectionId)),
      // Delivery search on, as the dispatcher has it by default.
      lookups: true,
    }),
    parkedStore: new DynamoParked({ tableName: process.env[ENV.parkedTable]! }),
    resources,
    consoleDir,
    call,
    async tokenFor(applicationId) {
      return (await management.createConsoleSession({ applicationId, apiUrl: api.origin })).token;
    },
    async createVia(app, token, input = {}) {
      const res = await call('POST', appPath(app, '/connections'), {
        token,
        json: { name: 'CRM', url: receiver.url, ...input },
      });
      expect(res.status).toBe(201);
      return res.body as { connectionId: string };
    },
    async close() {
      await api.close();
      await receiver.close();
    },
  };
}
