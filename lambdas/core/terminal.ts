/**
 * Text from outside (receivers, publishers, customers) printed on a terminal, by the CLI and by
 * local mode's log: control characters are shown as escapes, never acted on (docs/security.md).
 */

/**
 * Characters a terminal may act on instead of showing: C0 controls (ESC among them), DEL, C1
 * controls, the Unicode line and paragraph separators, and bidirectional overrides (which can
 * make a line read differently from what it holds).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to find
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same without the newline, for whole blocks of output. */
export const KEEP_NL = new RegExp(
  UNSAFE.source.replace('\\u0000-\\u001f', '\\u0000-\\u0009\\u000b-\\u001f'),
  'g',
);
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return (
    NAMED[c] ??
    (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/**
 * Text from outside (a receiver's response, a connection name, a URL, a header name) made safe
 * to print: every control character shows as an escape (`\e`, `\x07`, `\u202e`) instead of
 * acting on the terminal. With `keepNewlines`, line breaks stay (for whole blocks of output).
 */
export function visible(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(options.keepNewlines ? KEEP_NL : UNSAFE, escapeChar);
}

/**
 * JSON for `--json`: exactly what JSON.stringify writes (it escapes C0 controls itself), with
 * DEL, C1 controls, separators and bidi overrides written as \uXXXX too. Parses to the same value.
 */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    KEEP_NL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
