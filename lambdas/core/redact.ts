/** Keeps secrets and credentials out of text that reaches logs, errors and the attempt log. */

const MIN_SECRET_LENGTH = 4;

/** Replaces every occurrence of each sensitive value by `[redacted]`. */
export function redact(text: string, sensitive: Iterable<string>): string {
  let out = text;
  for (const value of sensitive) {
    if (value.length >= MIN_SECRET_LENGTH && out.includes(value)) out = out.split(value).join('[redacted]');
  }
  return out;
}

/** Truncates to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const buf = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes));
  // Decoding drops a trailing partial character as U+FFFD; cut it off.
  return buf.toString('utf8').replace(/\uFFFD+$/, '');
}
