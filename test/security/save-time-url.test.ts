/**
 * Adversarial suite, save time: the URL rules a connection must pass when it is saved
 * (validateUrl) and again at every dispatch (checkConnection). IP literals and loopback
 * names are refused here; any other name is accepted and judged at connect time
 * (connect-time.test.ts), where its addresses are known.
 */

import { checkConnection, validateUrl } from '../../lambdas/core/connection';
import { DestinationRefusedError, ValidationError } from '../../lambdas/core/errors';
import type { Connection } from '../../lambdas/core/types';
import { AWS_POLICY } from './helpers';

/** The error validateUrl throws for `url`, or a failure when it accepts it. */
function refusal(url: string, policy = AWS_POLICY): ValidationError {
  try {
    validateUrl(url, policy);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`validateUrl accepted ${url}`);
}

const stored = (url: string): Connection => ({
  connectionId: 'con_1',
  applicationId: 'app_1',
  type: 'webhook',
  name: 'CRM',
  url,
  method: 'POST',
  headers: {},
  enabled: true,
  secretArn: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:webhooks/Webhooks/con_1-AbCdEf',
  createdAt: '2026-11-21T00:00:00.000Z',
  updatedAt: '2026-11-21T00:00:00.000Z',
});

describe('scheme', () => {
  it('refuses an http:// URL (a connection rule, not an address refusal)', () => {
    const error = refusal('http://hooks.example.com/in');
    expect(error).not.toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toBe('url: must use https:, got http:');
  });
});

describe('loopback by name or address', () => {
  it.each([
    ['https://127.0.0.1/', '127.0.0.1 is in the refused range 127.0.0.0/8'],
    ['https://localhost/', 'host localhost is a loopback name'],
    ['https://localhost./', 'host localhost. is a loopback name'],
    ['https://LOCALHOST/', 'host localhost is a loopback name'],
    ['https://LocalHost.:443/', 'host localhost. is a loopback name'],
    ['https://localhost../', 'host localhost.. is a loopback name'],
    ['https://api.localhost/', 'host api.localhost is a loopback name'],
    ['https://API.LOCALHOST./', 'host api.localhost. is a loopback name'],
    ['https://localhost\u3002/', 'host localhost. is a loopback name'],
    ['https://%6c%6f%63%61%6c%68%6f%73%74/', 'host localhost is a loopback name'],
  ])('refuses %s as a blocked destination', (url, reason) => {
    const error = refusal(url);
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toContain(reason);
  });
});

describe('IPv4 spellings that WHATWG URL parsing turns into 127.0.0.1', () => {
  it.each([
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://017700000001/',
    'https://127.0.0.1./',
    'https://127.0.0.1%2e/',
  ])('normalises %s to 127.0.0.1 and refuses it', (url) => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const error = refusal(url);
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toBe('url: destination refused: 127.0.0.1 is in the refused range 127.0.0.0/8');
  });
});

describe('"this host" and cloud metadata addresses', () => {
  it.each([
    ['https://0.0.0.0/', '0.0.0.0/8'],
    ['https://0/', '0.0.0.0/8'],
    ['https://[::]/', '::/128'],
    // EC2 instance metadata (IMDS), IPv4 and IPv6, and the ECS task metadata endpoint.
    ['https://169.254.169.254/latest/meta-data/iam/security-credentials/', '169.254.0.0/16'],
    ['https://169.254.170.2/v2/credentials', '169.254.0.0/16'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'fc00::/7'],
    ['https://[FD00:EC2:0::254]/', 'fc00::/7'],
    ['https://[::ffff:169.254.169.254]/', '169.254.0.0/16'],
    ['https://[::ffff:a9fe:a9fe]/', '169.254.0.0/16'],
  ])('refuses %s (in %s)', (url, range) => {
    const error = refusal(url);
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toContain(`in the refused range ${range}`);
  });
});

