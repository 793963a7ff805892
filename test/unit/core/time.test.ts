import { isoTime } from '../../../lambdas/core/time';

describe('isoTime', () => {
  it('writes each instant as toISOString does, the same one again or another', () => {
    for (const ms of [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 0, 1_700_000_000_000]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('refuses a time that is not a date, as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
