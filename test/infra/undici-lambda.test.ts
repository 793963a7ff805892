/**
 * The Lambda bundles take undici's Agent and connector from the files undici's own index.js
 * takes them from (scripts/bundle-lambdas.mjs, decision D27): these tests prove the names are
 * the very objects the public entry exports, that the sender imports no other name, and that
 * the sender works as bundled, against a real HTTPS receiver on loopback.
 */

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { testPki } from '../support/pki';
import { type Receiver, respond, startReceiver } from '../support/receivers';

const ROOT = path.join(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'bundle-lambdas.mjs');

/** What the bundle script exports, read in a child (it is an ES module). */
function bundleScript(): { names: string[]; entry: string } {
  const code = `import { UNDICI_LAMBDA_EXPORTS, undiciLambdaEntry } from ${JSON.stringify(SCRIPT)};
    console.log(JSON.stringify({ names: Object.keys(UNDICI_LAMBDA_EXPORTS), entry: undiciLambdaEntry() }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }),
  );
}

describe("the Lambda bundles' undici entry", () => {
  const script = bundleScript();

  it('exports the very Agent and buildConnector of the public entry point', () => {
    const slim = require(script.entry) as Record<string, unknown>;
    const undici = require('undici') as Record<string, unknown>;
    expect(Object.keys(slim).sort()).toEqual([...script.names].sort());
    for (const name of script.names) {
      expect(slim[name]).toBeDefined();
      expect(slim[name]).toBe(undici[name]);
    }
  });

  it('covers every name the Lambda code imports from undici', () => {
    const sender = readFileSync(path.join(ROOT, 'lambdas', 'adapters', 'http', 'sender.ts'), 'utf8');
    const imported = [...sender.matchAll(/import\s*{([^}]*)}\s*from\s*'undici'/g)]
      .flatMap(([, names]) => names!.split(','))
      .map((n) => n.trim())
      .filter((n) => n && !n.startsWith('type '));
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((n) => !script.names.includes(n))).toEqual([]);
  });

  describe('the sender, bundled as deployed', () => {
    const pki = testPki();
    let receiver: Receiver;
    let port: number;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'webhooks-undici-lambda-'));
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
        const { UndiciSender } = await import(${JSON.stringify(path.join(dir, 'index.mjs'))});
        const send = (policy, url) => new UndiciSender({ egress: policy, ca: [process.env.CA] }).send({
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
});
