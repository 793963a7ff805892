import { createHmac } from 'node:crypto';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import type { DispatcherOptions } from '../../../lambdas/core/ports';
import type { AttemptResult, DeliveryMessage } from '../../../lambdas/core/types';
import {
  connection,
  HEADER_VALUE,
  ok,
  DISPATCHER_OPTIONS as options,
  PLENTY as plenty,
  SECRET,
} from '../../support/fixtures';
import { memoryPorts, type Responder } from '../../support/memory';

const occurredAt = '2026-11-21T14:53:00.123Z';

function eventMessage(extra: Record<string, unknown> = {}) {
  return {
    v: 1,
    type: 'event',
    eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
    event: 'user.identified',
    occurredAt,
    user: { id: 'usr_7', email: 'grace@example.com', name: 'Grace Hopper' },
    application: { id: 'app_1', name: 'Acme' },
    ...extra,
  };
}

/** A record from the queue its message type belongs on: events on ingress, the rest on retry. */
function record(body: unknown, messageId = 'm1') {
  const type = (body as { type?: unknown } | null)?.type;
  const source = type === 'delivery' || type === 'attempt-log' ? ('retry' as const) : ('ingress' as const);
  return { messageId, body: typeof body === 'string' ? body : JSON.stringify(body), source };
}

function setup(
  connections = [connection('con_a')],
  responder?: Responder,
  opts: Partial<DispatcherOptions> = {},
) {
  const f = memoryPorts(connections, { responder });
  return { ...f, dispatcher: createDispatcher(f.deps, { ...options, ...opts }) };
}

/** When a retry scheduled now with this delay is due. */
const due = (nowMs: number, delaySeconds: number) => new Date(nowMs + delaySeconds * 1000).toISOString();

/** The delivery message the dispatcher would write for a retry of con_a (`dueAt`: scheduled with it). */
function retryOf(attempt: number, chainStart = 1, dueAt?: string): DeliveryMessage {
  const body =
    '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_7","email":"grace@example.com","name":"Grace Hopper","metadata":{}},"application":{"id":"app_1","name":"Acme"}}';
  return {
    v: 1,
    type: 'delivery',
    deliveryId: deliveryIdFor('evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7', 'con_a', Date.parse(occurredAt)),
    eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
    connectionId: 'con_a',
    attempt,
    chainStart,
    body,
    firstAttemptAt: '2026-11-21T15:00:00.000Z',
    ...(dueAt ? { dueAt } : {}),
  };
}

