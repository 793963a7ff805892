/** Page cursors round-trip the key they carry and refuse anything the API did not write. */

import { decodeCursor, encodeCursor } from '../../../lambdas/api/cursor';
import { ApiError } from '../../../lambdas/api/errors';

const KEYS = ['connectionId', 'sk'];

describe('page cursors', () => {
  it('round-trips a key and encodes the end of the list as null', () => {
    const key = { connectionId: 'con_1', sk: 'dlv_X_con_1#0001' };
    expect(decodeCursor(encodeCursor(key)!, KEYS)).toEqual(key);
    expect(encodeCursor(undefined)).toBeNull();
    expect(decodeCursor(undefined, KEYS)).toBeUndefined();
  });

  it.each([
    ['not base64 JSON', 'xyz'],
    ['an array', Buffer.from('[1]').toString('base64url')],
    ['an unexpected key', Buffer.from('{"TableName":"x"}').toString('base64url')],
    ['a non-string value', Buffer.from('{"sk":{"S":"x"}}').toString('base64url')],
    ['an empty object', Buffer.from('{}').toString('base64url')],
    ['an oversized value', Buffer.from(JSON.stringify({ sk: 'x'.repeat(600) })).toString('base64url')],
  ])('refuses %s with a 400 naming the cursor', (_label, cursor) => {
    let error: unknown;
    try {
      decodeCursor(cursor, KEYS);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, field: 'cursor' });
  });
});
