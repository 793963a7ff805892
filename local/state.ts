/**
 * Local mode's state file: where `npm start` tells the CLI (`--local`) and other tools
 * which endpoints and resources the running pipeline uses.
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { WebhookResources } from '../lambdas/management/types';
import { localSdkEnv } from './constants';
import type { LocalEndpoints } from './emulators';

export interface LocalState {
  pid: number;
  startedAt: string;
  region: string;
  endpoints: LocalEndpoints;
  resources: WebhookResources;
  /** PEM file of the throwaway CA that signed the demo receiver's certificate. */
  caFile: string;
  /** Other CA files local mode trusts (NODE_EXTRA_CA_CERTS, WEBHOOKS_EXTRA_CA_FILE), so the CLI's test sends trust them too. */
  extraCaFiles?: string[];
  /** Ports local deliveries may use (443 plus the demo receivers'). */
  allowedPorts: number[];
  /** Demo receiver URL, for examples. */
  demoReceiverUrl?: string;
}

/** `$WEBHOOKS_STATE_FILE`, or `.local/state.json` in the project directory. */
export function stateFilePath(): string {
  return process.env.WEBHOOKS_STATE_FILE
    ? resolve(process.env.WEBHOOKS_STATE_FILE)
    : join(__dirname, '..', '.local', 'state.json');
}

export function writeState(state: LocalState, path = stateFilePath()): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export function removeState(path = stateFilePath()): void {
  rmSync(path, { force: true });
}

/** Reads the state of a running `npm start`, or explains how to get one. */
export function readState(path = stateFilePath()): LocalState {
  if (!existsSync(path)) {
    throw new Error(`local mode is not running (no ${path}); start it with: npm start`);
  }
  const state = JSON.parse(readFileSync(path, 'utf8')) as LocalState;
  try {
    process.kill(state.pid, 0);
  } catch {
    throw new Error(`local mode (pid ${state.pid}) is no longer running; start it with: npm start`);
  }
  return state;
}

/** Management options that point the unchanged SDK clients at the local emulators. */
export function localManagementEnv(state: LocalState): Record<string, string> {
  return localSdkEnv(state.endpoints, state.region);
}
