/**
 * The attempt record of one attempt (docs/design.md §5): what was sent, what came back, what was
 * decided, with secrets and custom header values redacted and every text bounded. Pure: the
 * dispatcher writes it (adapters/dynamodb/attempts.ts) and acts on the decision.
 */

import { RESPONSE_SNIPPET_BYTES } from './constants';
import { newSendId } from './ids';
import { redactedExcerpt } from './redact';
import { isoTime } from './time';
import {
  type AttemptRecord,
  type AttemptResult,
  type Decision,
  type DeliveryMessage,
  type EventFacts,
  HIDDEN_HEADER_VALUE,
  type KeepBodies,
  type RequestHeader,
} from './types';

/** Longest error text an attempt record or a log line keeps, bytes. */
export const MAX_ERROR_LENGTH = 512;
const DAY_S = 86_400;

/** What an attempt sent, as settling receives it. */
export interface SentRequest {
  method: string;
  target: string;
  requestedAtMs: number;
  /** The headers as sent (absent for a refusal: nothing was sent). */
  headers?: Record<string, string>;
  /** Names of the connection's custom headers, whose values are never kept. */
  customNames?: readonly string[];
  /** The attempt span's trace id (tracing on only). */
  traceId?: string;
}

export interface AttemptRecordInput {
  delivery: DeliveryMessage;
  facts: EventFacts;
  request: SentRequest;
  result: AttemptResult;
  decision: Decision;
  /** Values that must never appear in the record: the secret, custom header values, query values. */
  sensitive: readonly string[];
  /** Days the record is kept (DynamoDB TTL). */
  ttlDays: number;
  /** Now, for a retry's `nextAttemptAt`. */
  nowMs: number;
  /** Which bodies the log keeps (docs/design.md §5). @default 'all' */
  keepBodies?: KeepBodies;
}

export interface BuiltRecord {
  record: AttemptRecord;
  statusCode?: number;
  /** The error a dead letter or parked delivery carries: the redacted error, or the HTTP status. */
  lastError?: string;
}

export function attemptRecordOf(input: AttemptRecordInput): BuiltRecord {
  const { delivery, facts, request, result, decision, sensitive } = input;
  const error = 'error' in result ? redactedExcerpt(result.error, sensitive, MAX_ERROR_LENGTH) : undefined;
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
    sendId: newSendId(),
    expiresAt: Math.floor(request.requestedAtMs / 1000) + input.ttlDays * DAY_S,
  };
  if (statusCode !== undefined) record.statusCode = statusCode;
  if (result.kind === 'response' && result.snippet) {
    record.responseSnippet = redactedExcerpt(result.snippet, sensitive, RESPONSE_SNIPPET_BYTES);
  }
  const lastError = error ?? (statusCode !== undefined ? `receiver answered HTTP ${statusCode}` : undefined);
  if (decision.action !== 'done' && lastError) record.error = lastError;
  if (delivery.test) record.test = true;
  if (delivery.probe) record.trigger = 'probe';
  if (request.traceId) record.traceId = request.traceId;
  if (decision.action === 'retry') record.nextAttemptAt = isoTime(input.nowMs + decision.delaySeconds * 1000);
  if (request.headers) record.requestHeaders = requestHeadersOf(request.headers, request.customNames ?? []);
  if (keepsBody(delivery.attempt, decision.outcome, input.keepBodies ?? 'all')) record.body = delivery.body;
  return { record, statusCode, lastError };
}

/**
 * Whether an attempt's record carries the delivery's body: only the first attempt's, so a
 * delivery's body is kept once however many attempts it takes; with `failures`, only when that
 * attempt failed (a delivery that fails later keeps no body: docs/design.md §5 "The request is kept").
 */
export function keepsBody(attempt: number, outcome: string, keep: KeepBodies): boolean {
  return attempt === 1 && (keep === 'all' || outcome !== 'delivered');
}

/**
 * The headers of a request as the attempt log keeps them: every header in the order sent, the
 * value of each custom header replaced by {@link HIDDEN_HEADER_VALUE} (they carry the
 * receiver's credentials); the signature and timestamp are kept, they prove nothing without the
 * secret and the receiver's developer needs them.
 */
export function requestHeadersOf(
  headers: Record<string, string>,
  customNames: readonly string[],
): RequestHeader[] {
  const hidden = new Set(customNames.map((n) => n.toLowerCase()));
  return Object.keys(headers).map((name) => ({
    name,
    value: hidden.has(name.toLowerCase()) ? HIDDEN_HEADER_VALUE : headers[name]!,
  }));
}
