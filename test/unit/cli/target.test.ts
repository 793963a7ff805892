import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localOptions } from '../../../cli/target';
import type { LocalState } from '../../../local/state';
import { localStateFixture } from '../../support/fixtures';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wh-target-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function state(extra: Partial<LocalState> = {}): LocalState {
  const caFile = join(dir, 'local-ca.pem');
  writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
  return localStateFixture({ caFile, ...extra });
}

describe('local mode as a target', () => {
  it('tells the management API the connection cache time local mode runs with', () => {
    expect(localOptions(state({ connectionCacheTtlMs: 5_000 }), {}).connectionCacheTtlMs).toBe(5_000);
  });

  it("takes local mode's default (1 s) from the state file of a local mode that did not write it", () => {
    expect(localOptions(state(), {}).connectionCacheTtlMs).toBe(1_000);
  });
});