describe('fan-out of an event', () => {
  it('delivers to every enabled webhook connection of the application, not to disabled or foreign ones', async () => {
    const { dispatcher, state } = setup([
      connection('con_a'),
      connection('con_b'),
      connection('con_c'),
      connection('con_off', { enabled: false }),
      connection('con_other', { applicationId: 'app_2' }),
    ]);
    const { failures } = await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(failures).toEqual([]);
    expect(state.sent.map((r) => new URL(r.url).hostname).sort()).toEqual([
      'con-a.example.com',
      'con-b.example.com',
      'con-c.example.com',
    ]);
    expect(new Set(state.sent.map((r) => r.body)).size).toBe(1);
    expect(state.records.map((r) => [r.connectionId, r.outcome, r.attempt, r.final])).toEqual(
      expect.arrayContaining([
        ['con_a', 'delivered', 1, true],
        ['con_b', 'delivered', 1, true],
        ['con_c', 'delivered', 1, true],
      ]),
    );
  });

  it('sends the spec payload, signed over "<timestamp>.<body>" with the timestamp taken at send time', async () => {
    const { dispatcher, state } = setup();
    await dispatcher.processBatch([record(eventMessage())], plenty);
    const [request] = state.sent;
    expect(JSON.parse(request!.body)).toEqual({
      event: 'user.identified',
      timestamp: occurredAt,
      user: { id: 'usr_7', email: 'grace@example.com', name: 'Grace Hopper', metadata: {} },
      application: { id: 'app_1', name: 'Acme' },
    });
    const ts = request!.headers['X-Service-Timestamp']!;
    expect(ts).toBe(String(state.now));
    const expected = createHmac('sha256', SECRET).update(`${ts}.${request!.body}`).digest('hex');
    expect(request!.headers['X-Service-Signature']).toBe(`sha256=${expected}`);
    expect(request!.headers['X-Service-Event']).toBe('user.identified');
    expect(request!.headers['X-Service-Attempt']).toBe('1');
    expect(request!.headers['X-Service-Delivery']).toBe(retryOf(1).deliveryId);
    expect(request!.headers.Authorization).toBe(HEADER_VALUE);
    expect(request!.method).toBe('POST');
    expect(request!.timeoutMs).toBe(30_000);
  });

  it('uses the connection method', async () => {
    const { dispatcher, state } = setup([connection('con_a', { method: 'PATCH' })]);
    await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(state.sent[0]!.method).toBe('PATCH');
  });

  it('targets only the listed connections when connectionIds is given', async () => {
    const { dispatcher, state } = setup([connection('con_a'), connection('con_b')]);
    await dispatcher.processBatch([record(eventMessage({ connectionIds: ['con_b'] }))], plenty);
    expect(state.sent.map((r) => new URL(r.url).hostname)).toEqual(['con-b.example.com']);
  });

  it('refuses a listed connection of another application and dead-letters that delivery', async () => {
    const { dispatcher, state } = setup([connection('con_x', { applicationId: 'app_2' })]);
    const { failures } = await dispatcher.processBatch(
      [record(eventMessage({ connectionIds: ['con_x'] }))],
      plenty,
    );
    expect(failures).toEqual([]);
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]).toMatchObject({
      reason: 'connection_invalid',
      error: expect.stringContaining('another application'),
    });
  });

  it.each([
    ['an event naming it', () => eventMessage({ connectionIds: ['con_x'] })],
    [
      'a delivery message for it',
      () => ({
        ...retryOf(2),
        connectionId: 'con_x',
        deliveryId: deliveryIdFor('evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7', 'con_x', Date.parse(occurredAt)),
      }),
    ],
  ])("keeps %s out of the other application's log, stats and failure counts", async (_, message) => {
    const { dispatcher, state } = setup([connection('con_x', { applicationId: 'app_2' })]);
    await dispatcher.processBatch([record(message())], plenty);
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters[0]).toMatchObject({ reason: 'connection_invalid' });
    // Nothing under con_x: its owner's console, stats and the failing-connections rule never see it.
    expect(state.records).toEqual([]);
    expect(
      state.logs.filter((l) => (l.fields as { connectionId?: string })?.connectionId === 'con_x'),
    ).toEqual([]);
    // The publisher's operator sees it: its application, the connection it named, and where it went.
    const line = state.logs.find((l) => l.message.includes('names a connection of another application'));
    expect(line?.fields).toMatchObject({
      applicationId: 'app_1',
      namedConnectionId: 'con_x',
      reason: 'connection_invalid',
      deadLettered: true,
    });
  });

  it('dead-letters a listed connection that does not exist, with an attempt record saying so', async () => {
    const { dispatcher, state } = setup([]);
    await dispatcher.processBatch([record(eventMessage({ connectionIds: ['con_gone'] }))], plenty);
    expect(state.deadLetters[0]).toMatchObject({
      reason: 'connection_missing',
      delivery: { connectionId: 'con_gone' },
    });
    expect(state.records[0]).toMatchObject({ outcome: 'rejected', final: true, connectionId: 'con_gone' });
  });

  it('logs and acknowledges an event whose application has no enabled connection', async () => {
    const { dispatcher, state } = setup([connection('con_off', { enabled: false })]);
    const { failures } = await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(failures).toEqual([]);
    expect(state.logs.some((l) => l.message.includes('no enabled webhook connection'))).toBe(true);
  });
});

