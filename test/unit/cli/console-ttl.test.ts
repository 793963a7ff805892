/** `webhooks console --ttl`: lifetimes from one minute to the 24 h ceiling. */

import { parseTtl } from '../../../cli/commands/console';
import { UsageError } from '../../../cli/errors';

describe('webhooks console --ttl', () => {
  it.each([
    ['1h', 3_600],
    ['30m', 1_800],
    ['24h', 86_400],
    ['90', 90],
    ['600s', 600],
  ])('reads %s as %i seconds', (raw, seconds) => {
    expect(parseTtl(raw)).toBe(seconds);
  });

  it.each(['25h', '30s', '0', 'forever', '1d', '-1h'])('refuses %s, naming the flag', (raw) => {
    expect(() => parseTtl(raw)).toThrow(UsageError);
    expect(() => parseTtl(raw)).toThrow(/--ttl/);
  });
});