describe('IPv6 literals that embed or translate an IPv4 address', () => {
  it.each([
    ['https://[::ffff:127.0.0.1]/', '127.0.0.1 is in the refused range 127.0.0.0/8'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', '127.0.0.1 is in the refused range 127.0.0.0/8'],
    ['https://[::7f00:1]/', '::7f00:1 is in the refused range ::/96'],
    ['https://[::127.0.0.1]/', '::7f00:1 is in the refused range ::/96'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'in the refused range 64:ff9b::/96'],
    ['https://[64:ff9b:1::a9fe:a9fe]/', 'in the refused range 64:ff9b:1::/48'],
    ['https://[2002:a9fe:a9fe::]/', 'in the refused range 2002::/16'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'in the refused range 2001::/23'],
    ['https://[::ffff:0:7f00:1]/', 'outside the global unicast range 2000::/3'],
    ['https://[::1]/', 'in the refused range ::1/128'],
    ['https://[fe80::1]/', 'in the refused range fe80::/10'],
    ['https://[ff02::1]/', 'in the refused range ff00::/8'],
  ])('refuses %s', (url, reason) => {
    const error = refusal(url);
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toContain(reason);
  });

  it('refuses a link-local literal with a zone id as an invalid URL', () => {
    expect(refusal('https://[fe80::1%25eth0]/').message).toBe('url: is not a valid absolute URL');
  });
});

describe('ports', () => {
  it('refuses :22 (only 443 unless the stack allows more)', () => {
    const error = refusal('https://hooks.example.com:22/');
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toBe('url: port 22 is not allowed (allowed: 443)');
  });

  it('accepts an extra port only when the stack allows it', () => {
    expect(refusal('https://hooks.example.com:8443/').message).toContain('port 8443 is not allowed');
    const widened = { ...AWS_POLICY, allowedPorts: [443, 8443] };
    expect(validateUrl('https://hooks.example.com:8443/', widened).port).toBe('8443');
    expect(validateUrl('https://hooks.example.com:443/', AWS_POLICY).port).toBe('');
  });
});

describe('credentials in the URL', () => {
  it.each([
    'https://user:pass@hooks.example.com/',
    'https://user@hooks.example.com/',
    'https://:pass@hooks.example.com/',
  ])('refuses %s without repeating the credentials', (url) => {
    const error = refusal(url);
    expect(error).not.toBeInstanceOf(DestinationRefusedError);
    expect(error.message).toBe(
      'url: must not contain credentials; use a custom Authorization header instead',
    );
    expect(error.message).not.toMatch(/user|pass@/);
  });
});

describe('URL length', () => {
  it('accepts 2048 characters and refuses 2049', () => {
    const base = 'https://hooks.example.com/';
    expect(() => validateUrl(base + 'a'.repeat(2048 - base.length), AWS_POLICY)).not.toThrow();
    expect(refusal(base + 'a'.repeat(2049 - base.length)).message).toContain('at most 2048 characters');
  });
});

describe('names are judged at connect time, where their addresses are known', () => {
  it.each([
    'https://hooks.example.com/in',
    'https://receiver.test:443/in',
    'https://127.0.0.1.nip.io/in',
    'https://[2606:4700:4700::1111]/in',
  ])('accepts %s at save time', (url) => {
    expect(() => validateUrl(url, AWS_POLICY)).not.toThrow();
  });
});

describe('the dispatch re-check applies the same rules to a stored connection', () => {
  it.each([
    'https://127.0.0.1/',
    'https://localhost./',
    'https://2130706433/',
    'https://0.0.0.0/',
    'https://169.254.169.254/',
    'https://[fd00:ec2::254]/',
    'https://[::ffff:127.0.0.1]/',
    'https://hooks.example.com:22/',
  ])('refuses a stored %s as blocked', (url) => {
    expect(() => checkConnection(stored(url), AWS_POLICY, 'X-Service')).toThrow(DestinationRefusedError);
  });

  it.each(['http://hooks.example.com/', 'https://user:pass@hooks.example.com/'])(
    'refuses a stored %s as an invalid connection',
    (url) => {
      expect(() => checkConnection(stored(url), AWS_POLICY, 'X-Service')).toThrow(ValidationError);
      expect(() => checkConnection(stored(url), AWS_POLICY, 'X-Service')).not.toThrow(
        DestinationRefusedError,
      );
    },
  );
});

describe("local mode's loopback allowance", () => {
  const local = { allowedPorts: [443], allowLoopback: true };

  it('lets loopback through and nothing else', () => {
    expect(validateUrl('https://localhost/', local).hostname).toBe('localhost');
    expect(validateUrl('https://127.0.0.1/', local).hostname).toBe('127.0.0.1');
    for (const url of ['https://169.254.169.254/', 'https://10.0.0.5/', 'https://[fd00:ec2::254]/']) {
      expect(() => validateUrl(url, local)).toThrow(DestinationRefusedError);
    }
  });
});
