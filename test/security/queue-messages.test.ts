/**
 * Adversarial suite, queue messages (issue 11): what a publisher holding only
 * `sqs:SendMessage` on the ingress queue can make the dispatcher do, and what a forged
 * message on the internal retry queue can still not do. The real dispatcher core runs
 * against the in-memory ports (test/support/memory/), whose attempt log refuses to replace a
 * record, as the DynamoDB one does (test/contract/ holds them to it).
 */

import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { MAX_ATTEMPT } from '../../lambdas/core/constants';
import { createDispatcher } from '../../lambdas/core/dispatch';
import type { QueueSource } from '../../lambdas/core/envelope';
import { bodyOfEvent, buildEventMessage, parseMessage } from '../../lambdas/core/envelope';
import { deliveryIdFor } from '../../lambdas/core/ids';
import { MAX_DEAD_LETTER_SOURCE_BYTES } from '../../lambdas/core/poison';
import type { Connection } from '../../lambdas/core/types';
import { queueJson } from '../../lambdas/core/untrusted';
import { WebhookPublisher } from '../../lambdas/publisher';
import { connection, ok, SECRET } from '../support/fixtures';
import { memoryPorts } from '../support/memory';

const plenty = { remainingMs: () => 120_000 };
const EVENT_ID = 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7';
const APP_A = { id: 'app_a', name: 'Tenant A' };
const APP_B = { id: 'app_b', name: 'Tenant B' };

function eventOf(app = APP_A, extra: Record<string, unknown> = {}) {
  return {
    v: 1,
    type: 'event',
    eventId: EVENT_ID,
    event: 'user.identified',
    occurredAt: '2026-11-21T14:53:00.123Z',
    user: { id: 'usr_7', email: 'grace@example.com' },
    application: app,
    ...extra,
  };
}

function deliveryOf(connectionId: string, app = APP_A, extra: Record<string, unknown> = {}) {
  const event = buildEventMessage(
    { user: { id: 'usr_7', email: 'grace@example.com' }, application: app, eventId: EVENT_ID },
    { eventId: EVENT_ID, occurredAt: '2026-11-21T14:53:00.123Z' },
  );
  return {
    v: 1,
    type: 'delivery',
    deliveryId: deliveryIdFor(EVENT_ID, connectionId, Date.parse('2026-11-21T14:53:00.123Z')),
    eventId: EVENT_ID,
    connectionId,
    attempt: 2,
    chainStart: 1,
    body: bodyOfEvent(event),
    firstAttemptAt: '2026-11-21T14:53:01.000Z',
    ...extra,
  };
}

function setup(connections: Connection[] = [connection('con_a', { applicationId: APP_A.id })]) {
  const f = memoryPorts(connections, { responder: () => ok(200) });
  const secretsAsked: string[] = [];
  const secrets = f.deps.secrets;
  f.deps.secrets = {
    current: (c) => {
      secretsAsked.push(c.connectionId);
      return secrets.current(c);
    },
  };
  const dispatcher = createDispatcher(f.deps, {
    headerPrefix: 'X-Service',
    attemptTtlDays: 30,
    concurrency: 10,
    egress: { allowedPorts: [443], allowLoopback: false },
  });
  async function run(body: unknown, source: QueueSource = 'ingress', messageId = 'm1') {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return dispatcher.processBatch([{ messageId, body: text, source }], plenty);
  }
  return { ...f, dispatcher, run, secretsAsked };
}

describe('the ingress queue carries events only', () => {
  it.each([
    ['delivery', () => deliveryOf('con_a')],
    ['attempt-log', () => ({ v: 1, type: 'attempt-log', record: { deliveryId: 'x' } })],
  ])(
    'a %s message written by a publisher is poison: nothing sent, dead-lettered with the reason',
    async (type, make) => {
      const { run, state } = setup();
      const { failures } = await run(make(), 'ingress');
      expect(failures).toEqual([]);
      expect(state.sent).toHaveLength(0);
      expect(state.records).toHaveLength(0);
      expect(state.scheduled).toHaveLength(0);
      expect(state.deadLetters).toHaveLength(1);
      expect(state.deadLetters[0]).toMatchObject({
        reason: 'invalid_message',
        sourceQueue: 'ingress',
        error: expect.stringContaining(`message type "${type}" is not accepted on the ingress queue`),
      });
    },
  );

  it('a record whose queue is not known is read as ingress (the fail-safe side)', async () => {
    const { dispatcher, state } = setup();
    await dispatcher.processBatch([{ messageId: 'm', body: JSON.stringify(deliveryOf('con_a')) }], plenty);
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]?.error).toMatch(/not accepted on the ingress queue/);
  });

  it('an event on the retry queue is poison too: each queue carries its own types', async () => {
    const { run, state } = setup();
    await run(eventOf(), 'retry');
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]).toMatchObject({ reason: 'invalid_message', sourceQueue: 'retry' });
  });

  it.each([
    ['an array', ['delivery']],
    ['an object', { toString: 'delivery' }],
    ['a long string', 'delivery'.repeat(10_000)],
  ])('a type given as %s is poison with a short error text', async (_kind, type) => {
    const { run, state } = setup();
    await run({ ...deliveryOf('con_a'), type }, 'ingress');
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]!.error.length).toBeLessThanOrEqual(512);
  });
});

