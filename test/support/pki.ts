/**
 * The one certificate set-up of tests and benchmarks: local mode's own PKI (local/tls.ts),
 * made once per process (key generation is not free: one per Jest worker). Each process
 * trusts exactly its own receivers, whatever other projects' global set-ups put in the
 * environment: tests pass its CA to the sender or management library they build.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalPki, type LocalPki } from '../../local/tls';

/**
 * A production-looking receiver host for benchmarks: URLs (and so headers and attempt
 * records) as long as real ones; their resolver maps it to 127.0.0.1.
 */
export const RECEIVER_HOST = 'hooks.receiver.test';

/** The names the test server certificate is valid for. */
export const TEST_HOSTS = ['127.0.0.1', 'localhost', '::1', 'receiver.test', RECEIVER_HOST] as const;

let shared: LocalPki | undefined;

/** The throwaway PKI of this process. */
export function testPki(): LocalPki {
  shared ??= createLocalPki({ hosts: [...TEST_HOSTS] });
  return shared;
}

export interface PkiFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** Deletes the files. */
  remove(): void;
}

/** A server certificate and key in files, for a receiver in another process (receiver-process.ts). */
export function pkiFiles(pki: LocalPki = testPki()): PkiFiles {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-test-pki-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, pki.certPem);
  writeFileSync(keyFile, pki.keyPem, { mode: 0o600 });
  return { certFile, keyFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
