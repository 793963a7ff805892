/** Closes the shared Chromium, then stops the emulators. */

import integrationTeardown from '../integration/global-teardown';
import { BROWSER_KEY } from './support/env';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const browser = state[BROWSER_KEY] as { close(): Promise<void> } | undefined;
  delete state[BROWSER_KEY];
  await browser?.close();
  await integrationTeardown();
}
