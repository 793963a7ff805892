/**
 * The versioned queue envelope (docs/design.md §3). `parseMessage` turns the text of an SQS
 * message into a typed message or throws a {@link PoisonMessageError} saying why, so the
 * dispatcher can dead-letter it with that reason.
 */

import {
  ALLOWED_METHODS,
  ATTEMPTS_PER_CHAIN,
  ENVELOPE_VERSION,
  EVENT_KIND,
  MAX_ATTEMPT,
  MAX_BODY_BYTES,
} from './constants';
import { PoisonMessageError, ValidationError } from './errors';
import { connectionIdOf, isApplicationId, isConnectionId, isDeliveryId, isEventId, isUserId } from './ids';
import { checkBody, isIsoUtc, payloadAndBody } from './payload';
import { isBodyText, requestHeadersRule } from './request-check';
import { isTraceparent } from './trace-context';
import type {
  AttemptLogMessage,
  AttemptRecord,
  DeliveryMessage,
  EventFacts,
  EventMessage,
  Outcome,
  QueueMessage,
} from './types';
import { ATTEMPT_RECORD_FIELDS, OUTCOMES } from './types';

/** A trace id as X-Ray (`1-5759e988-bd862e3fe1be46a994272793`) or W3C (32 hex digits) writes it. */
const TRACE_ID = /^[0-9A-Za-z-]{1,64}$/;
const ATTEMPT_RECORD_FIELD_SET: ReadonlySet<string> = new Set(ATTEMPT_RECORD_FIELDS);

import { describe, MAX_JSON_DEPTH, nestsDeeperThan } from './untrusted';

/**
 * The queue a message arrived on (docs/design.md §3). Publishers can write the ingress queue, so
 * it carries `event` messages only; the retry queue is written by the dispatcher and the
 * operator tools alone and carries `delivery` and `attempt-log` messages.
 */
export type QueueSource = 'ingress' | 'retry';

/** The message types each queue carries; any other type arriving there is poison. */
export const TYPES_BY_SOURCE: Readonly<Record<QueueSource, readonly QueueMessage['type'][]>> = {
  ingress: ['event'],
  retry: ['delivery', 'attempt-log'],
};

/** Upper bound on explicitly targeted connections in one event. */
export const MAX_TARGET_CONNECTIONS = 100;

function fail(field: string, problem: string): never {
  throw new ValidationError(field, problem);
}

const OCCURRED_AT_RULE = 'must be an ISO 8601 UTC date-time with milliseconds, e.g. 2026-11-21T14:53:00.123Z';

function parseEvent(m: Record<string, unknown>): ReadMessage & { type: 'event' } {
  if (!isEventId(m.eventId)) fail('eventId', 'is required and must look like evt_<id>');
  if (m.event !== EVENT_KIND) fail('event', `must be "${EVENT_KIND}", got ${describe(m.event)}`);
  if (typeof m.occurredAt !== 'string') fail('occurredAt', OCCURRED_AT_RULE);
  let built: ReturnType<typeof payloadAndBody>;
  try {
    // occurredAt becomes the payload timestamp, whose rule buildPayload checks (once). The
    // body's size is a payload rule too: an event too big to deliver is poison here, where it
    // is dead-lettered with its reason, not a failure at fan-out that SQS would redeliver.
    built = payloadAndBody({ timestamp: m.occurredAt, user: m.user, application: m.application });
  } catch (error) {
    if (error instanceof ValidationError && error.field === 'timestamp') fail('occurredAt', OCCURRED_AT_RULE);
    throw error;
  }
  const { payload, body } = built;
  const message: EventMessage = {
    v: 1,
    type: 'event',
    eventId: m.eventId,
    event: EVENT_KIND,
    occurredAt: m.occurredAt,
    user: payload.user,
    application: payload.application,
  };
  if (m.connectionIds !== undefined) {
    const ids = m.connectionIds;
    if (!Array.isArray(ids) || ids.length === 0)
      fail('connectionIds', 'must be a non-empty array when present');
    if (ids.length > MAX_TARGET_CONNECTIONS)
      fail('connectionIds', `must list at most ${MAX_TARGET_CONNECTIONS} ids`);
    ids.forEach((id, i) => {
      if (!isConnectionId(id)) fail(`connectionIds[${i}]`, 'must look like con_<id>');
    });
    message.connectionIds = [...new Set(ids as string[])];
  }
  return { type: 'event', message, body, facts: factsOf(payload) };
}

