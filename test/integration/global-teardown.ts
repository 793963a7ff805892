/** Stops the emulators started by global-setup once their last user is done, and waits for the process to exit. */
import { EMULATORS_KEY, type SharedEmulators } from './helpers/global-state';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const shared = state[EMULATORS_KEY] as SharedEmulators | undefined;
  if (!shared) return;
  shared.users -= 1;
  if (shared.users > 0) return;
  delete state[EMULATORS_KEY];
  await shared.aws.stop();
}
