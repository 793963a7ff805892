/**
 * The OpenAPI document lints clean: `npm run openapi:lint` (Redocly's `recommended` rules) finds
 * no error and no warning in docs/openapi.json, and fails on a document that breaks a rule.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DOC = join(ROOT, 'docs', 'openapi.json');

function lint(file?: string) {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts', 'openapi-lint.ts'), ...(file ? [file] : [])],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('npm run openapi:lint', () => {
  it('finds no error and no warning in docs/openapi.json', () => {
    const { status, out } = lint();
    expect({ status, out }).toEqual({ status: 0, out: 'docs/openapi.json: 0 errors, 0 warnings\n' });
  });

  it('fails on a document that breaks a rule, naming the rule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wh-openapi-'));
    try {
      const doc = JSON.parse(readFileSync(DOC, 'utf8'));
      delete doc.info.license;
      doc.paths['/api/v1'].get.responses = { 200: doc.paths['/api/v1'].get.responses[200] };
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const { status, out } = lint(file);
      expect(status).toBe(1);
      expect(out).toContain('operation-4xx-response');
      expect(out).toContain('info-license');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
