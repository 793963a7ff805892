import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { CliError } from '../../../cli/errors';
import { localOptions, nodeDefaultCas } from '../../../cli/target';
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

describe("Node's default CAs (what the CLI trusts besides local mode's CA)", () => {
  it('takes tls.getCACertificates where Node has it (22.15 and later)', () => {
    const source = { rootCertificates: ['root'], getCACertificates: () => ['default-set'] };
    expect(nodeDefaultCas({ NODE_EXTRA_CA_CERTS: '/nowhere' }, source)).toEqual(['default-set']);
  });

  it("reads Node 20's bundled roots and the NODE_EXTRA_CA_CERTS file where it has no getCACertificates", () => {
    const extra = join(dir, 'extra.pem');
    writeFileSync(extra, 'EXTRA PEM');
    expect(nodeDefaultCas({}, { rootCertificates })).toEqual(rootCertificates);
    expect(nodeDefaultCas({ NODE_EXTRA_CA_CERTS: extra }, { rootCertificates: ['root'] })).toEqual([
      'root',
      'EXTRA PEM',
    ]);
    expect(() =>
      nodeDefaultCas({ NODE_EXTRA_CA_CERTS: join(dir, 'absent.pem') }, { rootCertificates }),
    ).toThrow(CliError);
  });

  it('puts them before the CA local mode trusts', () => {
    const cas = localOptions(state(), {}).ca as string[];
    expect(cas.slice(0, -1)).toEqual(nodeDefaultCas({}));
    expect(cas.at(-1)).toContain('BEGIN CERTIFICATE');
  });
});
