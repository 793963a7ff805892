#!/usr/bin/env node
/**
 * Bundles every Lambda function of the stack (and the `webhooks` CLI and the management
 * library) with esbuild, once, at
 * build/pack time. The published package ships the output and the construct deploys it with
 * `Code.fromAsset`, so an app that uses the construct needs no lockfile, no esbuild and no Docker
 * (docs/design.md §11 "Packaging"). From a source checkout, lib/lambda-code.ts runs this script on demand.
 *
 *   node scripts/bundle-lambdas.mjs                       everything into dist/ (npm run build)
 *   node scripts/bundle-lambdas.mjs --only dispatcher --outdir DIR    one Lambda into DIR
 *   node scripts/bundle-lambdas.mjs --entry FILE --outfile FILE.mjs [--metafile FILE]
 *                                                         any entry with the Lambda options (bench/)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSync } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the prebuilt Lambda bundles go, one directory per function; lib/lambda-code.ts reads it. */
export const LAMBDA_ASSETS_DIR = join(ROOT, 'dist', 'lambda');

/**
 * The Lambda functions of the stack. To add one: an entry here, and the construct uses
 * `lambdaCode(name)` (lib/lambda-code.ts) with handler `index.handler`. `extras` puts more files
 * beside the bundle: each `builder` (a TypeScript file, run with tsx at build time, given the
 * output directory as its argument) writes into `<function dir>/<dir>`. Built fresh every time,
 * so a bundle never carries stale files.
 * @type {ReadonlyArray<{ name: string, entry: string, extras?: ReadonlyArray<{ dir: string, builder: string }> }>}
 */
export const LAMBDAS = [
  { name: 'dispatcher', entry: 'lambdas/dispatcher/index.ts' },
  // The management API serves the console's built files from /var/task/console (lib/management-api.ts).
  { name: 'api', entry: 'lambdas/api/handler.ts', extras: [{ dir: 'console', builder: 'console/build.ts' }] },
];

/** Lets CommonJS dependencies bundled into the ESM output call `require` (Node built-ins). */
export const ESM_REQUIRE_SHIM =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * esbuild options of every Lambda bundle: one minified ESM file for Node 24 on arm64 with its
 * source map, the AWS SDK included (a pinned, tree-shaken SDK instead of the runtime's copy).
 * @type {import('esbuild').BuildOptions}
 */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  minify: true,
  sourcemap: true,
  // The map keeps file:line mappings for stack traces but not a copy of every source file:
  // the asset Lambda downloads at a cold start shrinks from 4 MB to 2 MB (docs/performance.md).
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_SHIM },
  // Code reached only through `import()` (the SDK's SSO, STS and other credential providers a
  // Lambda never uses) goes into chunks that load when called, not at every cold start.
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
};

/** esbuild options of a Lambda bundle written to `outdir`, its entry named `index.mjs` (or `name`). */
function lambdaOptions(entry, outdir, name = 'index') {
  return {
    ...LAMBDA_BUILD_OPTIONS,
    entryPoints: { [name]: entry },
    outdir,
  };
}

/** The CLI as one CommonJS file with its dependencies, so `npx webhooks` installs nothing else. */
export const CLI_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  logLevel: 'warning',
};
export const CLI_ENTRY = 'cli/main.ts';
export const CLI_OUTFILE = join(ROOT, 'dist', 'cli', 'main.js');

/**
 * The management library (`serverless-webhooks/management`) as one CommonJS file. The AWS SDK
 * stays outside (optional peer dependencies: callers may pass their own clients);
 * ipaddr.js and the logger that test sends share with the dispatcher are inside.
 */
export const MANAGEMENT_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['@aws-sdk/*'],
  // Minified (it ships to every user of the package, receivers included), class and function
  // names kept for callers' error checks and stack traces.
  minify: true,
  keepNames: true,
  mainFields: ['module', 'main'],
  logLevel: 'warning',
};
export const MANAGEMENT_ENTRY = 'lambdas/management/index.ts';
/**
 * The package entry `serverless-webhooks/management`: checks the peers (tsc's output of
 * lambdas/management/package-peers.ts, a short readable file, so the line Node prints above an
 * uncaught MissingPeerDependencyError is short, not the minified bundle's one long line), then
 * loads the bundle. `module.exports = require(...)` lets `import { … }` see the bundle's names.
 */
export const MANAGEMENT_PACKAGE_ENTRY = join(ROOT, 'dist', 'management', 'package-entry.js');
export const MANAGEMENT_PACKAGE_ENTRY_TEXT = `'use strict';
// serverless-webhooks/management: its peers first (docs/libraries.md), then the bundle.
require('../lambdas/management/package-peers.js');
module.exports = require('./index.js');
`;
export const MANAGEMENT_OUTFILE = join(ROOT, 'dist', 'management', 'index.js');

/** Bundles one Lambda of {@link LAMBDAS} into `outDir` (index.mjs, index.mjs.map and its copies). */
export function bundleLambda(name, outDir) {
  const lambda = LAMBDAS.find((l) => l.name === name);
  if (!lambda)
    throw new Error(
      `No Lambda named "${name}" in scripts/bundle-lambdas.mjs (${LAMBDAS.map((l) => l.name)})`,
    );
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  buildSync(lambdaOptions(join(ROOT, lambda.entry), outDir));
  for (const { dir, builder } of lambda.extras ?? []) {
    execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, builder), join(outDir, dir)], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
}

/** Any entry with the Lambda options (what `npm run bench` measures); `outfile` names the entry's `.mjs`, chunks go beside it. */
export function bundleWithLambdaOptions(entry, outfile, metafile) {
  const result = buildSync({
    ...lambdaOptions(resolve(entry), dirname(resolve(outfile)), basename(outfile, '.mjs')),
    metafile: Boolean(metafile),
  });
  if (metafile) {
    mkdirSync(dirname(resolve(metafile)), { recursive: true });
    writeFileSync(resolve(metafile), JSON.stringify(result.metafile));
  }
}

/** Every Lambda into dist/lambda/<name>/, the CLI into dist/cli/, the management library into dist/management/. */
export function bundleAll() {
  rmSync(LAMBDA_ASSETS_DIR, { recursive: true, force: true });
  for (const { name } of LAMBDAS) bundleLambda(name, join(LAMBDA_ASSETS_DIR, name));
  buildSync({ ...CLI_BUILD_OPTIONS, entryPoints: [join(ROOT, CLI_ENTRY)], outfile: CLI_OUTFILE });
  buildSync({
    ...MANAGEMENT_BUILD_OPTIONS,
    entryPoints: [join(ROOT, MANAGEMENT_ENTRY)],
    outfile: MANAGEMENT_OUTFILE,
  });
  writeFileSync(MANAGEMENT_PACKAGE_ENTRY, MANAGEMENT_PACKAGE_ENTRY_TEXT);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      outdir: { type: 'string' },
      entry: { type: 'string' },
      outfile: { type: 'string' },
      metafile: { type: 'string' },
    },
  });
  if (values.entry) {
    if (!values.outfile) throw new Error('--entry needs --outfile');
    bundleWithLambdaOptions(values.entry, values.outfile, values.metafile);
  } else if (values.only) {
    bundleLambda(values.only, resolve(values.outdir ?? join(LAMBDA_ASSETS_DIR, values.only)));
  } else {
    bundleAll();
  }
}
