/** Where `npm start` keeps its state file and, unless it runs in memory, its data. */

import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { assertStateFileFree, LOCAL_DIR, stateFilePath } from '../state';
import type { StartArgs } from './args';

/** Where a run keeps its state file and, unless it runs in memory, its data. */
export interface StackStorage {
  statePath: string;
  persistDir: string | undefined;
}

/**
 * The state file (the demo's own), checked free; the data directory, emptied by `--fresh`.
 * @throws Error when `--in-memory` and `--persist` are both given, or another run holds the state file.
 */
export function prepareStorage(args: StartArgs): StackStorage {
  // The demo gets its own state file (and CA) and runs in memory: it must not overwrite, then
  // delete, the state file of an `npm start` running beside it.
  if (args.demo && !process.env.WEBHOOKS_STATE_FILE)
    process.env.WEBHOOKS_STATE_FILE = join(LOCAL_DIR, 'demo', 'state.json');
  const statePath = stateFilePath();
  assertStateFileFree(statePath);
  if (args['in-memory'] && args.persist)
    throw new Error('--in-memory and --persist contradict each other; give one');
  const inMemory = args['in-memory'] || (args.demo && !args.persist);
  const persistDir = inMemory ? undefined : resolve(args.persist ?? join(dirname(statePath), 'data'));
  if (args.fresh && persistDir) rmSync(persistDir, { recursive: true, force: true });
  return { statePath, persistDir };
}
