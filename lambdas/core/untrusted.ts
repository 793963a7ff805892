/**
 * Handling text that comes from outside (queue messages, publishers, receivers) without
 * letting its shape hurt the code that reads it: error texts quote at most a short prefix,
 * nesting is measured without recursion, and every message the pipeline writes to SQS
 * holds only characters SQS can carry (docs/security.md).
 */

/** Characters of an input value an error text quotes, at most. */
export const MAX_QUOTED_CHARS = 40;

/** Nesting a queue message or a delivery body may have; the deepest valid one has 3. */
export const MAX_JSON_DEPTH = 16;

/**
 * A short, safe description of an untrusted value for an error text: a string's first
 * {@link MAX_QUOTED_CHARS} characters, quoted; a scalar as itself; an object or array by
 * its kind only. Never recurses, so a deeply nested value cannot overflow the stack.
 */
export function describe(value: unknown): string {
  if (typeof value === 'string') {
    const cut = value.length > MAX_QUOTED_CHARS;
    // The cut never splits a surrogate pair: JSON.stringify escapes a lone half, still valid text.
    const quoted = JSON.stringify(value.slice(0, MAX_QUOTED_CHARS));
    return cut ? `${quoted}… (${value.length} characters)` : quoted;
  }
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean')
    return String(value).slice(0, MAX_QUOTED_CHARS);
  return `a ${typeof value}`;
}

/**
 * The deepest nesting of objects and arrays in a JSON text, counted without parsing (so
 * without recursion); stops counting once `limit` is passed. Brackets inside strings are
 * skipped.
 */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/**
 * Whether a JSON text nests deeper than `limit` ({@link jsonDepth} > limit). Nesting can never
 * exceed the number of opening brackets, so a text with at most `limit` of them (every valid
 * message) is answered by counting them with `indexOf`, a native search, and is not walked
 * character by character: 0.05 against 0.8 µs for an event (docs/performance.md).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let opening = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++opening > limit) return jsonDepth(text, limit) > limit;
    }
  }
  return false;
}

/**
 * Characters JSON.stringify leaves raw but SQS refuses in a message body (it allows #x9,
 * #xA, #xD, #x20-#xD7FF, #xE000-#xFFFD and #x10000-#x10FFFF). JSON.stringify already
 * escapes C0 controls and lone surrogates; U+FFFE and U+FFFF are left.
 */
const SQS_UNSAFE = /[\uFFFE\uFFFF]/;
const SQS_UNSAFE_ALL = /[\uFFFE\uFFFF]/g;

/**
 * JSON text of a queue message that SQS accepts whatever strings it holds: the characters
 * SQS refuses are written as `\uXXXX` escapes, which JSON.parse turns back into the same
 * string. (They can only occur inside JSON strings, where an escape is valid.)
 */
export function queueJson(value: unknown): string {
  const text = JSON.stringify(value);
  return SQS_UNSAFE.test(text)
    ? text.replace(SQS_UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
    : text;
}
