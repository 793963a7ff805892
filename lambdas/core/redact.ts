/**
 * Keeps secrets and credentials out of text that reaches logs, errors and the attempt log
 * (docs/security.md, "What a receiver controls").
 *
 * A receiver that echoes its request (an error page, a debug endpoint) may write a sensitive
 * value in many forms; each is found:
 * - as sent: header values are compared trimmed, since HTTP strips the spaces around a value
 *   and the receiver sees it without them;
 * - character by character in any mix of: itself, a JSON escape (`\u0041`, `\/`, `\"`,
 *   `\\`), a percent-encoding of its UTF-8 bytes (`%41`, any case; `+` for a space), and an
 *   HTML character reference (`&#65;`, `&#x41;`, `&amp;` …);
 * - across the 1 KiB snippet cut: the sender reads `SNIPPET_READ_BYTES` (constants.ts), enough to
 *   hold the longest value in its longest form past the cut; the text is redacted first and
 *   cut afterwards (see the dispatcher's `settle`).
 *
 * Very short values (fewer than {@link MIN_ANYWHERE_LENGTH} characters) are redacted too, but
 * only where they stand alone (not inside a longer word or number): redacting every "42" in a
 * response would destroy the snippet, and a value that short is guessed more easily than read
 * from a log. A receiver that means to leak a value can always transform it further (base64,
 * reversed): redaction protects against echoes, not against a hostile receiver, which holds
 * the values anyway.
 */

/** Replacement text of a redacted value. */
export const REDACTED = '[redacted]';
/** Values this long or longer are redacted wherever they occur; shorter ones as whole words. */
export const MIN_ANYWHERE_LENGTH = 4;

const HTML_NAMED: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
const JSON_SHORT: Record<string, string> = { '/': '\\\\/', '"': '\\\\"', '\\': '\\\\\\\\' };

/** A regex source matching `hex` digits in either case, at any width of leading zeros for HTML. */
function hexPattern(n: number, width: number): string {
  return n
    .toString(16)
    .padStart(width, '0')
    .split('')
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

function escapeRegex(text: string): string {
  // Syntax characters only: in a `u` regex, escaping anything else is an error.
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Every form one character (a code point) may take in an echo. */
function charPattern(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const forms = [escapeRegex(ch)];
  // JSON: \uXXXX per UTF-16 unit (a surrogate pair for astral characters), and short escapes.
  let units = '';
  for (let i = 0; i < ch.length; i++) units += `\\\\u${hexPattern(ch.charCodeAt(i), 4)}`;
  forms.push(units);
  if (JSON_SHORT[ch]) forms.push(JSON_SHORT[ch]);
  // Percent-encoding of the UTF-8 bytes; a space may be a `+` in a form-encoded echo.
  forms.push([...Buffer.from(ch, 'utf8')].map((b) => `%${hexPattern(b, 2)}`).join(''));
  if (ch === ' ') forms.push('\\+');
  // HTML character references.
  forms.push(`&#0*${cp};`, `&#[xX]0*${hexPattern(cp, 1)};`);
  if (HTML_NAMED[ch]) forms.push(`&${HTML_NAMED[ch]};`);
  return `(?:${forms.join('|')})`;
}

function valuePattern(value: string): string {
  const body = [...value].map(charPattern).join('');
  // Short values only as whole words: not preceded or followed by a letter or digit.
  return value.length < MIN_ANYWHERE_LENGTH ? `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])` : body;
}

/** Compiled patterns by value set: a connection's values change rarely. Bounded. */
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 256;

function patternFor(values: readonly string[]): RegExp {
  const key = values.join('\u0000');
  let re = compiled.get(key);
  if (!re) {
    re = new RegExp(values.map(valuePattern).join('|'), 'gu');
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, re);
  }
  return re;
}

/** The pattern of a value list, or null when nothing in it needs redacting. */
function patternOf(sensitive: Iterable<string>): RegExp | null {
  const values = [...new Set([...sensitive].map((v) => v.trim()).filter((v) => v.length > 0))];
  if (values.length === 0) return null;
  // Longest first, so a value containing another is redacted whole.
  values.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return patternFor(values);
}

/**
 * Patterns by the identity of a frozen value list (see {@link sensitiveList}): the dispatcher
 * redacts every snippet with the same list per connection and secret, and looking the pattern
 * up by the list object spares sorting and joining the values on every attempt (the core's CPU
 * per delivery 18.9 µs with it, 20.2 without: docs/performance.md "Caches, each with its figure").
 */
const byList = new WeakMap<readonly string[], RegExp | null>();

/**
 * A value list to pass to {@link redact} again and again: frozen, so the pattern found for it
 * once stays right for as long as the list lives.
 */
export function sensitiveList(values: Iterable<string>): readonly string[] {
  return Object.freeze([...values]);
}

/** Replaces every occurrence, in any form listed above, of each sensitive value by `[redacted]`. */
export function redact(text: string, sensitive: Iterable<string>): string {
  if (!text) return text;
  let re: RegExp | null | undefined;
  if (Array.isArray(sensitive) && Object.isFrozen(sensitive)) {
    re = byList.get(sensitive);
    if (re === undefined) {
      re = patternOf(sensitive);
      byList.set(sensitive, re);
    }
  } else {
    re = patternOf(sensitive);
  }
  return re ? text.replace(re, REDACTED) : text;
}

/** Truncates to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const buf = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes));
  // Decoding drops a trailing partial character as U+FFFD; cut it off.
  return buf.toString('utf8').replace(/\uFFFD+$/, '');
}
