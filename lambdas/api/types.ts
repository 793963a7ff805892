/** Types shared by the API's parts. */

import type { WebhookManagement } from '../management';

/** Hono environment: what the session check leaves for the routes. */
export interface ApiEnv {
  Variables: { applicationId: string };
}

export interface ApiDeps {
  management: WebhookManagement;
  /** Signing key of console sessions (Secrets Manager, cached). */
  sessionKey: { get(): Promise<Uint8Array> };
  /** Epoch milliseconds; injectable for tests. @default Date.now */
  clock?: () => number;
  /**
   * Where the console's built files are (index.html, app.js, app.css), read per request;
   * `false` turns the console off (`/console/` is 404). @default false
   */
  consoleDir?: string | false;
  /** Largest request body accepted, bytes. @default 65 536 */
  maxBodyBytes?: number;
  /**
   * Where this API runs: `local` for local mode (`npm start`), `deployed` for a stack on AWS. The
   * index says so, with the CLI command that mints a console link there. @default 'deployed'
   */
  mode?: ApiMode;
  /** Whether the deployment checks a down endpoint by itself (`recoveryProbes`): the index says so. @default true */
  recoveryChecks?: boolean;
}

export type ApiMode = 'local' | 'deployed';
