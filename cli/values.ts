/**
 * Parsers for flag values (`--since 2h`, `--header 'Name: value'`, `--limit 20`). Pure: each
 * returns the value or throws a UsageError naming the flag. Header values are never echoed
 * back in an error, since they often hold credentials.
 */

import { RESERVED_KEYS } from '../lambdas/core/payload';
import { MAX_RATE_LIMIT, MIN_RATE_LIMIT } from '../lambdas/core/rate-limit';
import { SINCE_RULE, sinceMs, windowProblem } from '../lambdas/management/since';
import { UsageError } from './errors';

/**
 * `--since`: a duration back from now (`45s`, `30m`, `1h`, `2d`, `1w`) or an ISO 8601 date
 * or date-time with a zone (`2026-11-21`, `2026-11-21T14:53:00Z`). Read by the management
 * library's own rule (lambdas/management/since.ts), so the CLI takes and refuses exactly what
 * the API does, in the same words.
 */
export function parseSince(raw: string, now: Date = new Date(), flag = '--since'): Date {
  const ms = sinceMs(raw, now.getTime());
  if (ms === undefined) throw new UsageError(`${flag}: ${SINCE_RULE}; got ${JSON.stringify(raw)}`);
  return new Date(ms);
}

/**
 * `--since` as the start of a window ending now (`webhooks stats`): refused, as the API's stats
 * route refuses it, when it is not before now.
 */
export function parseWindowStart(raw: string, now: Date, flag = '--since'): Date {
  const since = parseSince(raw, now, flag);
  const problem = windowProblem(since.getTime(), now.getTime());
  if (problem) throw new UsageError(`${flag}: ${problem}; got ${JSON.stringify(raw)}`);
  return since;
}

/** A whole number within [min, max], for `--limit`, `--days`. */
export function parseWholeNumber(raw: string, flag: string, min: number, max: number): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(
      `${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

const SECONDS_PER: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/**
 * `--switch-after`: seconds from now until a rotated secret signs, as `45s`, `30m`, `2h`, `1d`
 * or a bare number of seconds; `0` switches at once. The management library checks the range.
 */
export function parseSwitchAfter(raw: string): number {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(raw.trim());
  if (!match)
    throw new UsageError(`--switch-after: expected 0, 45s, 30m, 2h or 1d, got ${JSON.stringify(raw)}`);
  return Number(match[1]) * SECONDS_PER[(match[2] || 's').toLowerCase()]!;
}

/** `--rate-limit N` (deliveries per second, 1-10,000) or `--rate-limit none`: null clears it. */
export function parseRateLimit(raw: string): number | null {
  if (raw.trim().toLowerCase() === 'none') return null;
  return parseWholeNumber(raw, '--rate-limit', MIN_RATE_LIMIT, MAX_RATE_LIMIT);
}

/**
 * One `--header 'Name: value'`. The name ends at the first colon, so values may contain
 * colons (`X-Callback: https://a.example/b`); whitespace around the value is dropped (RFC 9110 OWS).
 */
export function parseHeader(raw: string): [name: string, value: string] {
  const colon = raw.indexOf(':');
  const name = colon === -1 ? '' : raw.slice(0, colon).trim();
  if (colon === -1 || !name) {
    throw new UsageError(`--header: expected "Name: value", e.g. --header 'Authorization: Bearer …'`);
  }
  return [name, raw.slice(colon + 1).trim()];
}

/** `--headers-json '{"Name":"value"}'`: an object of header name to string value. */
export function parseHeadersJson(raw: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError(
      `--headers-json: not valid JSON; expected an object such as '{"Authorization":"Bearer …"}'`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--headers-json: expected a JSON object of header name to string value');
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string')
      throw new UsageError(`--headers-json: the value of ${name} must be a string`);
  }
  return parsed as Record<string, string>;
}

/**
 * The custom headers given on the command line: `--headers-json` first, then each
 * `--header`. Undefined when neither flag was used (an update then keeps the current set).
 * @throws UsageError when a name is given twice (header names are case-insensitive).
 */
export function collectHeaders(
  headerFlags: readonly string[] = [],
  json?: string,
): Record<string, string> | undefined {
  if (headerFlags.length === 0 && json === undefined) return undefined;
  const out: Record<string, string> = {};
  const seen = new Map<string, string>();
  const add = (name: string, value: string) => {
    // Assigned to a plain object, `__proto__` would set its prototype and vanish: refused by
    // name, as the service refuses it (core/payload.ts RESERVED_KEYS).
    if (RESERVED_KEYS.has(name.toLowerCase())) {
      throw new UsageError(
        `header ${name} is a reserved name (${[...RESERVED_KEYS].join(', ')} cannot be header names)`,
      );
    }
    const previous = seen.get(name.toLowerCase());
    if (previous !== undefined)
      throw new UsageError(`header ${name} is given twice (as ${previous} and ${name})`);
    seen.set(name.toLowerCase(), name);
    out[name] = value;
  };
  if (json !== undefined)
    for (const [name, value] of Object.entries(parseHeadersJson(json))) add(name, value);
  for (const flag of headerFlags) add(...parseHeader(flag));
  return out;
}

/** Parses a JSON flag or file (`--user-json`, `--file`) without echoing its content in the error. */
export function parseJsonObject(raw: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    // Say where, not what: JSON.parse quotes the input, which may be personal data.
    const text = (error as Error).message;
    const where = /line \d+ column \d+/.exec(text)?.[0] ?? /position \d+/.exec(text)?.[0];
    throw new UsageError(`${what}: not valid JSON${where ? ` (at ${where})` : ''}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${what}: expected a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
