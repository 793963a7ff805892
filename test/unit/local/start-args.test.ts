/** `npm start`'s options: --concurrency sets the batches of each queue in flight at once, checked by name. */

import { DEFAULT_CONCURRENCY } from '../../../local/function';
import { checkSettings, MAX_CONCURRENCY, type StartArgs } from '../../../local/start/args';

const args = (extra: Partial<StartArgs> = {}): StartArgs =>
  ({ 'allow-port': [], 'secret-store': 'secrets-manager', ...extra }) as StartArgs;

describe('npm start -- --concurrency', () => {
  it('handles ten batches of each queue at once by default, and as many as asked', () => {
    expect(checkSettings(args()).concurrency).toBe(DEFAULT_CONCURRENCY);
    expect(DEFAULT_CONCURRENCY).toBe(10);
    expect(checkSettings(args({ concurrency: '4' })).concurrency).toBe(4);
    expect(checkSettings(args({ concurrency: String(MAX_CONCURRENCY) })).concurrency).toBe(MAX_CONCURRENCY);
  });
  it.each(['0', '-1', '2.5', 'four', String(MAX_CONCURRENCY + 1)])('refuses %p, naming the flag', (raw) => {
    expect(() => checkSettings(args({ concurrency: raw }))).toThrow(/^--concurrency: /);
  });
});