describe('retries', () => {
  it('schedules attempt 2 after 1 s when the first attempt gets a 503', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(503, 'try later'));
    await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(state.scheduled).toEqual([{ delivery: retryOf(2, 1, due(state.now, 1)), delaySeconds: 1 }]);
    expect(state.records[0]).toMatchObject({
      outcome: 'http_error',
      statusCode: 503,
      responseSnippet: 'try later',
      final: false,
      nextAttemptAt: '2026-11-21T15:00:01.000Z',
      error: 'receiver answered HTTP 503',
    });
    expect(state.deadLetters).toHaveLength(0);
  });

  it.each([
    [2, 2],
    [3, 4],
  ])(
    'schedules the next attempt after the right delay when attempt %i fails (%i s)',
    async (attempt, delay) => {
      const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
      await dispatcher.processBatch([record(retryOf(attempt))], plenty);
      expect(state.scheduled).toEqual([
        { delivery: retryOf(attempt + 1, 1, due(state.now, delay)), delaySeconds: delay },
      ]);
      expect(state.sent[0]!.headers['X-Service-Attempt']).toBe(String(attempt));
    },
  );

  it('parks the delivery with its last error and exact body after the 4th failed attempt, not in the DLQ', async () => {
    const timeout: AttemptResult = {
      kind: 'timeout',
      durationMs: 30_000,
      error: 'no complete response within 30000 ms',
    };
    const { dispatcher, state } = setup([connection('con_a')], () => timeout);
    await dispatcher.processBatch([record(retryOf(4))], plenty);
    expect(state.scheduled).toHaveLength(0);
    expect(state.deadLetters).toEqual([]);
    expect(state.parked).toEqual([
      expect.objectContaining({
        reason: 'exhausted',
        lastError: 'no complete response within 30000 ms',
        lastOutcome: 'timeout',
        deliveryId: retryOf(4).deliveryId,
        body: retryOf(4).body,
        firstAttemptAt: retryOf(4).firstAttemptAt,
        attempts: 4,
        applicationId: 'app_1',
      }),
    ]);
    expect(state.records[0]).toMatchObject({ outcome: 'timeout', final: true, attempt: 4 });
  });

  it('starts a fresh chain of 4 after a redrive, numbering on from the last attempt', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
    await dispatcher.processBatch([record(retryOf(5, 5))], plenty);
    expect(state.scheduled).toEqual([{ delivery: retryOf(6, 5, due(state.now, 1)), delaySeconds: 1 }]);
  });

  it('parks a refused destination at once, without sending', async () => {
    const { dispatcher, state } = setup([connection('con_a', { url: 'https://169.254.169.254/latest' })]);
    await dispatcher.processBatch([record(retryOf(2))], plenty);
    expect(state.sent).toHaveLength(0);
    expect(state.parked[0]).toMatchObject({ reason: 'blocked', attempts: 2 });
    expect(state.deadLetters).toEqual([]);
    expect(state.records[0]).toMatchObject({ outcome: 'blocked', final: true });
  });
});

describe('how long attempt records are kept', () => {
  const DAY_S = 86_400;
  const keptDays = (r: { requestedAt: string; expiresAt: number }) =>
    (r.expiresAt - Date.parse(r.requestedAt) / 1000) / DAY_S;

  it('keeps a delivery delivered at its first attempt (its only record) for deliveredTtlDays', async () => {
    const { dispatcher, state } = setup([connection('con_a')], undefined, { deliveredTtlDays: 3 });
    await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(state.records.map((r) => [r.outcome, r.attempt, Math.round(keptDays(r))])).toEqual([
      ['delivered', 1, 3],
    ]);
  });

  it('keeps every record of a delivery that ever failed for attemptTtlDays, its later success too', async () => {
    const failing = setup([connection('con_a')], () => ok(503), { deliveredTtlDays: 3 });
    await failing.dispatcher.processBatch([record(eventMessage())], plenty);
    const recovered = setup([connection('con_a')], undefined, { deliveredTtlDays: 3 });
    await recovered.dispatcher.processBatch([record(retryOf(2))], plenty);
    expect(
      [...failing.state.records, ...recovered.state.records].map((r) => [
        r.outcome,
        r.attempt,
        Math.round(keptDays(r)),
      ]),
    ).toEqual([
      ['http_error', 1, 30],
      ['delivered', 2, 30],
    ]);
  });

  it('never keeps a record longer than attemptTtlDays, and defaults to it', async () => {
    const longer = setup([connection('con_a')], undefined, { deliveredTtlDays: 90 });
    const unset = setup([connection('con_a')]);
    await longer.dispatcher.processBatch([record(eventMessage())], plenty);
    await unset.dispatcher.processBatch([record(eventMessage())], plenty);
    expect([longer, unset].map((s) => Math.round(keptDays(s.state.records[0]!)))).toEqual([30, 30]);
  });
});