describe('attempt numbers and chain starts are bounded integers', () => {
  it.each([
    ['beyond 2^53', 2 ** 53 + 2],
    ['just past the maximum', MAX_ATTEMPT + 1],
    ['fractional', 2.5],
    ['a numeric string', '2'],
    ['negative', -1],
  ])('a delivery whose attempt is %s is poison: nothing sent, no retry chain', async (_name, attempt) => {
    const { run, state, secretsAsked } = setup();
    await run(deliveryOf('con_a', APP_A, { attempt, chainStart: 1 }), 'retry');
    expect(state.sent).toHaveLength(0);
    expect(state.scheduled).toHaveLength(0);
    expect(secretsAsked).toEqual([]);
    expect(state.deadLetters[0]).toMatchObject({ reason: 'invalid_message' });
  });

  it('a chain start past the maximum (an endless chain) is poison', async () => {
    const { run, state } = setup();
    await run(deliveryOf('con_a', APP_A, { attempt: 2 ** 53, chainStart: 2 ** 53 }), 'retry');
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]!.error).toMatch(/attempt: must be a whole number from 1 to 1000/);
  });

  it('the last allowed attempt is made and ends its chain: no retry past the maximum', async () => {
    const f = setup();
    f.state.connections.get('con_a')!.url = 'https://a.example.com/hooks';
    const { run, state } = f;
    await run(deliveryOf('con_a', APP_A, { attempt: MAX_ATTEMPT, chainStart: MAX_ATTEMPT - 3 }), 'retry');
    expect(state.sent).toHaveLength(1);
    expect(state.scheduled).toHaveLength(0);
  });
});

describe("a delivery's body must belong to its connection's application", () => {
  it("a delivery with application A's body naming application B's connection is refused: nothing sent, B's secret never read", async () => {
    const { run, state, secretsAsked } = setup([
      connection('con_a', { applicationId: APP_A.id }),
      connection('con_b', { applicationId: APP_B.id, url: 'https://tenant-b.example.com/hooks' }),
    ]);
    const { failures } = await run(deliveryOf('con_b', APP_A), 'retry');
    expect(failures).toEqual([]);
    expect(state.sent).toHaveLength(0);
    expect(secretsAsked).toEqual([]);
    // Not even a record: tenant B's log, stats and failure counts never show tenant A's mistake.
    expect(state.records).toEqual([]);
    expect(state.deadLetters[0]).toMatchObject({ reason: 'connection_invalid' });
    expect(JSON.stringify(state)).not.toContain('tenant-b.example.com');
  });

  it('the same holds for a test send given a connection of another application', async () => {
    const { dispatcher, state } = setup();
    const other = connection('con_b', { applicationId: APP_B.id });
    const delivery = parseMessage(JSON.stringify(deliveryOf('con_b', APP_A)), 'retry');
    const rec = await dispatcher.attemptOnce(delivery as never, other, plenty);
    expect(rec).toMatchObject({ outcome: 'rejected' });
    expect(state.sent).toHaveLength(0);
  });

  it('an event naming another application in connectionIds is refused for that connection', async () => {
    const { run, state } = setup([
      connection('con_a', { applicationId: APP_A.id }),
      connection('con_b', { applicationId: APP_B.id }),
    ]);
    await run(eventOf(APP_A, { connectionIds: ['con_b'] }), 'ingress');
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]).toMatchObject({ reason: 'connection_invalid' });
    expect(state.records).toEqual([]);
  });
});

