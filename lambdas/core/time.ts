/** Times as the core writes them: ISO 8601 UTC with milliseconds. */

let lastMs = Number.NaN;
let lastText = '';

/**
 * `new Date(ms).toISOString()`, remembering the last instant formatted: every delivery writes
 * its first-attempt and request times, a batch's within the same millisecond or two, and
 * formatting one costs about 0.45 µs (docs/performance.md).
 * @throws RangeError for a time that is not a valid date, as toISOString does.
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
