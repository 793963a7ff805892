import { ValidationError } from '../../../lambdas/core/errors';
import { MAX_CUSTOM_HEADERS, validateCustomHeaders } from '../../../lambdas/core/headers';

function refusal(headers: unknown, prefix = 'X-Service'): ValidationError {
  try {
    validateCustomHeaders(headers, prefix);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('validateCustomHeaders', () => {
  it('accepts an object of string values and keeps the names as written', () => {
    expect(validateCustomHeaders({ Authorization: 'Bearer x', 'X-Tenant': 't1' }, 'X-Service')).toEqual({
      Authorization: 'Bearer x',
      'X-Tenant': 't1',
    });
  });

  it('treats absent headers as none', () => {
    expect(validateCustomHeaders(undefined, 'X-Service')).toEqual({});
  });

  it.each([
    ['x-service-signature', 'own prefix'],
    ['X-SERVICE-Timestamp', 'own prefix'],
    ['X-Service-Delivery', 'own prefix'],
    ['content-type', 'set by the service'],
    ['Content-Length', 'set by the service'],
    ['HOST', 'set by the service'],
    ['Transfer-Encoding', 'set by the service'],
    ['Connection', 'set by the service'],
    ['Keep-Alive', 'set by the service'],
    ['Upgrade', 'set by the service'],
    ['Expect', 'set by the service'],
    ['TE', 'set by the service'],
    ['Trailer', 'set by the service'],
    ['User-Agent', 'set by the service'],
    ['Proxy-Authorization', 'proxy-'],
    ['X-Amz-Security-Token', 'x-amz-'],
    ['x-amzn-trace-id', 'x-amzn-'],
  ])('refuses %s, naming the rule (%s)', (name, rule) => {
    const error = refusal({ [name]: 'v' });
    expect(error.field).toBe(`headers.${name}`);
    expect(error.message.toLowerCase()).toContain(rule.toLowerCase());
  });

  it('refuses names of another configured prefix only for that prefix', () => {
    expect(refusal({ 'X-Acme-Event': 'x' }, 'X-Acme').message).toContain('own prefix');
    expect(validateCustomHeaders({ 'X-Acme-Event': 'x' }, 'X-Service')).toEqual({ 'X-Acme-Event': 'x' });
  });

  it.each(['bad name', 'na:me', 'é', ''])('refuses the invalid header name %j', (name) => {
    expect(refusal({ [name]: 'v' }).message).toContain('not a valid header name');
  });

  it.each(['a\r\nInjected: 1', 'a\nb', 'a\u0000b'])('refuses a value with CR, LF or NUL', (value) => {
    expect(refusal({ 'X-Ok': value }).message).toContain('CR, LF or NUL');
  });

  it('refuses a value over 4 KiB and never echoes the value', () => {
    const secretish = `Bearer ${'s'.repeat(4100)}`;
    const error = refusal({ Authorization: secretish });
    expect(error.message).toContain('at most 4096 bytes');
    expect(error.message).not.toContain('sss');
  });

  it('refuses more than 20 headers', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_CUSTOM_HEADERS + 1 }, (_, i) => [`X-H${i}`, 'v']),
    );
    expect(refusal(many).message).toContain('at most 20');
  });

  it('refuses the same name twice in different case', () => {
    expect(refusal({ 'X-Tenant': 'a', 'x-tenant': 'b' }).message).toContain('appears twice');
  });

  it.each([[[]], ['str'], [null], [{ A: 1 }]])(
    'refuses a non-object or a non-string value: %j',
    (headers) => {
      expect(() => validateCustomHeaders(headers, 'X-Service')).toThrow(ValidationError);
    },
  );
});
