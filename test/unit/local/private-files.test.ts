/**
 * What local mode keeps is its user's alone (local/private-files.ts): the state file, the CA, the
 * local Secrets Manager's and KMS's files, the events file and the emulators' own files are 0600,
 * the directories made for them 0700, under the usual umask 022 as well.
 */

import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateCa } from '../../../local/local-ca';
import { makePrivate, privateDir, writePrivateFile } from '../../../local/private-files';
import { startSecretsManager } from '../../../local/secrets-manager';
import { type LocalState, writeState } from '../../../local/state';

const modeOf = (path: string) => statSync(path).mode & 0o777;

let umask: number;
beforeAll(() => {
  // The common default, which leaves new files readable by everyone (0644).
  umask = process.umask(0o022);
});
afterAll(() => process.umask(umask));

const scratch = () => mkdtempSync(join(tmpdir(), 'wh-private-'));

describe('the helpers', () => {
  it('writes a file 0600, over one an older version left 0644, and over a 0644 leftover temporary file', () => {
    const dir = scratch();
    const file = join(dir, 'secrets-manager.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    writeFileSync(`${file}.tmp`, 'half', { mode: 0o644 });
    writePrivateFile(file, '{"a":1}');
    expect(modeOf(file)).toBe(0o600);
  });

  it('creates missing directories 0700 and leaves an existing one as it is (it may be the user’s own)', () => {
    const dir = scratch();
    const own = join(dir, 'home');
    mkdirSync(own, { mode: 0o755 });
    privateDir(join(own, 'data', 'dynamodb'));
    expect(modeOf(join(own, 'data'))).toBe(0o700);
    expect(modeOf(join(own, 'data', 'dynamodb'))).toBe(0o700);
    expect(modeOf(own)).toBe(0o755);
  });

  it('makes what an older version left owner-only, the whole tree', () => {
    const dir = join(scratch(), 'dynamodb');
    mkdirSync(join(dir, 'sub'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, '000005.ldb'), 'x', { mode: 0o644 });
    writeFileSync(join(dir, 'sub', 'LOG'), 'x', { mode: 0o644 });
    makePrivate(dir);
    makePrivate(join(dir, 'absent'));
    expect([dir, join(dir, 'sub')].map(modeOf)).toEqual([0o700, 0o700]);
    expect([join(dir, '000005.ldb'), join(dir, 'sub', 'LOG')].map(modeOf)).toEqual([0o600, 0o600]);
  });
});

describe("local mode's own files", () => {
  it('writes the state file 0600 in a directory made 0700', () => {
    const dir = join(scratch(), '.local');
    const path = join(dir, 'state.json');
    writeState({ pid: process.pid, startedAt: new Date().toISOString() } as LocalState, path);
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('writes the CA key and certificate 0600', () => {
    const { files } = loadOrCreateCa(join(scratch(), '.local'));
    expect([files.keyFile, files.certFile].map(modeOf)).toEqual([0o600, 0o600]);
  });

  it('keeps the local secrets in a 0600 file, and makes one an older version left 0644 owner-only at start', async () => {
    const dir = join(scratch(), 'data');
    mkdirSync(dir);
    const file = join(dir, 'secrets-manager.json');
    writeFileSync(file, JSON.stringify({ version: 1, secrets: [] }), { mode: 0o644 });
    const sm = await startSecretsManager({ persistDir: dir });
    try {
      expect(modeOf(file)).toBe(0o600);
      const res = await fetch(sm.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.1',
          'x-amz-target': 'secretsmanager.CreateSecret',
        },
        body: JSON.stringify({ Name: 'webhooks/con_1', SecretString: 'whsec_x' }),
      });
      expect(res.status).toBe(200);
      expect(modeOf(file)).toBe(0o600);
    } finally {
      await sm.stop();
    }
  });
});
