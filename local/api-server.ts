/**
 * Local mode's management API and console: the same Hono app as the management Lambda,
 * served by Node on loopback only, with the console signing key kept in the local Secrets
 * Manager (so `webhooks --local console` can mint links too).
 */

import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  ResourceExistsException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { getRequestListener } from '@hono/node-server';
import { createApi } from '../lambdas/api/app';
import type { WebhookManagement } from '../lambdas/management';
import { generateSessionKeyText } from '../lambdas/management/console-session';
import { close, LOCAL_HOST, listen, refuseForeignHost } from './listen';

/** Port of local mode's API and console unless `--api-port` says otherwise. */
export const DEFAULT_API_PORT = 8790;
/** Name of the console signing key in the local Secrets Manager (outside the connection-secret prefix). */
export const LOCAL_CONSOLE_KEY_SECRET = 'webhooks-local/console-session-key';
/** Where `npm run build:console` writes the console (console/build.ts). */
export const CONSOLE_DIST_DIR = join(__dirname, '..', 'dist', 'console');

/** The console's build script in a source checkout (absent from an installed package). */
const CONSOLE_BUILD_SCRIPT = join(__dirname, '..', 'console', 'build.ts');

export interface PreparedConsole {
  /** Directory the API serves /console/ from. */
  dir: string;
  /** Gzipped size of the three files when built now. */
  gzipBytes?: number;
  /** Why the console could not be built (it is then served from dist/console if present, else a 503 page). */
  problem?: string;
}

/**
 * In a source checkout, builds the console into `outDir` at every start (so it is never
 * stale); otherwise serves the prebuilt dist/console.
 */
export async function prepareConsole(outDir: string): Promise<PreparedConsole> {
  if (!existsSync(CONSOLE_BUILD_SCRIPT)) return { dir: CONSOLE_DIST_DIR };
  try {
    const { buildConsole } = (await import(CONSOLE_BUILD_SCRIPT)) as {
      buildConsole(dir: string): Promise<{ gzipBytes: number }>;
    };
    const built = await buildConsole(outDir);
    return { dir: outDir, gzipBytes: built.gzipBytes };
  } catch (error) {
    return { dir: CONSOLE_DIST_DIR, problem: (error as Error).message };
  }
}

/** Creates the signing key once; an existing one (persisted state) is kept, so old links stay valid. */
export async function ensureConsoleKey(
  sm: SecretsManagerClient,
  name = LOCAL_CONSOLE_KEY_SECRET,
): Promise<string> {
  try {
    await sm.send(
      new CreateSecretCommand({
        Name: name,
        SecretString: generateSessionKeyText(),
        Description: 'Signs console sessions of local mode',
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceExistsException) && (error as Error).name !== 'ResourceExistsException')
      throw error;
  }
  return name;
}

export interface LocalApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** True when the requested port was taken and another one was chosen. */
  readonly movedFrom?: number;
  close(): Promise<void>;
}

export interface LocalApiOptions {
  management: WebhookManagement;
  /** 0 = any free port. @default DEFAULT_API_PORT, or any free port when that one is taken */
  port?: number;
  /** Fail instead of choosing another port when `port` is taken (an explicit `--api-port`). */
  strictPort?: boolean;
  /** @default CONSOLE_DIST_DIR */
  consoleDir?: string | false;
  clock?: () => number;
  /** The dispatcher checks a down endpoint by itself: the index says so. @default true */
  recoveryChecks?: boolean;
  /**
   * Served at `GET /metrics` with no authentication: the server listens on loopback only and
   * answers only requests addressed to it by a loopback name (docs/operations.md, Metrics).
   * Absent: `/metrics` is the API's 404.
   */
  metrics?: { contentType: string; text(): Promise<string> };
}

export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const app = createApi({
    management: options.management,
    sessionKey: options.management.consoleSessionKey(),
    consoleDir: options.consoleDir ?? CONSOLE_DIST_DIR,
    clock: options.clock,
    mode: 'local',
    recoveryChecks: options.recoveryChecks ?? true,
  });
  const api = getRequestListener(app.fetch);
  const { metrics } = options;
  const server: Server = createServer((req, res) => {
    // /metrics needs no key and the console page is public: both rely on this check (listen.ts).
    if (refuseForeignHost(req, res)) return;
    if (metrics && req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      metrics.text().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        (error: unknown) =>
          res
            .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
            .end(`metrics could not be read: ${error instanceof Error ? error.message : String(error)}\n`),
      );
      return;
    }
    void api(req, res);
  });
  const wanted = options.port ?? DEFAULT_API_PORT;
  let origin: string;
  let movedFrom: number | undefined;
  try {
    origin = await listen(server, wanted, LOCAL_HOST);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.strictPort || wanted === 0) {
      throw new Error(
        `the management API cannot listen on ${LOCAL_HOST}:${wanted}: ${(error as Error).message}`,
      );
    }
    origin = await listen(server, 0, LOCAL_HOST);
    movedFrom = wanted;
  }
  return { origin, movedFrom, close: () => close(server) };
}
