import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CA_VALIDITY_MS, loadOrCreateCa, readCa } from '../../../local/local-ca';
import { createLocalCa, issueCertificate } from '../../../local/tls';

const DAY_MS = 86_400_000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wh-ca-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("local mode's CA", () => {
  it('is created once, with its key readable only by the owner, and reused on the next start', () => {
    const first = loadOrCreateCa(dir);
    expect(first.created).toBe(true);
    expect(statSync(first.files.keyFile).mode & 0o777).toBe(0o600);
    const second = loadOrCreateCa(dir);
    expect(second.created).toBe(false);
    expect(second.ca.certPem).toBe(first.ca.certPem);
    const validTo = Date.parse(new X509Certificate(first.ca.certPem).validTo);
    expect(validTo - Date.now()).toBeGreaterThan(CA_VALIDITY_MS - DAY_MS);
  });

  it('is replaced when it is about to expire', () => {
    const first = loadOrCreateCa(dir);
    const later = Date.now() + CA_VALIDITY_MS - DAY_MS / 2;
    const renewed = loadOrCreateCa(dir, later);
    expect(renewed.created).toBe(true);
    expect(readFileSync(renewed.files.certFile, 'utf8')).not.toBe(first.ca.certPem);
  });

  it('says how to get one when there is none', () => {
    expect(() => readCa({ certFile: join(dir, 'x.pem'), keyFile: join(dir, 'y.pem') })).toThrow(
      /local mode has no CA yet .*start local mode once with: npm start/,
    );
  });
});

describe('issueCertificate', () => {
  it('signs a server certificate for the hosts with the CA, never valid past the CA', () => {
    const ca = createLocalCa(10 * DAY_MS);
    const issued = issueCertificate(ca, ['localhost', '127.0.0.1', '::1'], 30 * DAY_MS);
    const cert = new X509Certificate(issued.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkHost('example.com')).toBeUndefined();
    expect(Date.parse(cert.validTo)).toBeLessThanOrEqual(Date.parse(caCert.validTo));
  });

  it('refuses a CA that is not a local mode CA', () => {
    const other = createLocalCa();
    const forged = { certPem: issueCertificate(other, ['localhost']).certPem, keyPem: other.keyPem };
    expect(() => issueCertificate(forged, ['localhost'])).toThrow(/not a local mode CA/);
  });
});
