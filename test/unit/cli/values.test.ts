import { UsageError } from '../../../cli/errors';
import {
  collectHeaders,
  parseHeader,
  parseHeadersJson,
  parseRateLimit,
  parseSince,
  parseWholeNumber,
} from '../../../cli/values';

const now = new Date('2026-11-21T15:00:00.000Z');

describe('--since', () => {
  it.each([
    ['45s', '2026-11-21T14:59:15.000Z'],
    ['30m', '2026-11-21T14:30:00.000Z'],
    ['1h', '2026-11-21T14:00:00.000Z'],
    ['2d', '2026-11-19T15:00:00.000Z'],
    ['1w', '2026-11-14T15:00:00.000Z'],
    ['2H', '2026-11-21T13:00:00.000Z'],
  ])('reads the duration %s as a time back from now', (raw, expected) => {
    expect(parseSince(raw, now).toISOString()).toBe(expected);
  });

  it.each([
    ['2026-11-21T14:53:00Z', '2026-11-21T14:53:00.000Z'],
    ['2026-11-21T14:53:00.123Z', '2026-11-21T14:53:00.123Z'],
    ['2026-11-21T16:53:00+02:00', '2026-11-21T14:53:00.000Z'],
    ['2026-11-21', '2026-11-21T00:00:00.000Z'],
  ])('reads the ISO date-time %s', (raw, expected) => {
    expect(parseSince(raw, now).toISOString()).toBe(expected);
  });

  it.each([
    '',
    '1y',
    'h',
    '-1h',
    '1.5h',
    'yesterday',
    '2026-11-21T14:53:00',
    '2026-13-45T00:00:00Z',
    '99999999d',
  ])('refuses %j naming the flag and the accepted forms', (raw) => {
    expect(() => parseSince(raw, now)).toThrow(UsageError);
    expect(() => parseSince(raw, now)).toThrow(/^--since: must be an ISO 8601 time with a zone/);
  });
});

describe('--header', () => {
  it('splits at the first colon, so values may contain colons', () => {
    expect(parseHeader('Authorization: Bearer x')).toEqual(['Authorization', 'Bearer x']);
    expect(parseHeader('X-Callback: https://a.example:8443/b?c=d:e')).toEqual([
      'X-Callback',
      'https://a.example:8443/b?c=d:e',
    ]);
    expect(parseHeader('X-Empty:')).toEqual(['X-Empty', '']);
    expect(parseHeader('  X-Tenant  :   acme  ')).toEqual(['X-Tenant', 'acme']);
  });

  it('refuses a header without a name or colon, without echoing the value', () => {
    for (const raw of ['Bearer s3cr3t-token', ': s3cr3t-token']) {
      expect(() => parseHeader(raw)).toThrow('--header: expected "Name: value"');
      try {
        parseHeader(raw);
      } catch (error) {
        expect((error as Error).message).not.toContain('s3cr3t');
      }
    }
  });

  it('reads --headers-json as an object of strings, never echoing it', () => {
    expect(parseHeadersJson('{"Authorization":"Bearer x","X-A":"1"}')).toEqual({
      Authorization: 'Bearer x',
      'X-A': '1',
    });
    expect(() => parseHeadersJson('{"Authorization": s3cr3t}')).toThrow(/^--headers-json: not valid JSON/);
    expect(() => parseHeadersJson('{"Authorization": s3cr3t}')).not.toThrow(/s3cr3t/);
    expect(() => parseHeadersJson('["a"]')).toThrow('--headers-json: expected a JSON object');
    expect(() => parseHeadersJson('{"X-Count": 3}')).toThrow(
      '--headers-json: the value of X-Count must be a string',
    );
  });

  it('merges --headers-json and --header, and leaves headers alone when neither is given', () => {
    expect(collectHeaders([], undefined)).toBeUndefined();
    expect(collectHeaders([], '{}')).toEqual({});
    expect(collectHeaders(['X-B: 2'], '{"X-A":"1"}')).toEqual({ 'X-A': '1', 'X-B': '2' });
  });

  it('refuses a header named __proto__, from --header and from --headers-json, instead of dropping it', () => {
    expect(() => collectHeaders(['__proto__: x'])).toThrow(/header __proto__ is a reserved name/);
    expect(() => collectHeaders([], '{"__proto__":"x"}')).toThrow(/header __proto__ is a reserved name/);
  });

  it('refuses the same header twice, whatever its case', () => {
    expect(() => collectHeaders(['Authorization: a', 'authorization: b'])).toThrow(
      'header authorization is given twice (as Authorization and authorization)',
    );
    expect(() => collectHeaders(['X-A: 2'], '{"x-a":"1"}')).toThrow(/given twice/);
  });
});

describe('whole numbers', () => {
  it('accepts values in range and refuses others, naming the flag and the range', () => {
    expect(parseWholeNumber('20', '--limit', 1, 1000)).toBe(20);
    for (const raw of ['0', '1001', '-1', '2.5', 'ten', '', '1e3']) {
      expect(() => parseWholeNumber(raw, '--limit', 1, 1000)).toThrow(
        `--limit: expected a whole number from 1 to 1000, got ${JSON.stringify(raw)}`,
      );
    }
  });
});

describe('--rate-limit', () => {
  it('takes 1 to 10000 deliveries per second, or none to clear, and refuses the rest naming the flag', () => {
    expect(parseRateLimit('50')).toBe(50);
    expect(parseRateLimit('10000')).toBe(10_000);
    expect(parseRateLimit('none')).toBeNull();
    expect(parseRateLimit('None')).toBeNull();
    for (const raw of ['0', '10001', '2.5', 'fast', '']) {
      expect(() => parseRateLimit(raw)).toThrow(
        `--rate-limit: expected a whole number from 1 to 10000, got ${JSON.stringify(raw)}`,
      );
    }
  });
});
