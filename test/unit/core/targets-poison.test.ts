import { deadLetterSource, errorText, MAX_DEAD_LETTER_SOURCE_BYTES } from '../../../lambdas/core/poison';
import { judgeTarget } from '../../../lambdas/core/targets';
import type { Connection } from '../../../lambdas/core/types';
import { jsonDepth, nestsDeeperThan, queueJson } from '../../../lambdas/core/untrusted';

const connection = (fields: Partial<Connection> = {}) =>
  ({ connectionId: 'con_a', applicationId: 'app_1', enabled: true, ...fields }) as Connection;

describe('judgeTarget', () => {
  it.each([
    ['missing', undefined, 'app_1', ['connection_missing', 'connection con_a does not exist'], false],
    [
      "another application's (named by the event)",
      connection({ applicationId: 'app_2' }),
      'app_1',
      ['connection_invalid', 'connection con_a belongs to another application, not app_1'],
      false,
    ],
    [
      'disabled',
      connection({ enabled: false }),
      'app_1',
      ['connection_disabled', 'connection con_a is disabled'],
      true,
    ],
    ['enabled, of the application', connection(), 'app_1', undefined, true],
    [
      'enabled, no application to check against',
      connection({ applicationId: 'app_2' }),
      undefined,
      undefined,
      true,
    ],
  ])('judges a connection that is %s', (_label, found, applicationId, refusal, keepsConnection) => {
    const target = judgeTarget('con_a', found, applicationId);
    expect(target.refusal).toEqual(refusal);
    // Another application's connection never travels on: its URL stays out of this one's log.
    expect(target.connection !== undefined).toBe(keepsConnection);
  });
});

describe('poison dead letters', () => {
  it('describes an error with its causes, four deep at most', () => {
    const inner = new Error('socket hang up');
    const outer = new Error('send failed', { cause: new TypeError('fetch failed', { cause: inner }) });
    expect(errorText(outer)).toBe('Error: send failed <- TypeError: fetch failed <- Error: socket hang up');
    expect(errorText('plain')).toBe('plain');
  });

  it('keeps a short text whole and cuts a long escaped one so its quoted form fits', () => {
    expect(deadLetterSource('{"v":1}')).toEqual({ source: '{"v":1}' });
    const hostile = '\u0001'.repeat(MAX_DEAD_LETTER_SOURCE_BYTES);
    const cut = deadLetterSource(hostile);
    expect(Buffer.byteLength(queueJson(cut.source!), 'utf8')).toBeLessThanOrEqual(
      MAX_DEAD_LETTER_SOURCE_BYTES,
    );
    expect(cut.sourceBytes).toBe(MAX_DEAD_LETTER_SOURCE_BYTES);
  });
});

describe('nestsDeeperThan', () => {
  const nested = (depth: number, open = '{"a":', close = '}') =>
    `${open.repeat(depth)}1${close.repeat(depth)}`;

  it.each([
    ['as deep as the limit', nested(3), false],
    ['one level deeper', nested(4), true],
    ['arrays and objects mixed, deeper', `[${nested(3)}]`, true],
    ['shallow, with more brackets than the limit inside strings', `{"a":"${'{['.repeat(10)}"}`, false],
    ['shallow, with more sibling objects than the limit', `[${'{},'.repeat(10)}{}]`, false],
    ['deep after many shallow siblings', `[${'{},'.repeat(10)}${nested(3)}]`, true],
  ])('is %s: the same answer as walking the whole text', (_label, text, deeper) => {
    expect(nestsDeeperThan(text, 3)).toBe(deeper);
    expect(jsonDepth(text, 3) > 3).toBe(deeper);
  });
});
