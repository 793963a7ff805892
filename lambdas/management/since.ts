/**
 * `since`, wherever the management library, the API, the console and the CLI take one: an ISO
 * 8601 date or date-time with a zone, or a duration back from now (`30m`, `24h`, `7d`, `1w`).
 * Pure, so the API's request schemas and the CLI's flags check with the same rule the library
 * applies, in the same words.
 */

import { ValidationError } from '../core/errors';

/**
 * An ISO 8601 date, or date-time with an explicit zone (`2026-11-21`, `2026-11-21T14:53:00Z`):
 * a time without a zone would be read in the server's own zone.
 */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i;
/** What a `since` must be, as an error says it. */
export const SINCE_RULE =
  'must be an ISO 8601 time with a zone (2026-11-21T14:00:00Z) or a duration like 30m, 24h or 7d';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * A `since` as epoch ms; undefined when it is not one of the forms {@link parseSince} takes.
 * A duration has at most 6 digits: `99999999d` would reach back before any date a store holds.
 */
export function sinceMs(since: string, nowMs: number): number | undefined {
  const text = since.trim();
  const relative = /^(\d{1,6})\s*([smhdw])$/i.exec(text);
  if (relative) {
    const unit = UNIT_MS[relative[2]!.toLowerCase() as keyof typeof UNIT_MS];
    return nowMs - Number(relative[1]) * unit;
  }
  const ms = ISO_DATE_TIME.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** Whether `since` is an ISO time or a duration {@link parseSince} takes (the API checks queries with it). */
export function isSince(since: string): boolean {
  return sinceMs(since, 0) !== undefined;
}

/**
 * A `since` option, on every route and call that takes one: an ISO 8601 date or date-time
 * with a zone, or a duration back from now (`30m`, `24h`, `7d`).
 */
export function parseSince(since: string | undefined, nowMs: number): number | undefined {
  if (since === undefined || since === '') return undefined;
  const ms = sinceMs(since, nowMs);
  if (ms === undefined) throw new ValidationError('since', SINCE_RULE);
  return ms;
}

/**
 * Why a window [since, until) selects nothing, or undefined when it is one: a `since` at or
 * after `until` (a date in the future, when until is now). The API's stats route and
 * `webhooks stats` refuse with these words.
 */
export function windowProblem(sinceMs: number, untilMs: number): string | undefined {
  if (sinceMs < untilMs) return undefined;
  return `must be before until (${new Date(untilMs).toISOString()}; until is now when not given)`;
}
