/**
 * The sender works as the Lambda bundles it: bundled with the Lambda options
 * (scripts/bundle-lambdas.mjs), against a real HTTPS receiver on loopback.
 */

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { testPki } from '../support/pki';
import { type Receiver, respond, startReceiver } from '../support/receivers';

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'bundle-lambdas.mjs');

describe('the sender, bundled as deployed', () => {
  const pki = testPki();
  let receiver: Receiver;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'webhooks-bundled-sender-'));
    execFileSync(process.execPath, [
      SCRIPT,
      '--entry',
      path.join(__dirname, 'bundled-sender-entry.ts'),
      '--outfile',
      path.join(dir, 'index.mjs'),
    ]);
    receiver = await startReceiver(respond(201, '{"ok":true}'), pki);
    port = receiver.port;
  });

  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers over HTTPS and refuses a destination at connect time', async () => {
    const code = `
      const { HttpsSender } = await import(${JSON.stringify(path.join(dir, 'index.mjs'))});
      const send = (policy, url) => new HttpsSender({ egress: policy, ca: [process.env.CA] }).send({
        method: 'POST', url: new URL(url), headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5000,
      });
      const url = 'https://127.0.0.1:${port}/hooks';
      const ok = await send({ allowLoopback: true, allowedPorts: [443] }, url);
      const refused = await send({ allowLoopback: false, allowedPorts: [${port}] }, url);
      console.log(JSON.stringify({ ok, refused }));
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
      env: { ...process.env, CA: pki.caPem },
    });
    const { ok, refused } = JSON.parse(stdout);
    expect(ok).toMatchObject({ kind: 'response', status: 201, snippet: '{"ok":true}' });
    expect(refused).toMatchObject({ kind: 'blocked', error: expect.stringContaining('refused range') });
  });
});
