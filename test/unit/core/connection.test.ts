import { checkConnection, targetOf, validateMethod, validateUrl } from '../../../lambdas/core/connection';
import { portRefusal, refusalOf } from '../../../lambdas/core/egress';
import { DestinationRefusedError, ValidationError } from '../../../lambdas/core/errors';
import type { Connection } from '../../../lambdas/core/types';

const policy = { allowedPorts: [443], allowLoopback: false };

describe('validateUrl', () => {
  it('accepts a public https URL and normalises it', () => {
    expect(validateUrl('https://Hooks.Example.com/in?x=1', policy).href).toBe(
      'https://hooks.example.com/in?x=1',
    );
  });

  it.each([
    ['http://hooks.example.com/', 'must use https:'],
    ['ftp://hooks.example.com/', 'must use https:'],
    ['hooks.example.com/in', 'not a valid absolute URL'],
    ['https://user:pass@hooks.example.com/', 'credentials'],
    [`https://example.com/${'a'.repeat(2048)}`, 'at most 2048'],
  ])('refuses %s', (url, problem) => {
    expect(() => validateUrl(url, policy)).toThrow(problem);
  });

  it.each([
    'https://127.0.0.1/',
    'https://localhost/',
    'https://localhost./',
    'https://LOCALHOST/',
    'https://api.localhost/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://0.0.0.0/',
    'https://[::]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.170.2/',
    'https://[fd00:ec2::254]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:a9fe:a9fe::]/',
    'https://10.0.0.5/',
    'https://192.168.1.1/',
    'https://hooks.example.com:22/',
  ])('refuses the destination %s as blocked', (url) => {
    expect(() => validateUrl(url, policy)).toThrow(DestinationRefusedError);
  });

  it('allows loopback only with the local-mode flag', () => {
    const local = { allowedPorts: [443, 8443], allowLoopback: true };
    expect(validateUrl('https://127.0.0.1:8443/hook', local).port).toBe('8443');
    expect(validateUrl('https://localhost:8443/hook', local).hostname).toBe('localhost');
    expect(() => validateUrl('https://10.0.0.5/', local)).toThrow(DestinationRefusedError);
  });
});

describe('refusalOf', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (ip) => {
      expect(refusalOf(ip, policy)).toBeUndefined();
    },
  );

  it.each([
    '0.1.2.3',
    '10.1.1.1',
    '100.64.0.1',
    '127.0.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.0.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '100::1',
    '2001::1',
    '2001:db8::1',
    '2002:a9fe:a9fe::',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'fec0::1',
    'ff02::1',
  ])('refuses %s', (ip) => {
    expect(refusalOf(ip, policy)).toMatch(/refused range/);
  });

  it('fails closed on something that is not an address', () => {
    expect(refusalOf('example.com', policy)).toMatch(/not an IP address/);
  });

  it('allows only listed ports', () => {
    expect(portRefusal(443, policy)).toBeUndefined();
    expect(portRefusal(8443, policy)).toMatch(/port 8443 is not allowed/);
  });
});

describe('validateMethod', () => {
  it('defaults to POST and accepts PUT and PATCH', () => {
    expect(validateMethod(undefined)).toBe('POST');
    expect(validateMethod('PUT')).toBe('PUT');
    expect(validateMethod('PATCH')).toBe('PATCH');
  });

  it.each(['GET', 'DELETE', 'post', 42])('refuses %j', (method) => {
    expect(() => validateMethod(method)).toThrow(ValidationError);
  });
});

describe('checkConnection', () => {
  const connection: Connection = {
    connectionId: 'con_1',
    applicationId: 'app_1',
    type: 'webhook',
    name: 'CRM',
    url: 'https://hooks.example.com/in?token=abc',
    method: 'POST',
    headers: {},
    enabled: true,
    secretArn: 'arn:aws:secretsmanager:us-east-1:1:secret:webhooks/con_1-AbCdEf',
    createdAt: '2026-11-21T00:00:00.000Z',
    updatedAt: '2026-11-21T00:00:00.000Z',
  };

  it('re-checks a stored connection and keeps the query string out of the target', () => {
    const url = checkConnection(connection, policy, 'X-Service');
    expect(targetOf(url)).toBe('https://hooks.example.com/in');
  });

  it('refuses a stored header that overrides ours (e.g. after a prefix change)', () => {
    expect(() =>
      checkConnection({ ...connection, headers: { 'x-service-signature': 'forged' } }, policy, 'X-Service'),
    ).toThrow(/own prefix/);
  });

  it('refuses a stored URL that became private as blocked', () => {
    expect(() => checkConnection({ ...connection, url: 'https://10.0.0.5/' }, policy, 'X-Service')).toThrow(
      DestinationRefusedError,
    );
  });
});