describe('permanent failures', () => {
  it.each([
    ['deleted', [], 'connection_missing'],
    ['invalid', [connection('con_a', { method: 'GET' as 'POST' })], 'connection_invalid'],
  ])(
    'dead-letters a delivery whose connection is %s (no customer list to park it on)',
    async (_, connections, reason) => {
      const { dispatcher, state } = setup(connections);
      const { failures } = await dispatcher.processBatch([record(retryOf(2))], plenty);
      expect(failures).toEqual([]);
      expect(state.sent).toHaveLength(0);
      expect(state.deadLetters).toEqual([expect.objectContaining({ reason, delivery: retryOf(2) })]);
      expect(state.parked).toEqual([]);
    },
  );

  it('parks a delivery whose connection is disabled: not sent, not lost', async () => {
    const { dispatcher, state } = setup([connection('con_a', { enabled: false })]);
    const { failures } = await dispatcher.processBatch([record(retryOf(2))], plenty);
    expect(failures).toEqual([]);
    expect(state.sent).toHaveLength(0);
    expect(state.deadLetters).toEqual([]);
    expect(state.parked).toEqual([
      expect.objectContaining({
        reason: 'connection_disabled',
        deliveryId: retryOf(2).deliveryId,
        body: retryOf(2).body,
      }),
    ]);
  });

  it('dead-letters a poison message with its text and reason, and still delivers its batch-mates', async () => {
    const { dispatcher, state } = setup();
    const { failures } = await dispatcher.processBatch(
      [
        record('{oops', 'bad'),
        record(eventMessage(), 'good'),
        record({ ...eventMessage(), user: {} }, 'bad2'),
      ],
      plenty,
    );
    expect(failures).toEqual([]);
    expect(state.sent).toHaveLength(1);
    expect(state.deadLetters).toEqual([
      expect.objectContaining({
        reason: 'invalid_message',
        source: '{oops',
        error: 'message is not valid JSON',
      }),
      expect.objectContaining({ reason: 'invalid_payload', error: expect.stringContaining('user.id') }),
    ]);
  });
});

