import { AttemptQuery, ParkedQuery, RecoverBody, StatsQuery } from '../../../lambdas/api/schemas';
import { ValidationError } from '../../../lambdas/core/errors';
import { parseSince, windowProblem } from '../../../lambdas/management/since';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');

describe('since', () => {
  it.each([
    ['24h', NOW - 86_400_000],
    ['30m', NOW - 1_800_000],
    [' 7d ', NOW - 7 * 86_400_000],
    ['1w', NOW - 7 * 86_400_000],
    ['2H', NOW - 2 * 3_600_000],
    ['2026-11-21T14:00:00Z', Date.parse('2026-11-21T14:00:00Z')],
    ['2026-11-21T15:00:00+01:00', Date.parse('2026-11-21T14:00:00Z')],
    ['2026-11-21', Date.parse('2026-11-21T00:00:00Z')],
  ])('reads %j', (since, expected) => {
    expect(parseSince(since, NOW)).toBe(expected);
  });

  // A time without a zone is refused too: it would be read in the server's own zone.
  it.each(['yesterday', '2026-11-21T14:00', '2026-11-21 14:00', '1y', '2026-13-45', '99999999d'])(
    'refuses %j, naming the field',
    (since) => {
      expect(() => parseSince(since, NOW)).toThrow(ValidationError);
      expect(() => parseSince(since, NOW)).toThrow(/^since: must be an ISO 8601 time with a zone/);
    },
  );

  it('is read the same way by every API route that takes it', () => {
    for (const schema of [AttemptQuery, StatsQuery, ParkedQuery, RecoverBody]) {
      expect(schema.safeParse({ since: '1h' }).success).toBe(true);
      expect(schema.safeParse({ since: '2026-11-21T14:00:00Z' }).success).toBe(true);
      const refused = schema.safeParse({ since: 'yesterday' });
      expect(refused.success).toBe(false);
      expect(refused.error?.issues[0]).toMatchObject({
        path: ['since'],
        message: expect.stringMatching(/^must be an ISO 8601 time with a zone/),
      });
    }
  });

  it('refuses a window that ends before it starts, naming the end', () => {
    expect(windowProblem(NOW - 1, NOW)).toBeUndefined();
    expect(windowProblem(NOW, NOW)).toBe(
      'must be before until (2026-11-22T12:00:00.000Z; until is now when not given)',
    );
  });
});
