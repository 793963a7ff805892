import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { defaultStack, testApp } from './fixtures';

describe('dispatcher bundle', () => {
  let outdir: string;
  let assetDir: string;
  let apiAssetDir: string;

  beforeAll(() => {
    outdir = mkdtempSync(path.join(tmpdir(), 'webhooks-cdk-'));
    const app = testApp({ bundle: true, outdir });
    const stack = defaultStack(app);
    Template.fromStack(stack); // synthesises, which bundles with the local esbuild
    const asset = readdirSync(outdir).find(
      (name) =>
        name.startsWith('asset.') &&
        existsSync(path.join(outdir, name, 'index.mjs')) &&
        !existsSync(path.join(outdir, name, 'console')),
    );
    if (!asset) throw new Error(`no dispatcher asset in ${outdir}`);
    assetDir = path.join(outdir, asset);
    apiAssetDir = readdirSync(outdir)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => path.join(outdir, name))
      .find((dir) => existsSync(path.join(dir, 'console')))!;
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

  it("leaves out undici's experimental Milo parser (its esbuildDetection define), keeping llhttp", () => {
    const sources = sourcesOf(assetDir);
    expect(sources.filter((s) => s.endsWith('undici/lib/dispatcher/parser-h1.js'))).toEqual([]);
    expect(sources.some((s) => s.includes('undici/lib/llhttp/'))).toBe(true);
  });

  it('reaches undici through its public entry point only, never its internal files', () => {
    expect(sourcesOf(assetDir).some((s) => s.endsWith('undici/index.js'))).toBe(true);
    const code = lambdaSources(path.join(__dirname, '..', '..', 'lambdas'));
    const internal = code.filter(([, text]) => /['"]undici\/[^'"]+['"]/.test(text)).map(([file]) => file);
    expect(internal).toEqual([]);
  });

  it('bundles the AWS SDK from its ES module builds, so unused commands are shaken out', () => {
    const sdk = sourcesOf(assetDir).filter((s) =>
      /@aws-sdk\/client-(sqs|dynamodb|secrets-manager)\/.*\.js$/.test(s),
    );
    expect(sdk.length).toBeGreaterThan(0);
    expect(sdk.filter((s) => !s.includes('/dist-es/'))).toEqual([]);
  });

  it('ships a source map with mappings but without a copy of the sources', () => {
    const map = JSON.parse(readFileSync(path.join(assetDir, 'index.mjs.map'), 'utf8'));
    expect(map.mappings.length).toBeGreaterThan(0);
    expect(map.sourcesContent).toBeUndefined();
  });

  it('bundles the management API with the console files beside it', () => {
    expect(apiAssetDir).toBeDefined();
    expect(readdirSync(path.join(apiAssetDir, 'console')).sort()).toEqual([
      'app.css',
      'app.js',
      'index.html',
    ]);
    expect(readdirSync(apiAssetDir)).toEqual(expect.arrayContaining(['index.mjs', 'console']));
    expect(readFileSync(path.join(apiAssetDir, 'console', 'index.html'), 'utf8')).toContain('app.js');
  });

  it('leaves no build directory behind', () => {
    expect(readdirSync(outdir).filter((name) => name.endsWith('-building'))).toEqual([]);
    expect(existsSync(path.join(outdir, 'manifest.json'))).toBe(true);
  });
});

/** The files the bundle was built from, as its source map lists them. */
function sourcesOf(assetDir: string): string[] {
  return (JSON.parse(readFileSync(path.join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[] })
    .sources;
}

/** Every TypeScript file under `dir`, with its text. */
function lambdaSources(dir: string): [string, string][] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]);
}
