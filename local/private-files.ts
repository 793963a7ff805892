/**
 * Local mode's files are its user's alone: what it keeps holds connection secrets (the local
 * Secrets Manager's file), custom header values and kept bodies (dynalite's tables), the local
 * KMS key and the local CA's key. Files are 0600 and directories 0700, whoever writes them:
 * local mode's own writes go through the helpers below, and what the emulators write themselves
 * (dynalite's LevelDB files, fauxqs' SQLite file) is covered by {@link ownerOnlyFromNowOn}.
 */

import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Every file and directory this process creates from now on is its user's alone (umask 077),
 * including those of libraries that choose their own modes. For `npm start`, whose process
 * writes nothing meant for other users.
 */
export function ownerOnlyFromNowOn(): void {
  process.umask(0o077);
}

/**
 * Creates `dir` and any missing parent owner-only. An existing directory keeps its mode: it may
 * be the user's own (`--persist ~/somewhere`, a state file in the home directory).
 */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Writes `data` to `file` whole and owner-only: written to a temporary file renamed over it, so
 * a crash mid-write never leaves a truncated file, and a file left by an older version with
 * another mode is replaced, not rewritten in place.
 */
export function writePrivateFile(file: string, data: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, data, { mode: PRIVATE_FILE_MODE });
  // `mode` applies only when the file is created: a temporary file left by a crash keeps its own.
  chmodSync(tmp, PRIVATE_FILE_MODE);
  renameSync(tmp, file);
}

/** Appends `data` to `file`, created owner-only (see {@link makePrivate} for one that exists). */
export function appendPrivateFile(file: string, data: string): void {
  appendFileSync(file, data, { mode: PRIVATE_FILE_MODE });
}

/**
 * Makes what an older version left at `path` owner-only: the file, or the directory and
 * everything under it (symbolic links are left alone). Nothing there: nothing to do.
 */
export function makePrivate(path: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(path, PRIVATE_DIR_MODE);
    for (const name of readdirSync(path)) makePrivate(join(path, name));
  } else if ((stat.mode & 0o777) !== PRIVATE_FILE_MODE) {
    chmodSync(path, PRIVATE_FILE_MODE);
  }
}
