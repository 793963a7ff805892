/**
 * docs/protocol.md's own code, run as a reader would run it. The page marks each block the tests
 * use with an HTML comment (`<!-- protocol-doc-test: node -->` before the Node verifier,
 * `python` before the Python one, `vector` before the worked example, `body` and `test-event`
 * before the example bodies), so the page cannot drift from what the dispatcher sends:
 * - {@link docBlock} reads a marked block;
 * - {@link runDocVerifiers} writes the Node block to an `.mjs` file and the Python block to a
 *   `.py` file, runs each on every case (Node in a child process of the running Node, Python with
 *   `python3`) and returns what each function answered.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPLAY_WINDOW_MS } from '../../lambdas/core/constants';

const ROOT = join(__dirname, '..', '..');
export const PROTOCOL_DOC = join(ROOT, 'docs', 'protocol.md');

export type DocBlock = 'node' | 'python' | 'vector' | 'body' | 'test-event';

/** The fenced code block right after `<!-- protocol-doc-test: <name> -->` in docs/protocol.md. */
export function docBlock(name: DocBlock): string {
  const text = readFileSync(PROTOCOL_DOC, 'utf8');
  const marker = `<!-- protocol-doc-test: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`docs/protocol.md has no ${marker}`);
  if (text.indexOf(marker, at + marker.length) >= 0) throw new Error(`docs/protocol.md has ${marker} twice`);
  const block = /^\s*```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`no fenced code block right after ${marker} in docs/protocol.md`);
  return block[1]!;
}

/** The worked example's `name: value` lines. */
export function docVector(): { secret: string; timestamp: string; body: string; signature: string } {
  const fields = new Map<string, string>();
  for (const line of docBlock('vector').split('\n')) {
    const match = /^(\w+):\s+(.*)$/.exec(line);
    if (match) fields.set(match[1]!, match[2]!);
  }
  const get = (key: string) => {
    const value = fields.get(key);
    if (value === undefined) throw new Error(`the worked example in docs/protocol.md has no "${key}:" line`);
    return value;
  };
  return {
    secret: get('secret'),
    timestamp: get('timestamp'),
    body: get('body'),
    signature: get('signature'),
  };
}

/** What a receiver has of one delivery: the secret it was given and the request's parts. */
export interface Delivery {
  secret: string;
  /** X-Service-Timestamp */
  timestamp: string;
  /** X-Service-Signature */
  signature: string;
  /** The body's bytes as received. */
  body: Buffer;
}

export interface VerifyCase {
  name: string;
  secret: string;
  timestamp: string;
  signature: string;
  body: Buffer;
  /** The receiver's clock, Unix ms. */
  now: number;
}

/**
 * The cases every verifier must get right for a genuine delivery `received` ms after it was
 * signed: it verifies; one byte of the body changed, a wrong secret, or a clock 5 minutes and
 * 1 ms past the timestamp (either way) do not.
 */
export function casesFor(delivery: Delivery, receivedAfterMs = 0): VerifyCase[] {
  const sent = Number(delivery.timestamp);
  const changed = Buffer.from(delivery.body);
  changed[changed.length >> 1] = changed[changed.length >> 1]! ^ 0x01;
  const base = { ...delivery, now: sent + receivedAfterMs };
  return [
    { name: 'genuine', ...base },
    { name: 'body changed by one byte', ...base, body: changed },
    { name: 'wrong secret', ...base, secret: otherSecret(delivery.secret) },
    { name: 'timestamp older than 5 minutes', ...base, now: sent + REPLAY_WINDOW_MS + 1 },
    { name: 'timestamp more than 5 minutes ahead', ...base, now: sent - REPLAY_WINDOW_MS - 1 },
  ];
}

/** A well-formed secret that is not `secret`. */
function otherSecret(secret: string): string {
  const one = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  return secret === one ? `whsec_${Buffer.alloc(32, 2).toString('base64')}` : one;
}

/** What the cases expect: only the genuine delivery verifies. */
export function expected(cases: VerifyCase[]): Record<string, boolean> {
  return Object.fromEntries(cases.map((c) => [c.name, c.name === 'genuine']));
}

const NODE_RUNNER = `
import { readFileSync } from 'node:fs';
import { verifySignature } from './verify.mjs';
const cases = JSON.parse(readFileSync(0, 'utf8'));
const out = cases.map((c) =>
  verifySignature(c.secret, c.timestamp, c.signature, Buffer.from(c.body, 'base64'), c.now),
);
process.stdout.write(JSON.stringify(out));
`;

const PYTHON_RUNNER = `

if __name__ == "__main__":
    import base64 as _b64
    import json as _json
    import sys as _sys
    _cases = _json.load(_sys.stdin)
    _sys.stdout.write(_json.dumps([
        verify_signature(c["secret"], c["timestamp"], c["signature"], _b64.b64decode(c["body"]), c["now"])
        for c in _cases
    ]))
`;

function run(command: string, args: string[], input: string): unknown {
  const out = spawnSync(command, args, { input, encoding: 'utf8', timeout: 30_000 });
  if (out.error) throw new Error(`${command} could not run: ${out.error.message}`);
  if (out.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${out.status}:\n${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** Runs docs/protocol.md's Node and Python verifiers on every case: each one's answers by case name. */
export function runDocVerifiers(cases: VerifyCase[]): {
  node: Record<string, boolean>;
  python: Record<string, boolean>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'protocol-doc-'));
  try {
    writeFileSync(join(dir, 'verify.mjs'), `${docBlock('node')}\n`);
    writeFileSync(join(dir, 'run.mjs'), NODE_RUNNER);
    writeFileSync(join(dir, 'verify.py'), `${docBlock('python')}\n${PYTHON_RUNNER}`);
    const input = JSON.stringify(cases.map((c) => ({ ...c, body: c.body.toString('base64') })));
    const byName = (answers: unknown) => {
      if (!Array.isArray(answers) || answers.length !== cases.length) {
        throw new Error(`expected ${cases.length} answers, got ${JSON.stringify(answers)}`);
      }
      return Object.fromEntries(cases.map((c, i) => [c.name, answers[i] as boolean]));
    };
    return {
      node: byName(run(process.execPath, [join(dir, 'run.mjs')], input)),
      python: byName(run('python3', [join(dir, 'verify.py')], input)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
