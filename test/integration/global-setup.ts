/**
 * Starts the local AWS emulators once for the integration project, on the harness's emulator
 * host (test/support/emulators.ts, a child process: fauxqs is ESM-only), and exports their
 * environment: Jest workers inherit process.env, so the unchanged SDK clients and loadConfig()
 * find the emulators and resources. Another project's setup calling this shares the running
 * emulators (helpers/global-state.ts).
 */
import { startLocalAws } from '../support/emulators';
import { EMULATORS_KEY, type SharedEmulators } from './helpers/global-state';

export default async function globalSetup(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const shared = state[EMULATORS_KEY] as SharedEmulators | undefined;
  if (shared) {
    shared.users += 1;
    return;
  }
  const aws = await startLocalAws();
  state[EMULATORS_KEY] = { aws, users: 1 } satisfies SharedEmulators;
  Object.assign(process.env, aws.env);
}
