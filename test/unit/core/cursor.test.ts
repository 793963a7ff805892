/** Page cursors round-trip the position they carry and refuse anything the API did not write for the listing. */

import { toApiError } from '../../../lambdas/api/errors';
import { decodeCursor, encodeCursor } from '../../../lambdas/core/cursor';
import { InvalidCursorError } from '../../../lambdas/core/errors';

const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('page cursors', () => {
  it('round-trips a position, and no cursor is the first page', () => {
    const cursor = encodeCursor('attempts', 'con_1', ['dlv_X_con_1#0001']);
    expect(decodeCursor(cursor, 'attempts', 'con_1', 1)).toEqual(['dlv_X_con_1#0001']);
    expect(decodeCursor(undefined, 'attempts', 'con_1', 1)).toBeUndefined();
    expect(decodeCursor('', 'attempts', 'con_1', 1)).toBeUndefined();
  });

  it('shows no key name of any table: only its own versioned fields', () => {
    const cursor = encodeCursor('attempts', 'con_1', ['dlv_X_con_1#0001']);
    expect(Object.keys(JSON.parse(Buffer.from(cursor, 'base64url').toString()))).toEqual([
      'v',
      'of',
      'in',
      'at',
    ]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64 JSON', 'xyz'],
    ['not base64url at all', 'a b+c/=='],
    ['truncated', encodeCursor('attempts', 'con_1', ['dlv_X_con_1#0001']).slice(0, 20)],
    ['an array', json([1])],
    ['a DynamoDB key', json({ connectionId: 'con_1', sk: 'dlv_X_con_1#0001' })],
    ['another version', json({ v: 2, of: 'attempts', in: 'con_1', at: ['x'] })],
    ['a non-string position', json({ v: 1, of: 'attempts', in: 'con_1', at: [{ S: 'x' }] })],
    ['too few position values', json({ v: 1, of: 'attempts', in: 'con_1', at: [] })],
    ['an empty position value', json({ v: 1, of: 'attempts', in: 'con_1', at: [''] })],
    ['an oversized position value', json({ v: 1, of: 'attempts', in: 'con_1', at: ['x'.repeat(600)] })],
    ['a position no id or time could be', json({ v: 1, of: 'attempts', in: 'con_1', at: ['ü'] })],
  ])('refuses %s as a 400 naming the cursor', (_label, cursor) => {
    let error: unknown;
    try {
      decodeCursor(cursor, 'attempts', 'con_1', 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidCursorError);
    expect(toApiError(error)).toMatchObject({ status: 400, code: 'invalid_parameter', field: 'cursor' });
  });

  it.each([
    ['another listing', encodeCursor('connections', 'con_1', ['x'])],
    ["another connection's", encodeCursor('attempts', 'con_2', ['x'])],
  ])('refuses a cursor of %s by name', (_label, cursor) => {
    expect(() => decodeCursor(cursor, 'attempts', 'con_1', 1)).toThrow('cursor: belongs to another listing');
  });
});
