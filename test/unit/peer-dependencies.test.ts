/**
 * Each package entry point names the peers it loads (lambdas/peer-dependencies.ts), and one
 * that is missing is one line naming what to install (docs/libraries.md). The lists are held
 * to the code: the bare packages an entry's import graph reaches.
 */

import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { WebhookError } from '../../lambdas/core/errors';
import {
  ENTRY_PEERS,
  MissingPeerDependencyError,
  type PeeredEntry,
  requirePeers,
} from '../../lambdas/peer-dependencies';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The source of a dist path package.json names (dist/x/y.js → x/y.ts). */
const sourceOf = (distPath: string) =>
  join(ROOT, distPath.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));

const BUNDLE_SCRIPT = readFileSync(join(ROOT, 'scripts', 'bundle-lambdas.mjs'), 'utf8');
/** The management library is one bundle (scripts/bundle-lambdas.mjs MANAGEMENT_ENTRY). */
const MANAGEMENT_ENTRY = /MANAGEMENT_ENTRY = '([^']+)'/.exec(BUNDLE_SCRIPT)![1]!;

/** The source file an entry point's code is built from (its peers' check aside). */
function entrySource(entry: string): string {
  if (entry.endsWith('/management')) return join(ROOT, MANAGEMENT_ENTRY);
  return sourceOf(pkg.exports[`./${entry.split('/')[1]}`].default);
}

/** Bare packages the runtime imports of `entry` reach (type-only imports are erased by tsc). */
function packagesReached(entry: string): Set<string> {
  const seen = new Set<string>();
  const found = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const statements = text.matchAll(
      /^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+'([^']+)'|^import\s+'([^']+)'/gms,
    );
    for (const m of statements) {
      const typeOnly = m[1] !== undefined || /^\{\s*(type\s+[^,}]+,?\s*)+\}$/.test(m[2] ?? '');
      const spec = m[3] ?? m[4]!;
      if (typeOnly) continue;
      if (spec.startsWith('.')) {
        const base = resolve(dirname(file), spec);
        const next = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
        if (!next) throw new Error(`${file}: cannot resolve ${spec}`);
        stack.push(next);
      } else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) {
        found.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
      }
    }
  }
  return found;
}

describe('peer dependencies of the entry points', () => {
  it.each(Object.keys(ENTRY_PEERS) as PeeredEntry[])('%s lists exactly the peers its code loads', (entry) => {
    // The management library is one bundle with only the AWS SDK outside it (docs/design.md §11 "Packaging").
    const reached = [...packagesReached(entrySource(entry))];
    const outside = entry.endsWith('/management')
      ? reached.filter((p) => p.startsWith('@aws-sdk/'))
      : reached;
    expect(outside.sort()).toEqual([...ENTRY_PEERS[entry]].sort());
    expect([...ENTRY_PEERS[entry]].every((p) => p in pkg.peerDependencies)).toBe(true);
  });

  it('checks the peers first: the package points every entry with peers at its package-entry', () => {
    expect(pkg.main).toBe('dist/lambdas/publisher/package-entry.js');
    expect(pkg.exports['.'].default).toBe('./dist/lambdas/publisher/package-entry.js');
    for (const entry of ['serverless-webhooks/publisher', 'serverless-webhooks/cdk']) {
      const source = entrySource(entry);
      expect(source).toMatch(/\/package-entry\.ts$/);
      // its first import is the check, so it runs before any peer is loaded
      const text = readFileSync(source, 'utf8');
      expect(text).toMatch(/^import '\.\/package-peers';$/m);
      expect(text.indexOf("import './package-peers'")).toBeLessThan(text.indexOf('export * from'));
    }
    // the management bundle's entry: the check (tsc's output, outside the bundle), then the bundle
    expect(pkg.exports['./management'].default).toBe('./dist/management/package-entry.js');
    const wrapper = /MANAGEMENT_PACKAGE_ENTRY_TEXT = `([^`]+)`/.exec(BUNDLE_SCRIPT)![1]!;
    expect(wrapper.indexOf("require('../lambdas/management/package-peers.js')")).toBeGreaterThan(0);
    expect(wrapper.indexOf("require('../lambdas/management/package-peers.js')")).toBeLessThan(
      wrapper.indexOf("module.exports = require('./index.js')"),
    );
  });

  it('names every missing peer in one line that says what to install', () => {
    const absent = new Set(['@aws-sdk/client-sns', '@aws-sdk/client-kms']);
    const resolveSome = (id: string) => {
      if (absent.has(id))
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      return id;
    };
    let error: unknown;
    try {
      requirePeers('serverless-webhooks/management', resolveSome);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingPeerDependencyError);
    expect((error as Error).message).toBe(
      'serverless-webhooks/management needs @aws-sdk/client-kms, @aws-sdk/client-sns: npm install @aws-sdk/client-kms @aws-sdk/client-sns',
    );
    expect((error as Error).stack).toBe(`MissingPeerDependencyError: ${(error as Error).message}`);
    expect(error).toMatchObject({
      entry: 'serverless-webhooks/management',
      missing: [...absent].sort(),
      code: 'missing_peer_dependency',
      stage: 'configuration',
    });
    expect(error).toBeInstanceOf(WebhookError);
    expect(Object.keys(error as object)).toEqual([]);
    expect(() =>
      requirePeers('serverless-webhooks/publisher', () => {
        throw new Error('absent');
      }),
    ).toThrow('serverless-webhooks/publisher needs @aws-sdk/client-sqs: npm install @aws-sdk/client-sqs');
  });

  it('passes when every peer resolves (here, from the repository)', () => {
    for (const entry of Object.keys(ENTRY_PEERS) as PeeredEntry[])
      expect(() => requirePeers(entry)).not.toThrow();
  });
});