/**
 * The exact request body of an event (docs/protocol.md §2 field order), the same bytes for every attempt.
 * The dispatcher takes it from {@link readMessage}, which serialises it once while checking.
 */
export function bodyOfEvent(event: EventMessage): string {
  return payloadAndBody({ timestamp: event.occurredAt, user: event.user, application: event.application })
    .body;
}

/** An attempt number a message may carry: a whole number from 1 to {@link MAX_ATTEMPT}. */
function attemptNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ATTEMPT;
}

const ATTEMPT_RULE = `must be a whole number from 1 to ${MAX_ATTEMPT}`;

function parseDelivery(m: Record<string, unknown>): ReadMessage & { type: 'delivery' } {
  if (!isDeliveryId(m.deliveryId)) fail('deliveryId', 'is required and must look like dlv_<ulid>_con_<id>');
  if (!isEventId(m.eventId)) fail('eventId', 'is required and must look like evt_<id>');
  if (m.connectionId !== connectionIdOf(m.deliveryId))
    fail('connectionId', 'must be the connection of deliveryId');
  if (!attemptNumber(m.attempt)) fail('attempt', ATTEMPT_RULE);
  const chainStart = m.chainStart ?? 1;
  if (!attemptNumber(chainStart) || chainStart > m.attempt || m.attempt - chainStart >= ATTEMPTS_PER_CHAIN) {
    fail('chainStart', `must be at most attempt and within ${ATTEMPTS_PER_CHAIN} attempts of it`);
  }
  if (typeof m.body !== 'string') fail('body', 'is required: the exact JSON text of the request body');
  const payload = checkBody(m.body);
  if (!isIsoUtc(m.firstAttemptAt)) fail('firstAttemptAt', 'must be an ISO 8601 UTC date-time');
  if (m.test !== undefined && typeof m.test !== 'boolean') fail('test', 'must be a boolean when present');
  if (m.publishedAt !== undefined && !isIsoUtc(m.publishedAt))
    fail('publishedAt', 'must be an ISO 8601 UTC date-time when present');
  if (m.dueAt !== undefined && !isIsoUtc(m.dueAt))
    fail('dueAt', 'must be an ISO 8601 UTC date-time when present');
  if (m.traceparent !== undefined && !isTraceparent(m.traceparent))
    fail('traceparent', 'must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>) when present');
  const message: DeliveryMessage = {
    v: 1,
    type: 'delivery',
    deliveryId: m.deliveryId,
    eventId: m.eventId,
    connectionId: m.connectionId as string,
    attempt: m.attempt,
    chainStart,
    body: m.body,
    firstAttemptAt: m.firstAttemptAt,
  };
  if (m.publishedAt !== undefined) message.publishedAt = m.publishedAt as string;
  if (m.dueAt !== undefined) message.dueAt = m.dueAt as string;
  if (m.traceparent !== undefined) message.traceparent = m.traceparent as string;
  if (m.test === true) message.test = true;
  return { type: 'delivery', message, facts: factsOf(payload) };
}

/** The ids every attempt record repeats, from a payload checked or built here. */
function factsOf(payload: { event: string; user: { id: string }; application: { id: string } }): EventFacts {
  return { applicationId: payload.application.id, userId: payload.user.id, event: payload.event };
}

/**
 * The facts of a delivery body built by this code (test sends): checked like a queued one.
 * @throws ValidationError naming the field.
 */
