/**
 * A test file imports from bench/ only the module it tests, the one named like it
 * (`cost-model.test.ts` ↔ `bench/cost-model.ts`), so a change to one bench module breaks only
 * its own tests. What a test needs from other bench modules it reaches through that module, or
 * it lives under test/support, which imports nothing from bench/.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import madge from 'madge';

const ROOT = resolve(__dirname, '..', '..');
const TEST_DIR = join(ROOT, 'test');
const BENCH_DIR = join(ROOT, 'bench');

/** Module specifiers of `from '…'`, `import '…'`, `import('…')` and `require('…')`. */
const SPECIFIER = /(?:\bfrom|\bimport|\bimport\s*\(|\brequire\s*\()\s*['"]([^'"]+)['"]/g;

/** The bench modules a file imports, as paths under bench/ without extension (`cost-model`, `support/stats`). */
function benchImportsOf(file: string): string[] {
  const modules = new Set<string>();
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    if (!specifier!.startsWith('.')) continue;
    const path = relative(BENCH_DIR, resolve(dirname(file), specifier!));
    if (path.startsWith('..') || isAbsolute(path)) continue;
    modules.add(path.replace(/\.[cm]?[jt]s$/, '').replace(/(^|\/)index$/, '') || '.');
  }
  return [...modules].sort();
}

/** Every TypeScript file under test/, relative to it, with the bench modules it imports. */
const imports = new Map(
  readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [f, benchImportsOf(join(TEST_DIR, f))] as const),
);

it('finds the imports it judges (the cost model test imports bench/cost-model)', () => {
  expect(imports.get(join('unit', 'cost-model.test.ts'))).toEqual(['cost-model']);
});

it('lets each test file import from bench/ only the module it tests', () => {
  const wrong = [...imports]
    .filter(([file]) => file.endsWith('.test.ts'))
    .filter(
      ([file, modules]) =>
        modules.length > 1 || modules.some((m) => basename(m) !== basename(file, '.test.ts')),
    )
    .map(([file, modules]) => `${file} imports bench/${modules.join(', bench/')}`);
  expect(wrong).toEqual([]);
});

it('lets no helper under test/ import from bench/', () => {
  const wrong = [...imports]
    .filter(([file, modules]) => !file.endsWith('.test.ts') && modules.length > 0)
    .map(([file, modules]) => `${file} imports bench/${modules.join(', bench/')}`);
  expect(wrong).toEqual([]);
});

it('has no import circle within bench/, type imports included (the cost doc is made from the model, not the other way)', async () => {
  const graph = await madge(BENCH_DIR, {
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  expect(Object.keys(graph.obj()).length).toBeGreaterThan(30);
  // Circles among the modules bench/ borrows (local/, test/support/) are theirs to hold.
  const within = graph.circular().filter((circle) => circle.every((file) => !file.startsWith('..')));
  expect(within).toEqual([]);
});
