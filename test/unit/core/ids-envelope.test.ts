import { bodyOfEvent, parseMessage, readMessage } from '../../../lambdas/core/envelope';
import { PoisonMessageError, ValidationError } from '../../../lambdas/core/errors';
import { connectionIdOf, deliveryIdFor, newSendId, ulid } from '../../../lambdas/core/ids';
import { buildPayload, serialiseBody } from '../../../lambdas/core/payload';

const occurredAt = '2026-11-21T14:53:00.123Z';
const event = {
  v: 1,
  type: 'event',
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  occurredAt,
  user: { id: 'usr_1', email: 'a@example.com' },
  application: { id: 'app_1', name: 'Acme' },
};
const body = serialiseBody(
  buildPayload({ timestamp: occurredAt, user: event.user, application: event.application }),
);
const deliveryId = deliveryIdFor(event.eventId, 'con_a', Date.parse(occurredAt));
const delivery = {
  v: 1,
  type: 'delivery',
  deliveryId,
  eventId: event.eventId,
  connectionId: 'con_a',
  attempt: 2,
  chainStart: 1,
  body,
  firstAttemptAt: occurredAt,
};

describe('delivery ids', () => {
  it('are stable for the same event and connection, and differ per connection', () => {
    const t = Date.parse(occurredAt);
    expect(deliveryIdFor('evt_1', 'con_a', t)).toBe(deliveryIdFor('evt_1', 'con_a', t));
    expect(deliveryIdFor('evt_1', 'con_a', t)).not.toBe(deliveryIdFor('evt_1', 'con_b', t));
    expect(deliveryIdFor('evt_1', 'con_a', t)).not.toBe(deliveryIdFor('evt_2', 'con_a', t));
  });

  it('sort by time: a later event has a larger id', () => {
    const a = deliveryIdFor('evt_z', 'con_a', Date.parse('2026-01-01T00:00:00.000Z'));
    const b = deliveryIdFor('evt_a', 'con_a', Date.parse('2026-01-01T00:00:00.001Z'));
    expect(a < b).toBe(true);
  });

  it('carry their connection id', () => {
    expect(deliveryId).toMatch(/^dlv_[0-9A-HJKMNP-TV-Z]{26}_con_a$/);
    expect(connectionIdOf(deliveryId)).toBe('con_a');
    expect(() => connectionIdOf('dlv_123')).toThrow(ValidationError);
  });

  it('encode the ULID time part like the ULID spec (0 ms → 0000000000)', () => {
    expect(ulid(0, new Uint8Array(10))).toBe('00000000000000000000000000');
    expect(ulid(1469918176385, new Uint8Array(10)).slice(0, 10)).toBe('01ARYZ6S41');
  });
});

describe('readMessage', () => {
  it("returns an event's request body, serialised while checking it: the spec's bytes", () => {
    const read = readMessage(JSON.stringify(event), 'ingress');
    expect(read.type === 'event' && read.body).toBe(body);
    expect(bodyOfEvent(read.message as never)).toBe(body);
  });

  it("returns an event's and a delivery's ids from its body, read while checking it", () => {
    const facts = { applicationId: event.application.id, userId: event.user.id, event: 'user.identified' };
    expect(readMessage(JSON.stringify(event), 'ingress')).toMatchObject({ type: 'event', facts });
    expect(readMessage(JSON.stringify(delivery), 'retry')).toEqual({
      type: 'delivery',
      message: parseMessage(JSON.stringify(delivery)),
      facts,
    });
  });
});