describe('an attempt-log message never replaces a record', () => {
  async function recordOfAttempt() {
    const f = setup();
    f.state.fail.add('attemptLog');
    const real = f.deps.attemptLog;
    f.deps.attemptLog = {
      append: (r) => (f.state.fail.has('attemptLog') ? Promise.reject(new Error('down')) : real.append(r)),
    };
    return f;
  }

  it('a forged record for an attempt already logged is refused and logged; the genuine one stays', async () => {
    const f = setup();
    await f.run(deliveryOf('con_a'), 'retry');
    const genuine = f.state.records[0]!;
    expect(genuine.outcome).toBe('delivered');
    const forged = {
      ...genuine,
      outcome: 'http_error',
      statusCode: 500,
      error: 'receiver answered HTTP 500',
    };
    await f.run({ v: 1, type: 'attempt-log', record: forged }, 'retry');
    expect(f.state.deadLetters).toEqual([]);
    expect(await f.attempts.ofDelivery(genuine.deliveryId)).toEqual([genuine]);
    expect(f.state.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/never replaced/) }),
    );
  });

  it('a true duplicate (the same record written again) is a quiet no-op', async () => {
    const f = await recordOfAttempt();
    await f.run(deliveryOf('con_a'), 'retry');
    expect(f.state.deferred).toHaveLength(1);
    f.state.fail.delete('attemptLog');
    const message = JSON.parse(queueJson({ v: 1, type: 'attempt-log', record: f.state.deferred[0] }));
    await f.run(message, 'retry');
    await f.run(message, 'retry');
    expect(f.state.records).toHaveLength(1);
    expect(f.state.logs.filter((l) => /never replaced/.test(l.message))).toHaveLength(0);
  });

  it.each([
    ['an unknown outcome', { outcome: 'hacked' }],
    ['an extra field', { isAdmin: true }],
    ['an attempt beyond the maximum', { attempt: 2 ** 53 }],
    ['a TTL far in the future', { expiresAt: 99_999_999_999 }],
    ['a huge snippet', { responseSnippet: 'x'.repeat(100_000) }],
    ['another connection', { connectionId: 'con_zzz' }],
    ['a Resend mark (set by the API alone)', { resentAs: 4 }],
    ['request headers that are not a list', { requestHeaders: { Authorization: 'x' } }],
    [
      'a request header with more than a name and value',
      { requestHeaders: [{ name: 'a', value: 'b', x: 1 }] },
    ],
    [
      'too many request headers',
      { requestHeaders: Array.from({ length: 28 }, () => ({ name: 'a', value: 'b' })) },
    ],
    ['a body over 256 KiB', { body: 'x'.repeat(256 * 1024 + 1) }],
  ])('a record with %s is poison', async (_name, change) => {
    const f = setup();
    await f.run(deliveryOf('con_a'), 'retry');
    const record = {
      ...f.state.records[0]!,
      deliveryId: `${f.state.records[0]!.deliveryId}`,
      attempt: 3,
      ...change,
    };
    f.state.records.length = 0;
    await f.run({ v: 1, type: 'attempt-log', record }, 'retry');
    expect(f.state.records).toHaveLength(0);
    expect(f.state.deadLetters.at(-1)).toMatchObject({ reason: 'invalid_message' });
  });
});

