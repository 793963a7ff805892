/**
 * The `attempt-log` message (docs/design.md §3): an attempt record the dispatcher could not write
 * at once, queued on the retry queue and written when it comes round. It is written to the attempt
 * log as it is, so each field is checked here; core/envelope.ts reads the envelope around it.
 */

import { ALLOWED_METHODS, EVENT_KIND, MAX_BODY_BYTES } from './constants';
import { connectionIdOf, isApplicationId, isDeliveryId, isEventId, isUserId, SEND_ID } from './ids';
import { ATTEMPT_RULE, attemptNumber, fail, OCCURRED_AT_RULE, wholeNumber } from './message-rules';
import { isIsoUtc } from './payload';
import { isBodyText, requestHeadersRule } from './request-check';
import type { AttemptLogMessage, AttemptRecord, Outcome } from './types';
import { ATTEMPT_RECORD_FIELDS, OUTCOMES } from './types';
import { describe } from './untrusted';

/** A trace id as X-Ray (`1-5759e988-bd862e3fe1be46a994272793`) or W3C (32 hex digits) writes it. */
const TRACE_ID = /^[0-9A-Za-z-]{1,64}$/;
const ATTEMPT_RECORD_FIELD_SET: ReadonlySet<string> = new Set(ATTEMPT_RECORD_FIELDS);

/** Longest free text an attempt record holds: the 1 KiB snippet or error, with room for escapes. */
const MAX_RECORD_TEXT = 4096;
/** Latest `expiresAt` a record may carry: ten years, the longest attempt TTL a stack allows. */
const MAX_TTL_SECONDS = 3650 * 86_400;

function text(record: Record<string, unknown>, field: string, optional = false): void {
  const value = record[field];
  if (value === undefined && optional) return;
  if (typeof value !== 'string' || value.length > MAX_RECORD_TEXT) {
    fail(`record.${field}`, `must be a string of at most ${MAX_RECORD_TEXT} characters`);
  }
}

/**
 * An attempt record read back from the retry queue, checked field by field: it is written to
 * the attempt log as it is, so nothing in it is taken on trust (its write never replaces a
 * record that exists, see AttemptLog).
 */
export function parseAttemptLog(m: Record<string, unknown>): AttemptLogMessage {
  const record = m.record as Record<string, unknown> | undefined;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) fail('record', 'is required');
  if (!isDeliveryId(record.deliveryId)) fail('record.deliveryId', 'must be a delivery id');
  if (!attemptNumber(record.attempt)) fail('record.attempt', ATTEMPT_RULE);
  if (record.connectionId !== connectionIdOf(record.deliveryId)) {
    fail('record.connectionId', 'must be the connection of record.deliveryId');
  }
  if (!isEventId(record.eventId)) fail('record.eventId', 'must look like evt_<id>');
  if (!isApplicationId(record.applicationId)) fail('record.applicationId', 'must look like app_<id>');
  if (!isUserId(record.userId)) fail('record.userId', 'must look like usr_<id>');
  if (record.event !== EVENT_KIND) fail('record.event', `must be "${EVENT_KIND}"`);
  if (!(ALLOWED_METHODS as readonly unknown[]).includes(record.method)) {
    fail('record.method', `must be one of ${ALLOWED_METHODS.join(', ')}`);
  }
  text(record, 'target');
  if (!isIsoUtc(record.requestedAt, true)) fail('record.requestedAt', OCCURRED_AT_RULE);
  if (!OUTCOMES.includes(record.outcome as Outcome))
    fail('record.outcome', `must be one of ${OUTCOMES.join(', ')}`);
  if (!wholeNumber(record.durationMs, 0, 3_600_000))
    fail('record.durationMs', 'must be a whole number of ms');
  if (record.statusCode !== undefined && !wholeNumber(record.statusCode, 100, 599)) {
    fail('record.statusCode', 'must be an HTTP status from 100 to 599');
  }
  text(record, 'responseSnippet', true);
  text(record, 'error', true);
  if (record.nextAttemptAt !== undefined && !isIsoUtc(record.nextAttemptAt, true)) {
    fail('record.nextAttemptAt', OCCURRED_AT_RULE);
  }
  if (typeof record.final !== 'boolean') fail('record.final', 'must be a boolean');
  if (record.test !== undefined && record.test !== true) fail('record.test', 'must be true when present');
  const headersRule = requestHeadersRule(record.requestHeaders, MAX_RECORD_TEXT);
  if (headersRule) fail('record.requestHeaders', headersRule);
  if (record.body !== undefined && !isBodyText(record.body)) {
    fail('record.body', `must be a string of at most ${MAX_BODY_BYTES} bytes`);
  }
  if (record.resentAs !== undefined) fail('record.resentAs', 'is set by a Resend, never queued');
  if (record.trigger !== undefined && record.trigger !== 'probe')
    fail('record.trigger', 'must be probe when present');
  if (
    record.traceId !== undefined &&
    !(typeof record.traceId === 'string' && TRACE_ID.test(record.traceId))
  ) {
    fail('record.traceId', 'must be a trace id (letters, digits and dashes, at most 64)');
  }
  if (record.sendId !== undefined && !(typeof record.sendId === 'string' && SEND_ID.test(record.sendId))) {
    fail('record.sendId', 'must be a send id (10 Crockford base32 characters)');
  }
  const requestedAtS = Math.floor(Date.parse(record.requestedAt as string) / 1000);
  if (!wholeNumber(record.expiresAt, requestedAtS, requestedAtS + MAX_TTL_SECONDS)) {
    fail('record.expiresAt', 'must be epoch seconds within the attempt TTL of requestedAt');
  }
  for (const key of Object.keys(record)) {
    if (!ATTEMPT_RECORD_FIELD_SET.has(key)) fail(`record.${describe(key)}`, 'is not an attempt record field');
  }
  return { v: 1, type: 'attempt-log', record: record as unknown as AttemptRecord };
}
