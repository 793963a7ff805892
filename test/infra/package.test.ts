import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = path.join(__dirname, '..', '..');
const pkg = require(path.join(ROOT, 'package.json')) as {
  license: string;
  dependencies?: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** The packages an entry's module graph imports (Node built-ins aside), as the package names. */
function packagesImportedBy(entry: string): string[] {
  const { metafile } = buildSync({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    packages: 'external',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const names = new Set<string>();
  for (const input of Object.values(metafile.inputs)) {
    for (const { path: spec, external } of input.imports) {
      if (!external || spec.startsWith('node:')) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return [...names].sort();
}

describe('the package as users install it (the modules it ships unbundled)', () => {
  it('has no dependencies of its own: what an entry point needs is an optional peer dependency', () => {
    expect(pkg.dependencies).toBeUndefined();
    for (const name of Object.keys(pkg.peerDependencies)) {
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
    }
  });

  it('lets a receiver verify with no package installed', () => {
    expect(packagesImportedBy('lambdas/receiver/index.ts')).toEqual([]);
    expect(packagesImportedBy('lambdas/core/types.ts')).toEqual([]);
  });

  it('lets a publisher publish with the SQS client only', () => {
    expect(packagesImportedBy('lambdas/publisher/index.ts')).toEqual(['@aws-sdk/client-sqs']);
  });

  it('lets the construct synthesise with aws-cdk-lib and constructs only (no cdk-nag, no esbuild)', () => {
    expect(packagesImportedBy('lib/index.ts')).toEqual(['aws-cdk-lib', 'constructs']);
  });

  it('ships the licence text (LICENSE, Apache-2.0) in the tarball', () => {
    // --ignore-scripts: the file list, without the build that prepack runs.
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [packed] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
    expect(packed!.files.map((f) => f.path)).toContain('LICENSE');
    expect(pkg.license).toBe('Apache-2.0');
  });
});
