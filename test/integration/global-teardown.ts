/** Stops the emulators started by global-setup and waits for the process to exit. */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { stopEmulatorsProcess } from './helpers/emulators-process';
import { EMULATORS_KEY } from './helpers/global-state';

const STOP_GRACE_MS = 10_000;

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const child = state[EMULATORS_KEY] as ChildProcessWithoutNullStreams | undefined;
  delete state[EMULATORS_KEY];
  if (child) await stopEmulatorsProcess(child, STOP_GRACE_MS);
}
