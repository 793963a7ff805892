/**
 * `npm run openapi:lint [-- file]`: lints the OpenAPI document (docs/openapi.json by default) with
 * Redocly's `recommended` rules and exits 1 on any error or warning; prints one line per problem
 * and a count. test/unit/api/openapi-lint.test.ts runs it. (A script, not a test import:
 * @redocly/openapi-core is ESM only, which Jest loads only with experimental VM modules,
 * docs/design.md §11 "Chunks".)
 */

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const root = join(__dirname, '..');
const file = process.argv[2] ?? join(root, 'docs', 'openapi.json');

async function main(): Promise<number> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: readFileSync(file, 'utf8'),
    absoluteRef: file,
    config,
  });
  for (const p of problems) {
    const where = p.location[0]?.pointer ?? '';
    process.stdout.write(`${p.severity} ${p.ruleId} ${where}: ${p.message}\n`);
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warn').length;
  process.stdout.write(`${relative(root, file)}: ${errors} errors, ${warnings} warnings\n`);
  return errors + warnings === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`openapi:lint: ${(error as Error).message}\n`);
    process.exitCode = 2;
  },
);
