/**
 * Local mode's CA, kept next to the state file so it outlives restarts: certificates issued
 * from it (`npx webhooks --local certs issue`) stay trusted by every later `npm start`.
 */

import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateDir, writePrivateFile } from './private-files';
import { createLocalCa, type LocalCa } from './tls';

/** How long local mode's CA is valid; it is replaced when less than a day is left. */
export const CA_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

export interface CaFiles {
  /** The CA certificate (PEM): what receivers' clients trust. */
  readonly certFile: string;
  /** Its private key (PKCS#8 PEM, mode 0600): signs the certificates local mode issues. */
  readonly keyFile: string;
}

export function caFiles(dir: string): CaFiles {
  return { certFile: join(dir, 'local-ca.pem'), keyFile: join(dir, 'local-ca-key.pem') };
}

/** Reads a CA from its files, or explains what is missing. */
export function readCa(files: CaFiles): LocalCa {
  if (!existsSync(files.certFile) || !existsSync(files.keyFile)) {
    throw new Error(`local mode has no CA yet (no ${files.keyFile}); start local mode once with: npm start`);
  }
  return { certPem: readFileSync(files.certFile, 'utf8'), keyPem: readFileSync(files.keyFile, 'utf8') };
}

function usable(ca: LocalCa, now: number): boolean {
  try {
    return Date.parse(new X509Certificate(ca.certPem).validTo) - now > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

/** The CA in `dir`, or a new one written there when there is none or it is about to expire. */
export function loadOrCreateCa(
  dir: string,
  now = Date.now(),
): { ca: LocalCa; files: CaFiles; created: boolean } {
  const files = caFiles(dir);
  if (existsSync(files.certFile) && existsSync(files.keyFile)) {
    const ca = readCa(files);
    if (usable(ca, now)) return { ca, files, created: false };
  }
  const ca = createLocalCa(CA_VALIDITY_MS);
  privateDir(dir);
  writePrivateFile(files.keyFile, ca.keyPem);
  writePrivateFile(files.certFile, ca.certPem);
  return { ca, files, created: true };
}
