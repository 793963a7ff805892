/** `npm start` smoke test: starts, reports ready, delivers the demo event, stops on SIGINT with exit 0. */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

it('starts the local pipeline, delivers the demo event signed, and stops cleanly on SIGINT', async () => {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'wh-start-')), 'state.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    cwd: root,
    env: { ...process.env, WEBHOOKS_STATE_FILE: stateFile, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const deadline = Date.now() + 60_000;
    // The dispatcher logs its line after the receiver has answered: wait for both.
    const done = () =>
      /demo receiver \/hooks: usr_demo_1 .* signature verified → 200/.test(output) &&
      /✓ delivered\s+dlv_/.test(output);
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`no demo delivery within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(output).toContain('Local webhook pipeline is ready.');
    expect(output).toMatch(/Demo connection\s+id\s+con_/);
    expect(output).toContain('npx webhooks --local connections send-test con_');
    expect(output).toMatch(/✓ delivered\s+dlv_/);
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(state).toMatchObject({
      pid: child.pid,
      resources: { queueUrl: expect.stringContaining('http://127.0.0.1') },
    });
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(output).toContain('Stopped.');
  expect(existsSync(stateFile)).toBe(false);
});
