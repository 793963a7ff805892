/**
 * Adversarial suite, save time: a connection's custom headers (validateCustomHeaders, and
 * checkConnection at dispatch). They can never replace the service's headers nor touch
 * framing, cannot smuggle a header through CR/LF, and are bounded in size and number.
 * Each refusal names the rule and never repeats the value (values often carry credentials).
 */

import { checkConnection } from '../../lambdas/core/connection';
import { ValidationError } from '../../lambdas/core/errors';
import {
  MAX_CUSTOM_HEADERS,
  MAX_HEADER_NAME_LENGTH,
  MAX_HEADER_VALUE_BYTES,
  validateCustomHeaders,
} from '../../lambdas/core/headers';
import type { Connection } from '../../lambdas/core/types';
import { AWS_POLICY } from './helpers';

function refusal(headers: unknown, prefix = 'X-Service'): ValidationError {
  try {
    validateCustomHeaders(headers, prefix);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('validateCustomHeaders accepted the headers');
}

const CREDENTIAL = 'Bearer cred-7f3a9c';

describe('header overrides in mixed case', () => {
  it.each([
    ['x-SERVICE-signature', "uses the service's own prefix X-Service- and cannot be set"],
    ['X-service-TIMESTAMP', "uses the service's own prefix X-Service- and cannot be set"],
    ['x-Service-Event', "uses the service's own prefix X-Service- and cannot be set"],
    ['X-SERVICE-DELIVERY', "uses the service's own prefix X-Service- and cannot be set"],
    ['x-service-attempt', "uses the service's own prefix X-Service- and cannot be set"],
    ['cOnTeNt-TyPe', 'is set by the service and cannot be replaced'],
    ['CONTENT-LENGTH', 'is set by the service and cannot be replaced'],
    ['hOsT', 'is set by the service and cannot be replaced'],
    ['Transfer-ENCODING', 'is set by the service and cannot be replaced'],
    ['CONNECTION', 'is set by the service and cannot be replaced'],
    ['keep-ALIVE', 'is set by the service and cannot be replaced'],
    ['UpGrade', 'is set by the service and cannot be replaced'],
    ['EXPECT', 'is set by the service and cannot be replaced'],
    ['te', 'is set by the service and cannot be replaced'],
    ['tRAILER', 'is set by the service and cannot be replaced'],
    ['user-AGENT', 'is set by the service and cannot be replaced'],
    ['PROXY-Authorization', 'names starting with proxy- are refused'],
    ['Proxy-CONNECTION', 'names starting with proxy- are refused'],
    ['X-AMZ-Security-Token', 'names starting with x-amz- are refused'],
    ['x-Amz-Date', 'names starting with x-amz- are refused'],
    ['X-AMZN-Trace-Id', 'names starting with x-amzn- are refused'],
  ])('refuses %s: %s', (name, rule) => {
    const error = refusal({ [name]: CREDENTIAL });
    expect(error.message).toBe(`headers.${name}: ${rule}`);
  });

  it("refuses the configured prefix's headers in any case (X-Acme stack)", () => {
    expect(refusal({ 'x-ACME-signature': 'forged' }, 'X-Acme').message).toBe(
      "headers.x-ACME-signature: uses the service's own prefix X-Acme- and cannot be set",
    );
  });

  it('refuses one name twice in different case, which would send two headers', () => {
    expect(refusal({ Authorization: 'a', AUTHORIZATION: 'b' }).message).toBe(
      'headers.AUTHORIZATION: appears twice (header names are case-insensitive)',
    );
  });

  it('refuses a stored override again at dispatch', () => {
    const connection: Connection = {
      connectionId: 'con_1',
      applicationId: 'app_1',
      type: 'webhook',
      name: 'CRM',
      url: 'https://hooks.example.com/in',
      method: 'POST',
      headers: { 'X-SERVICE-Signature': 'sha256=forged' },
      enabled: true,
      secretArn: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:webhooks/Webhooks/con_1-AbCdEf',
      createdAt: '2026-11-21T00:00:00.000Z',
      updatedAt: '2026-11-21T00:00:00.000Z',
    };
    expect(() => checkConnection(connection, AWS_POLICY, 'X-Service')).toThrow(/own prefix/);
  });
});

describe('CR, LF and other control characters', () => {
  it.each([
    ['CRLF followed by a header', 'x\r\nX-Injected: 1'],
    ['CRLF followed by a request', 'x\r\n\r\nGET /admin HTTP/1.1'],
    ['a bare LF', 'x\nX-Injected: 1'],
    ['a bare CR', 'x\rX-Injected: 1'],
    ['NUL', 'x\u0000y'],
  ])('refuses a value with %s', (_, value) => {
    const error = refusal({ 'X-Tenant': value });
    expect(error.message).toBe('headers.X-Tenant: value must not contain CR, LF or NUL');
  });

  it.each([
    ['another control character', 'x\u0001y'],
    ['DEL', 'x\u007fy'],
    ['an escape sequence', '\u001b[31mred'],
    ['a character beyond Latin-1', '10 €'],
    ['an emoji', 'ok 👍'],
  ])('refuses a value with %s, which the HTTP client could never send', (_, value) => {
    expect(refusal({ 'X-Tenant': value }).message).toBe(
      'headers.X-Tenant: value must hold only printable characters (no control characters, nothing beyond Latin-1)',
    );
  });

  it('refuses CR/LF in a name', () => {
    expect(refusal({ 'X-A\r\nX-B': 'v' }).message).toContain('is not a valid header name');
  });

  it('accepts a tab and Latin-1 text', () => {
    expect(validateCustomHeaders({ 'X-Note': 'caf\u00e9\tbar' }, 'X-Service')).toEqual({
      'X-Note': 'caf\u00e9\tbar',
    });
  });
});

describe('oversized headers', () => {
  it('accepts a 4 KiB value and refuses one byte more, without echoing it', () => {
    const max = `Bearer ${'k'.repeat(MAX_HEADER_VALUE_BYTES - 7)}`;
    expect(validateCustomHeaders({ Authorization: max }, 'X-Service').Authorization).toBe(max);
    const error = refusal({ Authorization: `${max}k` });
    expect(error.message).toBe('headers.Authorization: value must be at most 4096 bytes');
    expect(error.message).not.toContain('kkkk');
  });

  it('counts bytes, not characters', () => {
    const value = '\u00e9'.repeat(MAX_HEADER_VALUE_BYTES / 2 + 1);
    expect(value.length).toBeLessThan(MAX_HEADER_VALUE_BYTES);
    expect(refusal({ 'X-Note': value }).message).toContain('at most 4096 bytes');
  });

  it('refuses a header name longer than 256 characters, quoting only its start', () => {
    const name = `X-${'n'.repeat(MAX_HEADER_NAME_LENGTH)}`;
    expect(() =>
      validateCustomHeaders({ [name.slice(0, MAX_HEADER_NAME_LENGTH)]: 'v' }, 'X-Service'),
    ).not.toThrow();
    const error = refusal({ [name]: 'v' });
    expect(error.message).toBe(`headers.${name.slice(0, 32)}…: name must be at most 256 characters`);
  });
});

describe('too many headers', () => {
  const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));

  it('accepts 20 headers', () => {
    expect(Object.keys(validateCustomHeaders(headers(MAX_CUSTOM_HEADERS), 'X-Service'))).toHaveLength(20);
  });

  it.each([21, 1_000])('refuses %i headers', (n) => {
    expect(refusal(headers(n)).message).toBe(`headers: at most 20 custom headers, got ${n}`);
  });
});

describe('shape', () => {
  it.each([
    ['an array', [['Authorization', 'x']]],
    ['null', null],
    ['a string', 'Authorization: x'],
  ])('refuses %s instead of an object', (_, headers) => {
    expect(refusal(headers).message).toBe('headers: must be a JSON object of header name to string value');
  });

  it.each([
    ['a number', 42],
    ['an object', { nested: 'x' }],
    ['a list', ['a', 'b']],
  ])('refuses %s as a value', (_, value) => {
    expect(refusal({ 'X-Tenant': value }).message).toBe('headers.X-Tenant: value must be a string');
  });
});