export function factsOfBody(body: string): EventFacts {
  return factsOf(checkBody(body));
}

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
function parseAttemptLog(m: Record<string, unknown>): AttemptLogMessage {
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
  if (
    record.traceId !== undefined &&
    !(typeof record.traceId === 'string' && TRACE_ID.test(record.traceId))
  ) {
    fail('record.traceId', 'must be a trace id (letters, digits and dashes, at most 64)');
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

function wholeNumber(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * A queue message read and checked, with what checking it computed that the caller needs:
 * an event's request body (serialised once while its size rule was checked) and, for events
 * and deliveries, the ids every attempt record repeats.
 */
export type ReadMessage =
  | { type: 'event'; message: EventMessage; body: string; facts: EventFacts }
  | { type: 'delivery'; message: DeliveryMessage; facts: EventFacts }
  | { type: 'attempt-log'; message: AttemptLogMessage };

/**
 * Parses the text of a queue message.
 * @throws PoisonMessageError when the text is not a valid message of a known version and type.
 */
export function parseMessage(text: string, source?: QueueSource): QueueMessage {
  return readMessage(text, source).message;
}

/**
 * {@link parseMessage}, also returning an event's request body (the dispatcher sends those bytes).
 * @throws PoisonMessageError when the text is not a valid message of a known version and type.
 */
export function readMessage(text: string, source?: QueueSource): ReadMessage {
  // Decided before parsing: JSON.parse copes with deep nesting, but every later step that
  // walks the value (validation, error texts) would not, and no valid message nests deeply.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new PoisonMessageError(`message nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new PoisonMessageError('message is not valid JSON', 'invalid_message', { cause });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new PoisonMessageError('message must be a JSON object');
  }
  const m = raw as Record<string, unknown>;
  if (m.v !== ENVELOPE_VERSION) {
    throw new PoisonMessageError(
      `unsupported envelope version ${describe(m.v)}; this dispatcher reads v${ENVELOPE_VERSION}`,
    );
  }
  if (source && !(TYPES_BY_SOURCE[source] as readonly unknown[]).includes(m.type)) {
    throw new PoisonMessageError(
      `message type ${describe(m.type)} is not accepted on the ${source} queue (it carries ${TYPES_BY_SOURCE[source].map((t) => `"${t}"`).join(' and ')} messages only)`,
    );
  }
  try {
    switch (m.type) {
      case 'event':
        return parseEvent(m);
      case 'delivery':
        return parseDelivery(m);
      case 'attempt-log':
        return { type: 'attempt-log', message: parseAttemptLog(m) };
      default:
        throw new PoisonMessageError(
          `unknown message type ${describe(m.type)} (expected "event", "delivery" or "attempt-log")`,
        );
    }
  } catch (error) {
    if (error instanceof ValidationError) {
      const reason = /^(user|application|body|timestamp)\b/.test(error.field)
        ? 'invalid_payload'
        : 'invalid_message';
      throw new PoisonMessageError(`invalid ${String(m.type)} message: ${error.message}`, reason, {
        cause: error,
      });
    }
    throw error;
  }
}

/** What an upstream service publishes; the publisher fills in the rest. */
export interface PublishInput {
  user: unknown;
  application: unknown;
  /** When the user was identified. @default now */
  occurredAt?: string;
  connectionIds?: string[];
  /** @default a new `evt_<ULID>` */
  eventId?: string;
}

/**
 * Builds and validates an event message exactly as the dispatcher will read it, so a bad
 * event is refused at publish with the field named, not dead-lettered later.
 * @throws ValidationError naming the field.
 */
export function buildEventMessage(
  input: PublishInput,
  defaults: { eventId: string; occurredAt: string },
): EventMessage {
  const candidate = {
    v: ENVELOPE_VERSION,
    type: 'event',
    eventId: input.eventId ?? defaults.eventId,
    event: EVENT_KIND,
    occurredAt: input.occurredAt ?? defaults.occurredAt,
    user: input.user,
    application: input.application,
    ...(input.connectionIds !== undefined ? { connectionIds: input.connectionIds } : {}),
  };
  return parseEvent(candidate).message;
}