describe('infrastructure errors', () => {
  it('reports a delivery record in batchItemFailures when Secrets Manager is down, and nothing is sent', async () => {
    const { dispatcher, state } = setup();
    state.fail.add('secrets');
    const { failures } = await dispatcher.processBatch([record(retryOf(2), 'm-retry')], plenty);
    expect(failures).toEqual(['m-retry']);
    expect(state.sent).toHaveLength(0);
    expect(state.logs.find((l) => l.level === 'error')?.fields).toMatchObject({ messageId: 'm-retry' });
  });

  it('hands a failing fan-out delivery back to the queue alone, so the other connections are not sent again', async () => {
    const { dispatcher, state, deps } = setup([connection('con_a'), connection('con_b')]);
    const real = deps.secrets.current.bind(deps.secrets);
    deps.secrets.current = async (c) => {
      if (c.connectionId === 'con_b') throw new Error('throttled');
      return real(c);
    };
    const { failures } = await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(failures).toEqual([]);
    expect(state.sent).toHaveLength(1);
    expect(state.scheduled).toEqual([
      { delivery: expect.objectContaining({ connectionId: 'con_b', attempt: 1 }), delaySeconds: 0 },
    ]);
  });

  it('fails the event record when a failing delivery cannot be handed back either', async () => {
    const { dispatcher, state } = setup();
    state.fail.add('secrets');
    state.fail.add('scheduler');
    const { failures } = await dispatcher.processBatch([record(eventMessage(), 'e1')], plenty);
    expect(failures).toEqual(['e1']);
  });

  it('fails the record when the retry cannot be scheduled, so SQS redelivers it', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
    state.fail.add('scheduler');
    const { failures } = await dispatcher.processBatch([record(retryOf(2), 'r')], plenty);
    expect(failures).toEqual(['r']);
  });

  it('puts an exhausted delivery on the DLQ when the parked table is down, losing nothing', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
    state.fail.add('parked');
    const { failures } = await dispatcher.processBatch([record(retryOf(4), 'r')], plenty);
    expect(failures).toEqual([]);
    expect(state.deadLetters).toEqual([
      expect.objectContaining({ reason: 'exhausted', delivery: retryOf(4) }),
    ]);
  });

  it('fails the record when neither the parked table nor the DLQ can take an exhausted delivery', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
    state.fail.add('parked');
    state.fail.add('deadLetters');
    const { failures } = await dispatcher.processBatch([record(retryOf(4), 'r')], plenty);
    expect(failures).toEqual(['r']);
  });

  it('delivers and parks as usual when health cannot be read or written (DynamoDB down)', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
    state.fail.add('health');
    const { failures } = await dispatcher.processBatch([record(retryOf(4), 'r')], plenty);
    expect(failures).toEqual([]);
    expect(state.parked).toHaveLength(1);
  });

  it('queues the attempt record instead of failing when the attempt log is down, so nothing is sent twice', async () => {
    const { dispatcher, state } = setup();
    state.fail.add('attemptLog');
    const { failures } = await dispatcher.processBatch([record(retryOf(2))], plenty);
    expect(failures).toEqual([]);
    expect(state.sent).toHaveLength(1);
    expect(state.deferred).toEqual([expect.objectContaining({ attempt: 2, outcome: 'delivered' })]);
  });

  it('fails the record only when both the attempt log and its fallback are down', async () => {
    const { dispatcher, state } = setup();
    state.fail.add('attemptLog');
    state.fail.add('fallback');
    const { failures } = await dispatcher.processBatch([record(retryOf(2), 'r')], plenty);
    expect(failures).toEqual(['r']);
  });

  it('writes a queued attempt record when it comes back round', async () => {
    const { dispatcher, state } = setup();
    state.fail.add('attemptLog');
    await dispatcher.processBatch([record(retryOf(2))], plenty);
    expect(state.deferred).toHaveLength(1);
    state.fail.delete('attemptLog');
    const deferred = { v: 1, type: 'attempt-log', record: state.deferred[0] };
    await dispatcher.processBatch([record(JSON.parse(JSON.stringify(deferred)))], plenty);
    expect(state.records).toEqual([state.deferred[0]]);
  });
});

describe('batch behaviour', () => {
  it('leaves records for redelivery instead of starting an attempt the invocation cannot finish', async () => {
    const { dispatcher, state } = setup();
    const { failures } = await dispatcher.processBatch([record(retryOf(2), 'late')], {
      remainingMs: () => 20_000,
    });
    expect(failures).toEqual(['late']);
    expect(state.sent).toHaveLength(0);
  });

  it('delivers the records of a batch concurrently, never more at once than the limit', async () => {
    const slow: Responder = () => new Promise((resolve) => setTimeout(() => resolve(ok(200)), 20));
    const connections = Array.from({ length: 6 }, (_, i) => connection(`con_${i}`));
    const { dispatcher, state } = setup(connections, slow, { concurrency: 3 });
    await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(state.sent).toHaveLength(6);
    expect(state.maxInFlight).toBe(3);
  });

  it('never writes the secret, a custom header value or the query string to logs or the attempt log', async () => {
    const echo: Responder = (req) => ok(500, `you sent ${req.headers.Authorization} and ${SECRET}`);
    const { dispatcher, state } = setup([connection('con_a')], echo);
    await dispatcher.processBatch([record(eventMessage())], plenty);
    const everything = JSON.stringify([state.logs, state.records, state.scheduled, state.deadLetters]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(HEADER_VALUE);
    expect(everything).not.toContain('query-secret');
    expect(state.records[0]!.responseSnippet).toBe('you sent [redacted] and [redacted]');
  });

  it('writes no line for a success unless the log is at DEBUG, where it writes one compact line', async () => {
    const quiet = memoryPorts([connection('con_a')]);
    quiet.deps.log.debugEnabled = () => false;
    await createDispatcher(quiet.deps, options).processBatch([record(eventMessage())], plenty);
    expect(quiet.state.records.map((r) => r.outcome)).toEqual(['delivered']);
    expect(quiet.state.logs).toEqual([]);

    const verbose = memoryPorts([connection('con_a')]);
    verbose.deps.log.debugEnabled = () => true;
    await createDispatcher(verbose.deps, options).processBatch([record(eventMessage())], plenty);
    expect(verbose.state.logs).toEqual([
      {
        level: 'debug',
        message: 'delivered',
        fields: expect.objectContaining({
          deliveryId: verbose.state.records[0]!.deliveryId,
          connectionId: 'con_a',
          attempt: 1,
          outcome: 'delivered',
          statusCode: 200,
        }),
      },
    ]);
  });
});

describe('test sends', () => {
  it('attempts once, logs test: true, and neither retries nor dead-letters', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(500));
    const rec = await dispatcher.attemptOnce({ ...retryOf(1), test: true }, connection('con_a'), plenty);
    expect(rec).toMatchObject({ test: true, outcome: 'http_error', final: true });
    expect(state.scheduled).toHaveLength(0);
    expect(state.deadLetters).toHaveLength(0);
  });
});