describe('poison is decided on first receipt, and its dead letter always fits', () => {
  it('deeply nested JSON does not overflow the stack: dead-lettered at once with its reason', async () => {
    const { run, state } = setup();
    const deep = `{"v":1,"type":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const { failures } = await run(deep);
    expect(failures).toEqual([]);
    expect(state.deadLetters[0]).toMatchObject({
      reason: 'invalid_message',
      error: 'message nests deeper than 16 levels',
    });
  });

  it('deep nesting inside user data, or inside a queued body, is poison too', async () => {
    const { run, state } = setup();
    const nested = `${'{"a":'.repeat(50)}1${'}'.repeat(50)}`;
    await run(`{"v":1,"type":"event","eventId":"${EVENT_ID}","user":{"id":${nested}}}`);
    const body = `{"event":"user.identified","user":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    await run({ ...deliveryOf('con_a'), body }, 'retry');
    expect(state.deadLetters).toHaveLength(2);
    expect(state.deadLetters.map((d) => d.reason)).toEqual(['invalid_message', 'invalid_payload']);
    expect(state.sent).toHaveLength(0);
  });

  it('a huge string of characters JSON must escape still gives a dead letter within 1 MiB', async () => {
    const { run, state } = setup();
    const text = `{"v":1,"type":"event","junk":"${'\\u0001'.repeat(170_000)}"}`;
    // As received: the escapes are already in the text; a raw control-character body too.
    const raw = `{"v":1,"type":"nope","junk":"${'\u0001'.repeat(900_000)}"}`;
    await run(text);
    await run(raw);
    for (const letter of state.deadLetters) {
      const bytes = Buffer.byteLength(queueJson(letter), 'utf8');
      expect(bytes).toBeLessThan(1024 * 1024);
      expect(Buffer.byteLength(JSON.stringify(letter.source), 'utf8')).toBeLessThanOrEqual(
        MAX_DEAD_LETTER_SOURCE_BYTES,
      );
    }
    expect(state.deadLetters[1]!.sourceBytes).toBe(Buffer.byteLength(raw, 'utf8'));
  });

  it('error texts quote at most a short prefix of the input', async () => {
    const { run, state } = setup();
    const long = `usr_${'A'.repeat(300_000)}!`;
    await run(eventOf(APP_A, { user: { id: long } }));
    await run(eventOf(APP_A, { user: { id: 'usr_1', metadata: { ['k'.repeat(100_000)]: {} } } }));
    await run({ v: 'x'.repeat(100_000) });
    for (const letter of state.deadLetters) {
      expect(letter.error.length).toBeLessThanOrEqual(512);
      expect(letter.error).not.toContain('A'.repeat(100));
      expect(letter.error).not.toContain('k'.repeat(100));
      expect(letter.error).not.toContain('x'.repeat(100));
    }
  });
});

describe('validation agrees with what happens later', () => {
  const build = (user: unknown, occurredAt?: string) =>
    buildEventMessage(
      { user, application: APP_A, ...(occurredAt ? { occurredAt } : {}) },
      { eventId: EVENT_ID, occurredAt: '2026-11-21T14:53:00.123Z' },
    );

  it.each(['__proto__', 'constructor', 'prototype'])(
    'the metadata key %s is refused with a clear error, not silently dropped',
    (key) => {
      const user = JSON.parse(`{"id":"usr_1","metadata":{"${key}":"x","plan":"pro"}}`);
      expect(() => build(user)).toThrow(/user\.metadata\[".+"\]: is a reserved name/);
    },
  );

  it.each([
    ['occurredAt', '2026-02-30T00:00:00.000Z'],
    ['occurredAt', '2026-04-31T12:00:00.000Z'],
    ['occurredAt', '2026-01-01T24:00:00.000Z'],
    ['user.createdAt', '2025-02-29T00:00:00Z'],
  ])('an impossible calendar date in %s (%s) is refused', (field, value) => {
    const user = field === 'user.createdAt' ? { id: 'usr_1', createdAt: value } : { id: 'usr_1' };
    expect(() => build(user, field === 'occurredAt' ? value : undefined)).toThrow(field);
  });

  it('a real leap day is accepted', () => {
    expect(() =>
      build({ id: 'usr_1', createdAt: '2028-02-29T00:00:00Z' }, '2028-02-29T10:00:00.000Z'),
    ).not.toThrow();
  });

  it('characters SQS cannot carry (U+FFFE, U+FFFF) are escaped in every message the pipeline writes, and the body stays byte-identical', () => {
    const event = build({ id: 'usr_1', name: 'Ada \uFFFF \uFFFE' });
    const text = queueJson(event);
    expect(text).not.toMatch(/[\uFFFE\uFFFF]/);
    expect(text).toContain('\\uffff');
    const back = parseMessage(text, 'ingress');
    expect(bodyOfEvent(back as never)).toBe(bodyOfEvent(event));
    expect(bodyOfEvent(event)).toContain('\uFFFF');
  });
});

describe('nothing a message says reaches a receiver or a log unchecked', () => {
  it('a signed delivery only ever carries the secret of the connection it went to', async () => {
    const { run, state } = setup();
    await run(deliveryOf('con_a'), 'retry');
    expect(state.sent).toHaveLength(1);
    expect(JSON.stringify(state.records)).not.toContain(SECRET);
  });
});

describe('the publisher writes what SQS can carry', () => {
  it('escapes U+FFFE and U+FFFF in the message it sends, and the dispatcher reads back the same body', async () => {
    const sqs = mockClient(SQSClient);
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }] });
    const publisher = new WebhookPublisher({
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q',
      sqsClient: new SQSClient({}),
    });
    await publisher.publishUserIdentified({
      user: { id: 'usr_1', name: 'Ada \uFFFF\uFFFE' },
      application: APP_A,
    });
    await publisher.publishUserIdentifiedBatch([
      { user: { id: 'usr_2', name: '\uFFFF' }, application: APP_A },
    ]);
    const bodies = [
      sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!,
      sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries![0]!.MessageBody!,
    ];
    for (const text of bodies) {
      expect(text).not.toMatch(/[\uFFFE\uFFFF]/);
      const event = parseMessage(text, 'ingress');
      expect(bodyOfEvent(event as never)).toContain('\uFFFF');
    }
    sqs.restore();
  });
});
