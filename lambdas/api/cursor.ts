/**
 * Opaque page cursors: base64url of the DynamoDB key a page resumes from. A cursor comes
 * from the client, so it is untrusted: only the expected key names with short string values
 * are accepted, and every query still pins the application and connection itself, so a
 * forged cursor can at most move the starting point inside the caller's own data.
 */

import { ApiError, ERROR_CODES } from './errors';

const MAX_VALUE_LENGTH = 512;

export function encodeCursor(key: Record<string, string> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key), 'utf8').toString('base64url') : null;
}

export function decodeCursor(
  cursor: string | undefined,
  allowedKeys: readonly string[],
): Record<string, string> | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const bad = () =>
    new ApiError(400, ERROR_CODES.invalidParameter, 'cursor: is not a cursor this API returned', 'cursor');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw bad();
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw bad();
  for (const [k, v] of entries) {
    if (!allowedKeys.includes(k) || typeof v !== 'string' || v.length === 0 || v.length > MAX_VALUE_LENGTH)
      throw bad();
  }
  return value as Record<string, string>;
}
