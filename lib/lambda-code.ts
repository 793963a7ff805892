import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { ConfigurationError } from '../lambdas/core/errors';

/**
 * The package root: `lib/` is one level down in a source checkout, `dist/lib/` two in the
 * published package.
 */
const PACKAGE_ROOT =
  path.basename(path.dirname(__dirname)) === 'dist'
    ? path.join(__dirname, '..', '..')
    : path.join(__dirname, '..');

/** Prebuilt bundles, one directory per function (scripts/bundle-lambdas.mjs writes them). */
const PREBUILT_DIR = path.join(PACKAGE_ROOT, 'dist', 'lambda');

/** The pack-time bundler; present in a source checkout only. */
const BUNDLE_SCRIPT = path.join(PACKAGE_ROOT, 'scripts', 'bundle-lambdas.mjs');

/** Handler of every bundled function: `index.mjs` exports `handler`. */
export const LAMBDA_HANDLER = 'index.handler';

/**
 * Running from the TypeScript sources (tsx, ts-jest: `cdk synth` and the tests in this
 * repository) rather than from the compiled package.
 */
const FROM_SOURCE = path.extname(__filename) === '.ts';

/** Thrown when the compiled package lacks a function's prebuilt bundle (a broken build). */
export class MissingLambdaBundleError extends ConfigurationError {
  override readonly name = 'MissingLambdaBundleError';
  constructor(message: string) {
    super('missing_lambda_bundle', message);
  }
}

/**
 * Code of one of the stack's functions, by its name in scripts/bundle-lambdas.mjs.
 *
 * - Installed package: the bundle built at pack time (`dist/lambda/<name>`), as is. No
 *   lockfile, esbuild or Docker needed.
 * - Source checkout: bundled at synth time by the same script with the same options, so
 *   `cdk synth` and `cdk deploy` always ship the current sources (never a stale dist/).
 *   Stacks excluded from bundling (`aws:cdk:bundling-stacks`, as the template tests do)
 *   skip it.
 */
export function lambdaCode(name: string): lambda.Code {
  if (!FROM_SOURCE) {
    const dir = path.join(PREBUILT_DIR, name);
    if (!existsSync(path.join(dir, 'index.mjs'))) {
      throw new MissingLambdaBundleError(
        `The ${name} Lambda bundle is missing from ${dir}: the package was built without ` +
          '`node scripts/bundle-lambdas.mjs` (npm run build runs it).',
      );
    }
    return lambda.Code.fromAsset(dir);
  }
  return lambda.Code.fromAsset(path.join(PACKAGE_ROOT, 'lambdas'), {
    // The asset is the bundle: its hash changes exactly when the deployed code does.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type; never used, because local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('unused-local-bundling-only'),
      // Never run either, but part of the key CDK caches bundles by: one asset per function.
      command: ['node', 'scripts/bundle-lambdas.mjs', '--only', name],
      local: {
        tryBundle(outputDir: string): boolean {
          execFileSync(process.execPath, [BUNDLE_SCRIPT, '--only', name, '--outdir', outputDir], {
            cwd: PACKAGE_ROOT,
            stdio: ['ignore', 'inherit', 'inherit'],
          });
          return true;
        },
      },
    },
  });
}
