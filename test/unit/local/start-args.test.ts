/** `npm start`'s options: --concurrency sets the pollers per queue, checked by name. */

import { checkSettings, DEFAULT_POLLERS, MAX_POLLERS, type StartArgs } from '../../../local/start/args';

const args = (extra: Partial<StartArgs> = {}): StartArgs =>
  ({ 'allow-port': [], 'secret-store': 'secrets-manager', ...extra }) as StartArgs;

describe('npm start -- --concurrency', () => {
  it('runs two pollers per queue by default, and as many as asked', () => {
    expect(checkSettings(args()).pollers).toBe(DEFAULT_POLLERS);
    expect(checkSettings(args({ concurrency: '4' })).pollers).toBe(4);
    expect(checkSettings(args({ concurrency: String(MAX_POLLERS) })).pollers).toBe(MAX_POLLERS);
  });
  it.each(['0', '-1', '2.5', 'four', String(MAX_POLLERS + 1)])('refuses %p, naming the flag', (raw) => {
    expect(() => checkSettings(args({ concurrency: raw }))).toThrow(/^--concurrency: /);
  });
});