describe('blocked destination metric', () => {
  /** The BlockedDestinations directive and value, as the EMF adapter writes them at a flush. */
  const blockedIn = (docs: Array<Record<string, unknown> & { _aws: { CloudWatchMetrics: unknown[] } }>) =>
    docs.filter((d) => 'BlockedDestinations' in d);

  it("counts a destination refused at dispatch in the invocation's Embedded Metric Format document", async () => {
    const { dispatcher, state, metrics } = setup([connection('con_a', { url: 'https://10.0.0.5/hooks' })]);
    await dispatcher.processBatch([record(retryOf(2))], plenty);
    expect(state.emf).toEqual([]);
    metrics.flush();
    const docs = blockedIn(state.emf);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      _aws: {
        Timestamp: state.now,
        CloudWatchMetrics: expect.arrayContaining([
          {
            Namespace: 'Webhooks',
            Dimensions: [['Stack']],
            Metrics: expect.arrayContaining([{ Name: 'BlockedDestinations', Unit: 'Count' }]),
          },
        ]),
      },
      Stack: 'test-stack',
      BlockedDestinations: 1,
    });
    // The attempt's log line stays a log line: no metric fields in it.
    expect(state.logs.some((l) => l.fields && '_aws' in l.fields)).toBe(false);
  });

  it('counts a destination the sender refused at connect time', async () => {
    const blocked: AttemptResult = {
      kind: 'blocked',
      durationMs: 3,
      error: 'hooks.example.com resolves to a refused address',
    };
    const { dispatcher, state, metrics } = setup([connection('con_a')], () => blocked);
    await dispatcher.processBatch([record(eventMessage())], plenty);
    metrics.flush();
    expect(blockedIn(state.emf).map((d) => d.BlockedDestinations)).toEqual([1]);
  });

  it('records nothing without a metrics port', async () => {
    const without = memoryPorts([connection('con_a', { url: 'https://10.0.0.5/hooks' })]);
    delete without.deps.metrics;
    await createDispatcher(without.deps, options).processBatch([record(retryOf(2))], plenty);
    without.metrics.flush();
    expect(without.state.emf).toEqual([]);
  });

  it('emits no BlockedDestinations for attempts that were not blocked', async () => {
    const { dispatcher, state, metrics } = setup([connection('con_a'), connection('con_b')], (req) =>
      req.url.href.includes('con-a') ? ok(200) : ok(503),
    );
    await dispatcher.processBatch([record(eventMessage())], plenty);
    metrics.flush();
    expect(state.emf.length).toBeGreaterThan(0);
    expect(blockedIn(state.emf)).toEqual([]);
  });
});

describe('query-string hygiene', () => {
  it('redacts query-string values a receiver echoes back, as sent and decoded', async () => {
    const echo: Responder = (req) => ok(404, `Cannot POST ${new URL(req.url).search} (key a+b/c)`);
    const { dispatcher, state } = setup(
      [connection('con_a', { url: 'https://con-a.example.com/hooks?token=query-secret&key=a%2Bb%2Fc' })],
      echo,
    );
    await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(state.records[0]!.responseSnippet).toBe(
      'Cannot POST ?token=[redacted]&key=[redacted] (key [redacted])',
    );
  });
});

