/**
 * Local mode's state file: where `npm start` tells the CLI (`--local`) and other tools
 * which endpoints and resources the running pipeline uses.
 */

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { WebhookResources } from '../lambdas/management/types';
import { localSdkEnv } from './constants';
import type { LocalEndpoints } from './emulators';
import { privateDir, writePrivateFile } from './private-files';

export interface LocalState {
  pid: number;
  startedAt: string;
  region: string;
  endpoints: LocalEndpoints;
  resources: WebhookResources;
  /** PEM file of local mode's CA (kept across restarts), which signed the demo receiver's certificate. */
  caFile: string;
  /** Its private key, for `npx webhooks --local certs issue`. */
  caKeyFile?: string;
  /** Where queues, tables and secrets are kept across restarts; absent when they live in memory. */
  persistDir?: string;
  /** Other CA files local mode trusts (NODE_EXTRA_CA_CERTS, WEBHOOKS_EXTRA_CA_FILE), so the CLI's test sends trust them too. */
  extraCaFiles?: string[];
  /** Ports local deliveries may use (443 plus the demo receivers'). */
  allowedPorts: number[];
  /** Demo receiver URL, for examples. */
  demoReceiverUrl?: string;
  /** How long its dispatcher caches a connection (absent in the state file of an older local mode). */
  connectionCacheTtlMs?: number;
}

/** `.local/` in the project directory: local mode's state file, CA and (by default) data. */
export const LOCAL_DIR = join(__dirname, '..', '.local');

/** `$WEBHOOKS_STATE_FILE`, or `.local/state.json` in the project directory. */
export function stateFilePath(): string {
  return process.env.WEBHOOKS_STATE_FILE
    ? resolve(process.env.WEBHOOKS_STATE_FILE)
    : join(LOCAL_DIR, 'state.json');
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readIfAny(path: string): LocalState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LocalState;
  } catch {
    return undefined;
  }
}

/**
 * Refuses to start a second local mode on the same state file while the first runs: it would
 * overwrite the file, then delete it on exit, cutting the running one off from the CLI.
 */
export function assertStateFileFree(path = stateFilePath(), pid = process.pid): void {
  const other = readIfAny(path);
  if (other && other.pid !== pid && isRunning(other.pid)) {
    throw new Error(
      `local mode is already running (pid ${other.pid}, since ${other.startedAt}) with the state file ${path}. ` +
        'Use that one (npx webhooks --local …), stop it first (Ctrl-C in its terminal), or run another with ' +
        'its own state file: WEBHOOKS_STATE_FILE=/tmp/webhooks-2/state.json npm start',
    );
  }
}

export function writeState(state: LocalState, path = stateFilePath()): void {
  assertStateFileFree(path, state.pid);
  privateDir(dirname(path));
  writePrivateFile(path, `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file, only if it is still this process's (never another instance's). */
export function removeState(path = stateFilePath(), pid = process.pid): void {
  const current = readIfAny(path);
  if (current === undefined || current.pid === pid) rmSync(path, { force: true });
}

/** Reads the state of a running `npm start`, or explains how to get one. */
export function readState(path = stateFilePath()): LocalState {
  if (!existsSync(path)) {
    throw new Error(`local mode is not running (no ${path}); start it with: npm start`);
  }
  const state = JSON.parse(readFileSync(path, 'utf8')) as LocalState;
  if (!isRunning(state.pid)) {
    throw new Error(`local mode (pid ${state.pid}) is no longer running; start it with: npm start`);
  }
  return state;
}

/** Management options that point the unchanged SDK clients at the local emulators. */
export function localManagementEnv(state: LocalState): Record<string, string> {
  return localSdkEnv(state.endpoints, state.region);
}