describe('parseMessage', () => {
  it('reads an event and puts its user in spec order with metadata defaulted', () => {
    const m = parseMessage(JSON.stringify(event));
    expect(m).toMatchObject({ type: 'event', eventId: event.eventId, user: { id: 'usr_1', metadata: {} } });
  });

  it('reads a delivery', () => {
    expect(parseMessage(JSON.stringify(delivery))).toMatchObject({ type: 'delivery', attempt: 2, body });
  });

  it('de-duplicates explicit connection ids', () => {
    const m = parseMessage(JSON.stringify({ ...event, connectionIds: ['con_a', 'con_a', 'con_b'] }));
    expect(m.type === 'event' && m.connectionIds).toEqual(['con_a', 'con_b']);
  });

  it.each([
    ['{not json', 'invalid_message', 'not valid JSON'],
    ['[1]', 'invalid_message', 'JSON object'],
    [JSON.stringify({ ...event, v: 2 }), 'invalid_message', 'unsupported envelope version 2'],
    [JSON.stringify({ ...event, type: 'other' }), 'invalid_message', 'unknown message type'],
    [
      JSON.stringify({ ...event, event: 'user.deleted' }),
      'invalid_message',
      'event: must be "user.identified"',
    ],
    [JSON.stringify({ ...event, eventId: 'x' }), 'invalid_message', 'eventId'],
    [JSON.stringify({ ...event, occurredAt: 'now' }), 'invalid_message', 'occurredAt'],
    [JSON.stringify({ ...event, occurredAt: 1_732_200_000_000 }), 'invalid_message', 'occurredAt'],
    [JSON.stringify({ ...event, user: { email: 'a@b.c' } }), 'invalid_payload', 'user.id'],
    [JSON.stringify({ ...event, application: { id: 'app_1' } }), 'invalid_payload', 'application.name'],
    [JSON.stringify({ ...event, connectionIds: [] }), 'invalid_message', 'connectionIds'],
    [JSON.stringify({ ...event, connectionIds: ['nope'] }), 'invalid_message', 'connectionIds[0]'],
    [JSON.stringify({ ...delivery, connectionId: 'con_b' }), 'invalid_message', 'connectionId'],
    [JSON.stringify({ ...delivery, attempt: 0 }), 'invalid_message', 'attempt'],
    [JSON.stringify({ ...delivery, attempt: 6, chainStart: 1 }), 'invalid_message', 'chainStart'],
    [JSON.stringify({ ...delivery, body: '{"event":"user.identified"}' }), 'invalid_payload', 'body'],
    [JSON.stringify({ ...delivery, body: body.replace('usr_1', 'bad') }), 'invalid_payload', 'user.id'],
  ])('dead-letters poison %#: reason %s, message naming %s', (text, reason, mention) => {
    let caught: unknown;
    try {
      parseMessage(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PoisonMessageError);
    expect((caught as PoisonMessageError).reason).toBe(reason);
    expect((caught as Error).message).toContain(mention);
  });
});

describe('a deferred attempt record from the retry queue', () => {
  const record = {
    deliveryId,
    attempt: 2,
    eventId: event.eventId,
    connectionId: 'con_a',
    applicationId: 'app_1',
    userId: 'usr_1',
    event: 'user.identified',
    method: 'POST',
    target: 'https://h.example/hook',
    requestedAt: occurredAt,
    durationMs: 12,
    outcome: 'delivered',
    statusCode: 200,
    final: true,
    expiresAt: Math.floor(Date.parse(occurredAt) / 1000) + 86_400,
  };
  const text = (over: Record<string, unknown>) =>
    JSON.stringify({ v: 1, type: 'attempt-log', record: { ...record, ...over } });

  it('keeps a trace id, and refuses one that is not a trace id by name', () => {
    const traceId = '1-6925a3c0-0123456789abcdef01234567';
    const parsed = parseMessage(text({ traceId }), 'retry');
    expect(parsed).toMatchObject({ type: 'attempt-log', record: { traceId } });
    expect(() => parseMessage(text({ traceId: 'x'.repeat(65) }), 'retry')).toThrow(/record\.traceId/);
    expect(() => parseMessage(text({ traceId: '<b>1</b>' }), 'retry')).toThrow(/record\.traceId/);
  });

  it('keeps a send id (two sends of one attempt are two records), and refuses one that is not a send id by name', () => {
    const sendId = newSendId();
    expect(parseMessage(text({ sendId }), 'retry')).toMatchObject({
      type: 'attempt-log',
      record: { sendId },
    });
    expect(() => parseMessage(text({ sendId: 'x#y' }), 'retry')).toThrow(/record\.sendId/);
    expect(() => parseMessage(text({ sendId: 7 }), 'retry')).toThrow(/record\.sendId/);
  });
});