describe('endpoint health (docs/design.md §9)', () => {
  it('turns a connection failing after 3 exhausted deliveries and publishes connection.failing once', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(503));
    for (let i = 0; i < 4; i++) await dispatcher.processBatch([record(retryOf(4))], plenty);
    expect(state.health.get('con_a')).toMatchObject({ state: 'failing', consecutiveFailures: 4 });
    expect(state.events.map((e) => e.type)).toEqual(['connection.failing']);
    expect(JSON.stringify(state.events)).not.toContain(SECRET);
  });

  it('disables it after disableAfter, then parks its new events as connection_disabled without sending', async () => {
    const { dispatcher, state } = setup([connection('con_a')], () => ok(503));
    for (let i = 0; i < 5; i++) await dispatcher.processBatch([record(retryOf(4))], plenty);
    expect(state.events.map((e) => e.type)).toEqual(['connection.failing', 'connection.disabled']);
    // What the store now says about the connection, as the next read of it sees it.
    const disabled = connection('con_a', { enabled: false, health: state.health.get('con_a') });
    const after = setup([disabled]);
    await after.dispatcher.processBatch([record(eventMessage())], plenty);
    expect(after.state.sent).toHaveLength(0);
    expect(after.state.parked).toEqual([
      expect.objectContaining({ reason: 'connection_disabled', attempts: 1 }),
    ]);
  });

  it('skips a connection an operator disabled by hand, as before (no parking)', async () => {
    const { dispatcher, state } = setup([connection('con_a', { enabled: false })]);
    await dispatcher.processBatch([record(eventMessage())], plenty);
    expect(state.parked).toEqual([]);
    expect(state.sent).toHaveLength(0);
  });

  it('resets the count on a delivery and announces recovered when it was failing', async () => {
    let status = 503;
    const { dispatcher, state } = setup([connection('con_a')], () => ok(status));
    for (let i = 0; i < 3; i++) await dispatcher.processBatch([record(retryOf(4))], plenty);
    status = 200;
    await dispatcher.processBatch([record(retryOf(5, 5))], plenty);
    expect(state.health.get('con_a')).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
    expect(state.events.map((e) => e.type)).toEqual(['connection.failing', 'connection.recovered']);
  });

  it('does not count refusals, retries or test sends towards health', async () => {
    const { dispatcher, state } = setup([connection('con_a', { url: 'https://169.254.169.254/x' })], () =>
      ok(503),
    );
    await dispatcher.processBatch([record(retryOf(4))], plenty);
    const b = setup([connection('con_b')], () => ok(503));
    await b.dispatcher.processBatch([record({ ...retryOf(2), connectionId: 'con_b' })], plenty);
    expect(state.health.size + b.state.health.size).toBe(0);
  });
});

describe('writes held until the batch ends', () => {
  it('are flushed once, after every record of the batch was sent and recorded, before its result', async () => {
    const f = memoryPorts([connection('con_a'), connection('con_b')]);
    const seen: Array<{ sent: number; records: number }> = [];
    f.deps.pendingWrites = {
      flush: async () => {
        seen.push({ sent: f.state.sent.length, records: f.state.records.length });
      },
    };
    const result = await createDispatcher(f.deps, options).processBatch(
      [
        record(eventMessage(), 'm1'),
        record(eventMessage({ eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V8' }), 'm2'),
      ],
      plenty,
    );
    expect(result.failures).toEqual([]);
    expect(seen).toEqual([{ sent: 4, records: 4 }]);
  });

  it('that fail are logged with what it means, and the batch still reports its records done', async () => {
    const f = memoryPorts([connection('con_a')]);
    f.deps.pendingWrites = {
      flush: async () => {
        throw new Error('3 of 3 writes after the batch were not written');
      },
    };
    const result = await createDispatcher(f.deps, options).processBatch([record(eventMessage())], plenty);
    expect(result.failures).toEqual([]);
    expect(f.state.records.map((r) => r.outcome)).toEqual(['delivered']);
    expect(f.state.logs).toContainEqual({
      level: 'error',
      message: expect.stringContaining('writes after the batch failed'),
      fields: { error: expect.stringContaining('3 of 3 writes') },
    });
  });
});
