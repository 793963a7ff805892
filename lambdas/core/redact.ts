/**
 * Keeps secrets and credentials out of text that reaches logs, errors and the attempt log
 * (docs/security.md, "What a receiver controls").
 *
 * A receiver that echoes its request (an error page, a debug endpoint) may write a sensitive
 * value in many forms; each is found:
 * - as sent: header values are compared trimmed, since HTTP strips the spaces around a value
 *   and the receiver sees it without them;
 * - as a receiver reading header bytes as Latin-1 echoes a value with non-ASCII characters (Node's
 *   HTTP server does: `é`, sent as UTF-8, comes back as `Ã©`), in all the forms below too;
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

/** Short values only as whole words: not preceded or followed by a letter or digit. */
function wordBound(value: string, body: string): string {
  return value.length < MIN_ANYWHERE_LENGTH ? `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])` : body;
}

/**
 * Every form a value can take is written with one of these characters, except the value as
 * sent: a text without any of them can hold a value only as itself.
 */
const ENCODING = /[\\%&+]/;

/**
 * The patterns of one value set: `plain` finds the values as sent (what a text without
 * {@link ENCODING} characters can hold), `encoded` every form listed above. The second is
 * compiled on first need: its alternation per character takes milliseconds to compile and
 * tens of microseconds per text, and most receivers answer with no encoding character at all
 * (docs/design.md §5 "Never stored or logged").
 */
interface Patterns {
  readonly values: readonly string[];
  readonly plain: RegExp;
  encoded?: RegExp;
}

function encodedOf(p: Patterns): RegExp {
  p.encoded ??= new RegExp(
    p.values.map((v) => wordBound(v, [...v].map(charPattern).join(''))).join('|'),
    'gu',
  );
  return p.encoded;
}

/** Patterns by value set: a connection's values change rarely. Bounded. */
const compiled = new Map<string, Patterns>();
const MAX_COMPILED = 256;

function patternsFor(values: readonly string[]): Patterns {
  const key = values.join('\u0000');
  let p = compiled.get(key);
  if (!p) {
    p = { values, plain: new RegExp(values.map((v) => wordBound(v, escapeRegex(v))).join('|'), 'gu') };
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, p);
  }
  return p;
}

/** A value's UTF-8 bytes read as Latin-1, as a receiver that decodes headers so echoes it; or none. */
function latin1View(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return bytes.length === value.length ? [] : [bytes.toString('latin1')];
}

/** The patterns of a value list, or null when nothing in it needs redacting. */
function patternsOf(sensitive: Iterable<string>): Patterns | null {
  const trimmed = [...sensitive].map((v) => v.trim()).filter((v) => v.length > 0);
  const values = [...new Set(trimmed.flatMap((v) => [v, ...latin1View(v)]))];
  if (values.length === 0) return null;
  // Longest first, so a value containing another is redacted whole.
  values.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return patternsFor(values);
}

/**
 * Patterns by the identity of a frozen value list (see {@link sensitiveList}): the dispatcher
 * redacts every snippet with the same list per connection and secret, and looking the patterns
 * up by the list object spares sorting and joining the values on every attempt (the core's CPU
 * per delivery 18.9 µs with it, 20.2 without: docs/performance.md "Caches, each with its figure").
 */
const byList = new WeakMap<readonly string[], Patterns | null>();

/**
 * A value list to pass to {@link redact} again and again: frozen, so the patterns found for it
 * once stay right for as long as the list lives.
 */
export function sensitiveList(values: Iterable<string>): readonly string[] {
  return Object.freeze([...values]);
}

/** Replaces every occurrence, in any form listed above, of each sensitive value by `[redacted]`. */
export function redact(text: string, sensitive: Iterable<string>): string {
  if (!text) return text;
  let p: Patterns | null | undefined;
  if (Array.isArray(sensitive) && Object.isFrozen(sensitive)) {
    p = byList.get(sensitive);
    if (p === undefined) {
      p = patternsOf(sensitive);
      byList.set(sensitive, p);
    }
  } else {
    p = patternsOf(sensitive);
  }
  if (!p) return text;
  return text.replace(ENCODING.test(text) ? encodedOf(p) : p.plain, REDACTED);
}

/** Truncates to at most `maxBytes` UTF-8 bytes without splitting a character. */
/**
 * Text from outside (an error, a receiver's answer) as the attempt log may keep it: redacted,
 * then cut to `maxBytes` of UTF-8. The one step every kept text takes, in this order, so a cut
 * never leaves half a secret the redaction would have matched.
 */
export function redactedExcerpt(text: string, sensitive: Iterable<string>, maxBytes: number): string {
  return truncateUtf8(redact(text, sensitive), maxBytes);
}

export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const buf = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes));
  // Decoding drops a trailing partial character as U+FFFD; cut it off.
  return buf.toString('utf8').replace(/\uFFFD+$/, '');
}
