/**
 * The versioned queue envelope (DESIGN.md §3). `parseMessage` turns the text of an SQS
 * message into a typed message or throws a {@link PoisonMessageError} saying why, so the
 * dispatcher can dead-letter it with that reason.
 */

import { ATTEMPTS_PER_CHAIN, ENVELOPE_VERSION, EVENT_KIND } from './constants';
import { PoisonMessageError, ValidationError } from './errors';
import { connectionIdOf, isConnectionId, isDeliveryId, isEventId } from './ids';
import { buildPayload, checkBody, isIsoUtc, serialiseBody } from './payload';
import type { AttemptRecord, DeliveryMessage, EventMessage, QueueMessage } from './types';

/** Upper bound on explicitly targeted connections in one event. */
export const MAX_TARGET_CONNECTIONS = 100;

function fail(field: string, problem: string): never {
  throw new ValidationError(field, problem);
}

const OCCURRED_AT_RULE = 'must be an ISO 8601 UTC date-time with milliseconds, e.g. 2026-11-21T14:53:00.123Z';

function parseEvent(m: Record<string, unknown>): EventMessage {
  if (!isEventId(m.eventId)) fail('eventId', 'is required and must look like evt_<id>');
  if (m.event !== EVENT_KIND) fail('event', `must be "${EVENT_KIND}", got ${JSON.stringify(m.event)}`);
  if (typeof m.occurredAt !== 'string') fail('occurredAt', OCCURRED_AT_RULE);
  let payload: ReturnType<typeof buildPayload>;
  try {
    // occurredAt becomes the payload timestamp, whose rule buildPayload checks (once).
    payload = buildPayload({ timestamp: m.occurredAt, user: m.user, application: m.application });
  } catch (error) {
    if (error instanceof ValidationError && error.field === 'timestamp') fail('occurredAt', OCCURRED_AT_RULE);
    throw error;
  }
  // The body's size is a payload rule too: an event too big to deliver is poison here, where
  // it is dead-lettered with its reason, not a failure at fan-out that SQS would redeliver.
  const body = serialiseBody(payload);
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
  bodies.set(message, body);
  return message;
}

/** The request body of each event this module has validated: serialised once, while checking. */
const bodies = new WeakMap<EventMessage, string>();

/** The exact request body of an event (spec §2 field order), the same bytes for every attempt. */
export function bodyOfEvent(event: EventMessage): string {
  return (
    bodies.get(event) ??
    serialiseBody(
      buildPayload({ timestamp: event.occurredAt, user: event.user, application: event.application }),
    )
  );
}

function positiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function parseDelivery(m: Record<string, unknown>): DeliveryMessage {
  if (!isDeliveryId(m.deliveryId)) fail('deliveryId', 'is required and must look like dlv_<ulid>_con_<id>');
  if (!isEventId(m.eventId)) fail('eventId', 'is required and must look like evt_<id>');
  if (m.connectionId !== connectionIdOf(m.deliveryId))
    fail('connectionId', 'must be the connection of deliveryId');
  if (!positiveInt(m.attempt)) fail('attempt', 'must be a whole number >= 1');
  const chainStart = m.chainStart ?? 1;
  if (!positiveInt(chainStart) || chainStart > m.attempt || m.attempt - chainStart >= ATTEMPTS_PER_CHAIN) {
    fail('chainStart', `must be at most attempt and within ${ATTEMPTS_PER_CHAIN} attempts of it`);
  }
  if (typeof m.body !== 'string') fail('body', 'is required: the exact JSON text of the request body');
  checkBody(m.body);
  if (!isIsoUtc(m.firstAttemptAt)) fail('firstAttemptAt', 'must be an ISO 8601 UTC date-time');
  if (m.test !== undefined && typeof m.test !== 'boolean') fail('test', 'must be a boolean when present');
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
  if (m.test === true) message.test = true;
  return message;
}

function parseAttemptLog(m: Record<string, unknown>): QueueMessage {
  const record = m.record as Partial<AttemptRecord> | undefined;
  if (typeof record !== 'object' || record === null) fail('record', 'is required');
  if (!isDeliveryId(record.deliveryId)) fail('record.deliveryId', 'must be a delivery id');
  if (!positiveInt(record.attempt)) fail('record.attempt', 'must be a whole number >= 1');
  if (record.connectionId !== connectionIdOf(record.deliveryId)) {
    fail('record.connectionId', 'must be the connection of record.deliveryId');
  }
  return { v: 1, type: 'attempt-log', record: record as AttemptRecord };
}

/**
 * Parses the text of a queue message.
 * @throws PoisonMessageError when the text is not a valid message of a known version and type.
 */
export function parseMessage(text: string): QueueMessage {
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
      `unsupported envelope version ${JSON.stringify(m.v)}; this dispatcher reads v${ENVELOPE_VERSION}`,
    );
  }
  try {
    switch (m.type) {
      case 'event':
        return parseEvent(m);
      case 'delivery':
        return parseDelivery(m);
      case 'attempt-log':
        return parseAttemptLog(m);
      default:
        throw new PoisonMessageError(
          `unknown message type ${JSON.stringify(m.type)} (expected "event", "delivery" or "attempt-log")`,
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
  return parseEvent(candidate);
}
