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

  it('bundles the dispatcher without Docker into an ESM entry, its chunks and their source maps', () => {
    expect(readdirSync(assetDir).sort()).toEqual(['chunks', 'index.mjs', 'index.mjs.map']);
    expect(statSync(path.join(assetDir, 'index.mjs')).size).toBeGreaterThan(0);
    const chunks = readdirSync(path.join(assetDir, 'chunks'));
    expect(chunks.filter((f) => f.endsWith('.mjs')).length).toBeGreaterThan(0);
    for (const chunk of chunks.filter((f) => f.endsWith('.mjs'))) expect(chunks).toContain(`${chunk}.map`);
  });

  it('keeps code reached only by import() (SSO and STS credential providers) out of what a cold start loads', () => {
    const entry = readFileSync(path.join(assetDir, 'index.mjs'), 'utf8');
    const loaded = staticChunks(assetDir, 'index.mjs');
    const lazy = readdirSync(path.join(assetDir, 'chunks')).filter(
      (f) => f.endsWith('.mjs') && !loaded.includes(`chunks/${f}`),
    );
    expect(lazy.length).toBeGreaterThan(0);
    expect(entry).toContain('import(');
    const loadedSources = loaded.flatMap((file) => mapSources(assetDir, file));
    const lazySources = lazy.flatMap((file) => mapSources(assetDir, `chunks/${file}`));
    expect(lazySources.some((s) => s.includes('@aws-sdk/credential-provider-sso/'))).toBe(true);
    expect(loadedSources.filter((s) => s.includes('@aws-sdk/credential-provider-sso/'))).toEqual([]);
  });

  it('starts the bundle with the require shim for bundled CommonJS code', () => {
    const code = readFileSync(path.join(assetDir, 'index.mjs'), 'utf8');
    expect(
      code.startsWith(
        "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      ),
    ).toBe(true);
  });

  it("sends with Node's own https client: no HTTP library in the bundle (D30)", () => {
    expect(sourcesOf(assetDir).filter((s) => s.includes('node_modules/undici/'))).toEqual([]);
  });

  it("leaves zod and the connection's schema out: the core imports the connection's types only", () => {
    const sources = sourcesOf(assetDir);
    expect(sources.some((s) => s.includes('lambdas/core/'))).toBe(true);
    expect(
      sources.filter((s) =>
        /node_modules\/(zod|@hono|@asteasolutions)\/|lambdas\/shapes\/connection\.ts/.test(s),
      ),
    ).toEqual([]);
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

/** The sources one output file was built from, as its source map lists them. */
function mapSources(assetDir: string, file: string): string[] {
  return (JSON.parse(readFileSync(path.join(assetDir, `${file}.map`), 'utf8')) as { sources: string[] })
    .sources;
}

/** The files the whole bundle (entry and chunks) was built from. */
function sourcesOf(assetDir: string): string[] {
  const chunks = readdirSync(path.join(assetDir, 'chunks')).filter((f) => f.endsWith('.mjs'));
  return ['index.mjs', ...chunks.map((c) => `chunks/${c}`)].flatMap((file) => mapSources(assetDir, file));
}

/** `file` and every chunk it imports statically (what loading it loads), relative to `assetDir`. */
function staticChunks(assetDir: string, file: string, seen: string[] = []): string[] {
  if (seen.includes(file)) return seen;
  seen.push(file);
  const code = readFileSync(path.join(assetDir, file), 'utf8');
  for (const [, spec] of code.matchAll(
    /(?:import|export)\s*(?:[\w*{}\s,$]*from\s*)?"(\.{1,2}\/[^"]+\.mjs)"/g,
  )) {
    staticChunks(assetDir, path.posix.join(path.posix.dirname(file), spec!), seen);
  }
  return seen;
}
