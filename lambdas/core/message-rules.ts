/**
 * The rules every queue message's fields are checked by (core/envelope.ts, and the attempt-log
 * message's checks in attempt-log-message.ts): a failed rule is a ValidationError naming the
 * field, which reading a message turns into poison.
 */

import { MAX_ATTEMPT } from './constants';
import { ValidationError } from './errors';

export function fail(field: string, problem: string): never {
  throw new ValidationError(field, problem);
}

export const OCCURRED_AT_RULE =
  'must be an ISO 8601 UTC date-time with milliseconds, e.g. 2026-11-21T14:53:00.123Z';

/** An attempt number a message may carry: a whole number from 1 to {@link MAX_ATTEMPT}. */
export function attemptNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ATTEMPT;
}

export const ATTEMPT_RULE = `must be a whole number from 1 to ${MAX_ATTEMPT}`;

export function wholeNumber(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
