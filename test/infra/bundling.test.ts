import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { defaultStack, testApp } from './fixtures';

describe('dispatcher bundle', () => {
  let outdir: string;
  let assetDir: string;

  beforeAll(() => {
    outdir = mkdtempSync(path.join(tmpdir(), 'webhooks-cdk-'));
    const app = testApp({ bundle: true, outdir });
    const stack = defaultStack(app);
    Template.fromStack(stack); // synthesises, which bundles with the local esbuild
    const asset = readdirSync(outdir).find((name) => name.startsWith('asset.'));
    if (!asset) throw new Error(`no asset in ${outdir}`);
    assetDir = path.join(outdir, asset);
  });

  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('bundles the dispatcher without Docker into one ESM file with its source map', () => {
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(statSync(path.join(assetDir, 'index.mjs')).size).toBeGreaterThan(0);
  });

  it('starts the bundle with the require shim for bundled CommonJS code', () => {
    const code = readFileSync(path.join(assetDir, 'index.mjs'), 'utf8');
    expect(
      code.startsWith(
        "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      ),
    ).toBe(true);
  });

  it('leaves no build directory behind', () => {
    expect(readdirSync(outdir).filter((name) => name.endsWith('-building'))).toEqual([]);
    expect(existsSync(path.join(outdir, 'manifest.json'))).toBe(true);
  });
});
