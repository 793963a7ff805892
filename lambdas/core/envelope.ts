/**
 * The versioned queue envelope (docs/design.md §3). `parseMessage` turns the text of an SQS
 * message into a typed message or throws a {@link PoisonMessageError} saying why, so the
 * dispatcher can dead-letter it with that reason.
 */

import { parseAttemptLog } from './attempt-log-message';
import { ATTEMPTS_PER_CHAIN, ENVELOPE_VERSION, EVENT_KIND } from './constants';
import { PoisonMessageError, ValidationError } from './errors';
import { connectionIdOf, isConnectionId, isDeliveryId, isEventId } from './ids';
import { ATTEMPT_RULE, attemptNumber, fail, OCCURRED_AT_RULE } from './message-rules';
import { checkBody, isIsoUtc, payloadAndBody } from './payload';
import { parseProbe } from './probes';
import { isTraceparent } from './trace-context';
import type {
  AttemptLogMessage,
  DeliveryMessage,
  EventFacts,
  EventMessage,
  ProbeMessage,
  QueueMessage,
} from './types';

import { describe, MAX_JSON_DEPTH, nestsDeeperThan } from './untrusted';

/**
 * The queue a message arrived on (docs/design.md §3). Publishers can write the ingress queue, so
 * it carries `event` messages only; the retry queue is written by the dispatcher and the
 * operator tools alone and carries `delivery`, `attempt-log` and `probe` messages.
 */
export type QueueSource = 'ingress' | 'retry';

/** The message types each queue carries; any other type arriving there is poison. */
export const TYPES_BY_SOURCE: Readonly<Record<QueueSource, readonly QueueMessage['type'][]>> = {
  ingress: ['event'],
  retry: ['delivery', 'attempt-log', 'probe'],
};

/** Upper bound on explicitly targeted connections in one event. */
export const MAX_TARGET_CONNECTIONS = 100;

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

/**
 * A queue message read and checked, with what checking it computed that the caller needs:
 * an event's request body (serialised once while its size rule was checked) and, for events
 * and deliveries, the ids every attempt record repeats.
 */
export type ReadMessage =
  | { type: 'event'; message: EventMessage; body: string; facts: EventFacts }
  | { type: 'delivery'; message: DeliveryMessage; facts: EventFacts }
  | { type: 'attempt-log'; message: AttemptLogMessage }
  | { type: 'probe'; message: ProbeMessage };

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
      case 'probe':
        return { type: 'probe', message: parseProbe(m) };
      default:
        throw new PoisonMessageError(
          `unknown message type ${describe(m.type)} (expected "event", "delivery", "attempt-log" or "probe")`,
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
