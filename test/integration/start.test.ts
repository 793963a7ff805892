/** `npm start` smoke test: starts, reports ready, delivers the demo event, stops on SIGINT with exit 0. */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_DIR, spawnUntil } from '../support/child';

/** Every file and directory under `dir`, with its permission bits (e.g. `data/dynamodb/CURRENT 600`). */
function modesUnder(dir: string): Map<string, number> {
  const modes = new Map<string, number>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    modes.set(path.slice(dir.length + 1), statSync(path).mode & 0o777);
  }
  return modes;
}

/** Starts `npm start` with `args`, waits for the demo delivery, checks the state file, stops it. */
async function startAndStop(
  args: string[],
  check: (state: Record<string, unknown>, dir: string) => void,
  env: NodeJS.ProcessEnv = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'wh-start-'));
  const stateFile = join(dir, 'state.json');
  // The dispatcher logs its line after the receiver has answered: wait for both.
  const local = await spawnUntil('local/start.ts', args, {
    env: { ...process.env, WEBHOOKS_STATE_FILE: stateFile, NO_COLOR: '1', ...env },
    timeoutMs: 60_000,
    ready: (output) =>
      /demo receiver \/hooks: usr_demo_1 .* signature verified → 200/.test(output) &&
      /✓ delivered\s+dlv_/.test(output),
  });
  const { child, output } = local;
  try {
    expect(output()).toContain('Local webhook pipeline is ready.');
    expect(output()).toMatch(/Demo connection\s+id\s+con_/);
    expect(output()).toContain('npx webhooks --local connections send-test con_');
    expect(output()).toMatch(/✓ delivered\s+dlv_/);
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(state).toMatchObject({
      pid: child.pid,
      resources: { queueUrl: expect.stringContaining('http://127.0.0.1') },
    });
    check(state, dir);
  } finally {
    child.kill('SIGINT');
  }
  expect(await local.exitCode).toBe(0);
  expect(output()).toContain('Stopped.');
  expect(existsSync(stateFile)).toBe(false);
  return output();
}

it('starts the local pipeline, delivers the demo event signed, and stops cleanly on SIGINT', async () => {
  await startAndStop(
    [],
    (state, dir) => {
      // The default rate limit the dispatcher applies is the one the console and the CLI read;
      // so is the rotation overlap its env twin sets (secretRotationOverlap).
      expect(state).toMatchObject({
        resources: {
          secretStore: { kind: 'secrets-manager' },
          defaultRateLimit: 7,
          secretRotationOverlapSeconds: 60,
        },
      });
      // What it keeps (secrets, dynalite's tables with header values and bodies, the CA key) is
      // the user's alone, the emulators' own files included.
      const modes = modesUnder(dir);
      expect([...modes.keys()]).toEqual(
        expect.arrayContaining(['state.json', 'data/secrets-manager.json', 'data/dynamodb/CURRENT']),
      );
      // console/ is the web console's build (copies of the project's files): nothing of the user's.
      const open = [...modes].filter(([path, mode]) => {
        if (path.startsWith('console/')) return false;
        const isDir = statSync(join(dir, path)).isDirectory();
        return mode !== (isDir ? 0o700 : 0o600);
      });
      expect(open.map(([path, mode]) => `${path} ${mode.toString(8)}`)).toEqual([]);
    },
    { WEBHOOKS_DEFAULT_RATE_LIMIT: '7', WEBHOOKS_SECRET_ROTATION_OVERLAP_SECONDS: '60' },
  );
});

it('with --secret-store kms, signs with a secret sealed by the local KMS key kept in local state', async () => {
  const output = await startAndStop(['--secret-store', 'kms'], (state, dir) => {
    expect(state).toMatchObject({
      resources: { secretStore: { kind: 'kms', keyArn: expect.stringMatching(/^arn:aws:kms:/) } },
      endpoints: { kms: expect.stringContaining('http://127.0.0.1') },
    });
    const key = JSON.parse(readFileSync(join(dir, 'data', 'kms.json'), 'utf8'));
    expect(Buffer.from(key.keyMaterial, 'base64')).toHaveLength(32);
  });
  expect(output).toContain('connection secrets: sealed with its key');
});

it('refuses an unknown --secret-store by name', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts', '--secret-store', 'vault'], {
    cwd: ROOT_DIR,
    env: {
      ...process.env,
      WEBHOOKS_STATE_FILE: join(mkdtempSync(join(tmpdir(), 'wh-start-')), 'state.json'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  expect(code).not.toBe(0);
  expect(output).toContain('--secret-store: "vault" is not one of secrets-manager, kms');
});

it('npm run demo plays the tour and stops by itself, without telling anyone to press Ctrl-C', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wh-demo-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts', '--demo'], {
    cwd: ROOT_DIR,
    env: { ...process.env, WEBHOOKS_STATE_FILE: join(dir, 'state.json'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearTimeout(timer);
  expect(code).toBe(0);
  expect(output).toContain('then everything stops by itself');
  expect(output).not.toContain('Press Ctrl-C');
  expect(output).not.toContain('in another terminal');
  // Its console link would stop working when it exits: none is printed.
  expect(output).not.toContain('/console/#token=');
  expect(output).toMatch(/Flaky receiver: two 503s, then delivered on the 2nd retry\./);
  expect(output).toMatch(/3\. Parked for con_\w+: dlv_\w+ reason=exhausted/);
  expect(output).toContain('Tour complete');
  expect(output).toContain('Stopped.');
}, 100_000);
