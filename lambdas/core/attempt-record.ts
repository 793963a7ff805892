/**
 * The attempt record of one attempt (docs/design.md §5): what was sent, what came back, what was
 * decided, with secrets and custom header values redacted and every text bounded. Pure: the
 * dispatcher writes it (adapters/dynamodb/attempts.ts) and acts on the decision.
 */

import { RESPONSE_SNIPPET_BYTES } from './constants';
import { redact, truncateUtf8 } from './redact';
import { isoTime } from './time';
import type { AttemptRecord, AttemptResult, Decision, DeliveryMessage, EventFacts } from './types';

/** Longest error text an attempt record or a log line keeps, bytes. */
export const MAX_ERROR_LENGTH = 512;
const DAY_S = 86_400;

export interface AttemptRecordInput {
  delivery: DeliveryMessage;
  facts: EventFacts;
  request: { method: string; target: string; requestedAtMs: number };
  result: AttemptResult;
  decision: Decision;
  /** Values that must never appear in the record: the secret, custom header values, query values. */
  sensitive: readonly string[];
  /** Days the record is kept (DynamoDB TTL). */
  ttlDays: number;
  /** Now, for a retry's `nextAttemptAt`. */
  nowMs: number;
}

export interface BuiltRecord {
  record: AttemptRecord;
  statusCode?: number;
  /** The error a dead letter or parked delivery carries: the redacted error, or the HTTP status. */
  lastError?: string;
}

export function attemptRecordOf(input: AttemptRecordInput): BuiltRecord {
  const { delivery, facts, request, result, decision, sensitive } = input;
  const error =
    'error' in result ? truncateUtf8(redact(result.error, sensitive), MAX_ERROR_LENGTH) : undefined;
  const statusCode = result.kind === 'response' ? result.status : undefined;
  const record: AttemptRecord = {
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
    eventId: delivery.eventId,
    connectionId: delivery.connectionId,
    applicationId: facts.applicationId,
    userId: facts.userId,
    event: facts.event,
    method: request.method,
    target: request.target,
    requestedAt: isoTime(request.requestedAtMs),
    durationMs: result.durationMs,
    outcome: decision.outcome,
    final: decision.action !== 'retry',
    expiresAt: Math.floor(request.requestedAtMs / 1000) + input.ttlDays * DAY_S,
  };
  if (statusCode !== undefined) record.statusCode = statusCode;
  if (result.kind === 'response' && result.snippet) {
    record.responseSnippet = truncateUtf8(redact(result.snippet, sensitive), RESPONSE_SNIPPET_BYTES);
  }
  const lastError = error ?? (statusCode !== undefined ? `receiver answered HTTP ${statusCode}` : undefined);
  if (decision.action !== 'done' && lastError) record.error = lastError;
  if (delivery.test) record.test = true;
  if (decision.action === 'retry') record.nextAttemptAt = isoTime(input.nowMs + decision.delaySeconds * 1000);
  return { record, statusCode, lastError };
}
