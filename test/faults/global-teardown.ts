/** Stops the services global-setup started. */
import type { RunningServices } from '../support/emulators';
import { SERVICES_KEY } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const services = state[SERVICES_KEY] as RunningServices | undefined;
  delete state[SERVICES_KEY];
  await services?.stop();
}
