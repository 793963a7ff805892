/**
 * Starts the local AWS emulators once for the integration project, in a child process
 * (fauxqs is ESM-only), and exports their environment: Jest workers inherit process.env,
 * so the unchanged SDK clients and loadConfig() find the emulators and resources.
 * Another project's setup calling this shares the running emulators (helpers/global-state.ts).
 */
import { resolve } from 'node:path';
import { startEmulatorsProcess, TEST_ENV } from './helpers/emulators-process';
import { EMULATORS_KEY, type SharedEmulators } from './helpers/global-state';

const READY_TIMEOUT_MS = 60_000;

export default async function globalSetup(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const shared = state[EMULATORS_KEY] as SharedEmulators | undefined;
  if (shared) {
    shared.users += 1;
    return;
  }
  const { child, ready } = await startEmulatorsProcess(resolve(__dirname, '..', '..'), READY_TIMEOUT_MS);
  state[EMULATORS_KEY] = { child, users: 1 } satisfies SharedEmulators;
  Object.assign(process.env, ready.env, {
    [TEST_ENV.caFile]: ready.caFile,
    [TEST_ENV.certFile]: ready.certFile,
    [TEST_ENV.keyFile]: ready.keyFile,
  });
}
