/**
 * A throwaway PKI for local mode: one CA and one server certificate it signs, made at
 * runtime with node:crypto (ECDSA P-256, SHA-256). Receivers on loopback serve the
 * certificate; the dispatcher trusts the CA through `NODE_EXTRA_CA_CERTS` or an explicit
 * `ca` option, so local deliveries use real TLS with verification on.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  bitString,
  boolean,
  explicit,
  implicit,
  namedBits,
  objectIdentifier,
  octetString,
  sequence,
  set,
  tlv,
  unsignedInteger,
  utcTime,
  utf8String,
} from './der';

/** How long the certificates are valid: long enough for a working day, short enough to be throwaway. */
const VALIDITY_MS = 24 * 60 * 60 * 1000;
/** Backdating of `notBefore`, so a clock a little behind does not reject a fresh certificate. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Common name of every local mode CA, followed by a random run id. */
const CA_NAME_PREFIX = 'serverless-webhooks local CA ';

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/** keyUsage bit positions (RFC 5280 §4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

export interface LocalPkiOptions {
  /** Names and addresses the server certificate is valid for. @default ['127.0.0.1', 'localhost', '::1'] */
  readonly hosts?: readonly string[];
  /** Sign with this CA instead of a fresh one (local mode keeps its CA across restarts). */
  readonly ca?: LocalCa;
}

export interface LocalPki {
  /** The CA certificate to trust (`ca` option, `NODE_EXTRA_CA_CERTS`). */
  readonly caPem: string;
  /** The server certificate, signed by the CA. */
  readonly certPem: string;
  /** The server certificate's private key (PKCS#8). */
  readonly keyPem: string;
}

/** A CA that can sign: its certificate and its private key (PKCS#8), both PEM. */
export interface LocalCa {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A server certificate and its key. */
export interface IssuedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

export const DEFAULT_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

/**
 * Creates a fresh CA (unless one is given) and a server certificate for `hosts` (DNS names as
 * dNSName SANs, IPv4/IPv6 addresses as iPAddress SANs), valid for one day.
 */
export function createLocalPki(options: LocalPkiOptions = {}): LocalPki {
  const ca = options.ca ?? createLocalCa();
  const server = issueCertificate(ca, options.hosts ?? DEFAULT_HOSTS);
  return { caPem: ca.certPem, ...server };
}

/** A new CA, valid for `validityMs` (one day unless told otherwise). */
export function createLocalCa(validityMs = VALIDITY_MS): LocalCa {
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS);
  const notAfter = new Date(Date.now() + validityMs);
  const run = randomBytes(4).toString('hex');
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caSpki = ca.publicKey.export({ type: 'spki', format: 'der' });
  const caName = name(`${CA_NAME_PREFIX}${run}`);
  const caCert = certificate({
    issuer: caName,
    subject: caName,
    spki: caSpki,
    notBefore,
    notAfter,
    signer: ca.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true), unsignedInteger(0))),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(caSpki))),
    ],
  });
  return {
    certPem: pem('CERTIFICATE', caCert),
    keyPem: ca.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/**
 * A server certificate for `hosts`, signed by `ca`, valid for `validityMs` (one day unless
 * told otherwise) and never past the CA's own end.
 */
export function issueCertificate(
  ca: LocalCa,
  hosts: readonly string[] = DEFAULT_HOSTS,
  validityMs = VALIDITY_MS,
): IssuedCertificate {
  if (hosts.length === 0) throw new Error('issueCertificate: give at least one host for the certificate');
  const caCert = new X509Certificate(ca.certPem);
  const commonName = /^CN=(.+)$/m.exec(caCert.subject)?.[1];
  if (!commonName?.startsWith(CA_NAME_PREFIX)) {
    throw new Error(`issueCertificate: not a local mode CA (subject ${caCert.subject.replace(/\n/g, ', ')})`);
  }
  const caName = name(commonName);
  const caKey = createPrivateKey(ca.keyPem);
  const caKeyId = keyIdentifier(createPublicKey(caKey).export({ type: 'spki', format: 'der' }));
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS);
  const notAfter = new Date(Math.min(Date.now() + validityMs, Date.parse(caCert.validTo)));
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serverSpki = server.publicKey.export({ type: 'spki', format: 'der' });
  const serverCert = certificate({
    issuer: caName,
    subject: name(hosts[0]!),
    spki: serverSpki,
    notBefore,
    notAfter,
    signer: caKey,
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature])),
      extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth))),
      extension(OID.subjectAltName, false, sequence(...hosts.map(generalName))),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(serverSpki))),
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, caKeyId))),
    ],
  });
  return {
    certPem: pem('CERTIFICATE', serverCert),
    keyPem: server.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

interface CertificateInput {
  issuer: Buffer;
  subject: Buffer;
  spki: Buffer;
  notBefore: Date;
  notAfter: Date;
  signer: KeyObject;
  extensions: Buffer[];
}

function certificate(input: CertificateInput): Buffer {
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  // Serial: 16 random bytes, positive and non-zero (RFC 5280 §4.1.2.2).
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const tbs = sequence(
    explicit(0, unsignedInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    input.issuer,
    sequence(utcTime(input.notBefore), utcTime(input.notAfter)),
    input.subject,
    input.spki, // SubjectPublicKeyInfo, exactly as node:crypto exports it
    explicit(3, sequence(...input.extensions)),
  );
  // node:crypto signs ECDSA in DER form by default, which is what X.509 carries.
  const signature = sign('sha256', tbs, input.signer);
  return sequence(tbs, algorithm, bitString(signature));
}

function name(commonName: string): Buffer {
  const rdn = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(rdn(OID.organization, 'serverless-webhooks local mode'), rdn(OID.commonName, commonName));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** dNSName [2] for names, iPAddress [7] (4 or 16 bytes) for addresses. */
function generalName(host: string): Buffer {
  if (isIP(host)) return implicit(7, Buffer.from(ipaddr.parse(host).toByteArray()));
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits; here, of the whole SPKI, which is as unique. */
function keyIdentifier(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
