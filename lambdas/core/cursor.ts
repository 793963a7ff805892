/**
 * Page cursors (docs/api.md "Paging"). To a caller a cursor is an opaque string: base64url of a
 * small versioned JSON, `{"v":1,"of":<listing>,"in":<scope>,"at":[...]}`, that names the listing
 * it was given for (`of`: connections of an application, attempts of a connection, …), the
 * application or connection it lists (`in`) and the position to resume after (`at`), in the
 * terms of the store that wrote it. Only a store encodes and decodes its cursors, so no table key
 * name, index name or attribute name ever reaches the API, the CLI or a caller.
 *
 * A cursor comes back from outside, so it is untrusted: anything that is not one this code wrote
 * (not base64url JSON, another version, another shape, values that could not be ids or times)
 * and a cursor of another listing or another application's or connection's is refused with an
 * {@link InvalidCursorError} (the API's 400 `invalid_parameter`, field `cursor`). A well-formed
 * forged cursor can only move the starting point inside the listing the caller may read anyway.
 */

import { InvalidCursorError } from './errors';

const VERSION = 1;
/** Positions hold ids, attempt numbers and ISO times: these characters, at most this long. */
const POSITION_VALUE = /^[A-Za-z0-9_#:.+-]{1,256}$/;

interface CursorJson {
  v: number;
  of: string;
  in: string;
  at: string[];
}

/** The cursor that resumes listing `of` (of `scope`) after `position`. */
export function encodeCursor(of: string, scope: string, position: readonly string[]): string {
  const json: CursorJson = { v: VERSION, of, in: scope, at: [...position] };
  return Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
}

/**
 * The position a cursor of listing `of` (of `scope`) resumes after: `arity` strings. Undefined
 * for no cursor (the first page); InvalidCursorError for anything else this code did not write
 * for this very listing.
 */
export function decodeCursor(
  cursor: string | undefined,
  of: string,
  scope: string,
  arity: number,
): string[] | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const json = parse(cursor);
  if (
    !json ||
    json.v !== VERSION ||
    typeof json.of !== 'string' ||
    typeof json.in !== 'string' ||
    !Array.isArray(json.at) ||
    json.at.length !== arity ||
    !json.at.every((value) => typeof value === 'string' && POSITION_VALUE.test(value))
  ) {
    throw new InvalidCursorError('is not a cursor this API returned');
  }
  if (json.of !== of || json.in !== scope) throw new InvalidCursorError('belongs to another listing');
  return json.at;
}

function parse(cursor: string): Partial<CursorJson> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
