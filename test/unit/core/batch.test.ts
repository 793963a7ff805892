/** createBatch on its own: each record read, poison dead-lettered, routed by type, failures kept to their record. */

import type { Attempter, Run } from '../../../lambdas/core/attempt';
import { attemptRecordOf } from '../../../lambdas/core/attempt-record';
import { createBatch } from '../../../lambdas/core/batch';
import { cachedConnections } from '../../../lambdas/core/cached-connections';
import { bodyOfEvent } from '../../../lambdas/core/envelope';
import { DeadlineError, InfrastructureError } from '../../../lambdas/core/errors';
import type { FanOut } from '../../../lambdas/core/fan-out';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import type { AppendOutcome, InputRecord } from '../../../lambdas/core/ports';
import type { Settler } from '../../../lambdas/core/settle';
import type { Target } from '../../../lambdas/core/targets';
import type { AttemptRecord, DeliveryMessage, EventFacts, EventMessage } from '../../../lambdas/core/types';
import { connection } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const EVENT_ID = 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7';
const OCCURRED_AT = '2026-11-21T14:53:00.123Z';
const run: Run = { remainingMs: () => 90_000, debugLines: false };
const FACTS: EventFacts = { applicationId: 'app_1', userId: 'usr_7', event: 'user.identified' };

function event(eventId = EVENT_ID, extra: Partial<EventMessage> = {}): EventMessage {
  return {
    v: 1,
    type: 'event',
    eventId,
    event: 'user.identified',
    occurredAt: OCCURRED_AT,
    user: { id: 'usr_7', email: 'grace@example.com', metadata: {} },
    application: { id: 'app_1', name: 'Acme' },
    ...extra,
  };
}

function delivery(connectionId = 'con_a', attempt = 2): DeliveryMessage {
  return {
    v: 1,
    type: 'delivery',
    deliveryId: deliveryIdFor(EVENT_ID, connectionId, Date.parse(OCCURRED_AT)),
    eventId: EVENT_ID,
    connectionId,
    attempt,
    chainStart: 1,
    body: bodyOfEvent(event()),
    firstAttemptAt: '2026-11-21T15:00:00.000Z',
  };
}

function attemptRecord(): AttemptRecord {
  const at = Date.parse('2026-11-21T15:00:01.000Z');
  return attemptRecordOf({
    delivery: delivery(),
    facts: FACTS,
    request: { method: 'POST', target: 'https://con-a.example.com/hooks', requestedAtMs: at },
    result: { kind: 'response', status: 200, snippet: 'ok', durationMs: 9 },
    decision: { action: 'done', outcome: 'delivered' },
    sensitive: [],
    ttlDays: 30,
    nowMs: at,
  }).record;
}

const on = (source: InputRecord['source'], messageId: string, body: unknown): InputRecord => ({
  messageId,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  source,
});

/** The batch's parts as recorders; `throwFor` maps an eventId or connectionId to what its part throws. */
function setup(throwFor: Record<string, Error> = {}, options: { cacheMs?: number } = {}) {
  const f = memoryPorts([connection('con_a'), connection('con_x', { applicationId: 'app_2' })]);
  if (options.cacheMs)
    f.deps.connections = cachedConnections(f.deps.connections, options.cacheMs, f.deps.clock);
  const fannedOut: Array<{ event: EventMessage; body: string; facts: EventFacts }> = [];
  const attempted: Array<{ delivery: DeliveryMessage; target: Target; facts: EventFacts }> = [];
  const noted: Array<{ rec: AttemptRecord; outcome: AppendOutcome | undefined; via: string }> = [];
  const fanOut: FanOut = async (e, body, facts) => {
    fannedOut.push({ event: e, body, facts });
    const error = throwFor[e.eventId];
    if (error) throw error;
  };
  const attempter: Attempter = {
    async deliverTo(d, target, facts) {
      attempted.push({ delivery: d, target, facts });
      const error = throwFor[d.connectionId];
      if (error) throw error;
      return {} as AttemptRecord;
    },
    async refuse() {
      throw new Error('the batch refuses through deliverTo, never refuse()');
    },
    inFlight: () => ({ now: 0, peak: 0 }),
  };
  const settler: Settler = {
    async settle() {
      throw new Error('the batch never settles itself');
    },
    async record() {},
    noteAppend(rec, outcome, via) {
      noted.push({ rec, outcome, via });
    },
  };
  const processBatch = createBatch(f.deps, { fanOut, attempter, settler });
  return { ...f, processBatch, fannedOut, attempted, noted };
}

describe('poison messages', () => {
  it('dead-letters bad JSON with its reason and text, and acknowledges it', async () => {
    const { processBatch, state, fannedOut } = setup();
    const { failures } = await processBatch([on('ingress', 'bad', '{oops')], run);
    expect(failures).toEqual([]);
    expect(fannedOut).toEqual([]);
    expect(state.deadLetters).toEqual([
      {
        v: 1,
        type: 'dead-letter',
        reason: 'invalid_message',
        error: 'message is not valid JSON',
        failedAt: new Date(state.now).toISOString(),
        sourceQueue: 'ingress',
        source: '{oops',
      },
    ]);
    expect(state.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'poison message dead-lettered',
        fields: expect.objectContaining({ messageId: 'bad', reason: 'invalid_message' }),
      }),
    );
  });

  it.each([
    ['a delivery', () => delivery()],
    ['an attempt-log message', () => ({ v: 1, type: 'attempt-log', record: attemptRecord() })],
    ['an unknown type', () => ({ v: 1, type: 'party' })],
  ])('dead-letters %s arriving on the ingress queue, without acting on it', async (_, message) => {
    const { processBatch, state, attempted, noted } = setup();
    const { failures } = await processBatch([on('ingress', 'm1', message())], run);
    expect(failures).toEqual([]);
    expect(attempted).toEqual([]);
    expect(noted).toEqual([]);
    expect(state.records).toEqual([]);
    expect(state.deadLetters).toEqual([
      expect.objectContaining({
        reason: 'invalid_message',
        sourceQueue: 'ingress',
        error: expect.stringContaining('is not accepted on the ingress queue'),
      }),
    ]);
  });

  it('reads a record of no named source as ingress: a delivery there is poison', async () => {
    const { processBatch, state, attempted } = setup();
    await processBatch([{ messageId: 'm1', body: JSON.stringify(delivery()) }], run);
    expect(attempted).toEqual([]);
    expect(state.deadLetters).toEqual([expect.objectContaining({ sourceQueue: 'ingress' })]);
  });

  it('dead-letters an event arriving on the retry queue', async () => {
    const { processBatch, state, fannedOut } = setup();
    await processBatch([on('retry', 'm1', event())], run);
    expect(fannedOut).toEqual([]);
    expect(state.deadLetters).toEqual([
      expect.objectContaining({ reason: 'invalid_message', sourceQueue: 'retry' }),
    ]);
  });

  it('dead-letters an event whose user breaks a payload rule as invalid_payload', async () => {
    const { processBatch, state } = setup();
    await processBatch([on('ingress', 'm1', { ...event(), user: {} })], run);
    expect(state.deadLetters).toEqual([
      expect.objectContaining({ reason: 'invalid_payload', error: expect.stringContaining('user.id') }),
    ]);
  });

  it('does not fail the batch: its batch-mates are routed as usual', async () => {
    const { processBatch, state, fannedOut } = setup();
    const { failures } = await processBatch(
      [on('ingress', 'bad', '{oops'), on('ingress', 'good', event()), on('ingress', 'bad2', delivery())],
      run,
    );
    expect(failures).toEqual([]);
    expect(fannedOut).toHaveLength(1);
    expect(state.deadLetters).toHaveLength(2);
  });

  it('fails only the poison record when the dead-letter port is down', async () => {
    const { processBatch, state, fannedOut } = setup();
    state.fail.add('deadLetters');
    const { failures } = await processBatch(
      [on('ingress', 'bad', '{oops'), on('ingress', 'good', event())],
      run,
    );
    expect(failures).toEqual(['bad']);
    expect(fannedOut).toHaveLength(1);
  });
});

describe('routing', () => {
  it('fans an event out with the body serialised once and the facts of its payload', async () => {
    const { processBatch, fannedOut } = setup();
    await processBatch([on('ingress', 'm1', event())], run);
    expect(fannedOut).toEqual([{ event: event(), body: bodyOfEvent(event()), facts: FACTS }]);
  });

  it('attempts a delivery on the retry queue again, to its connection as stored', async () => {
    const { processBatch, attempted, state } = setup();
    await processBatch([on('retry', 'm1', delivery('con_a', 3))], run);
    expect(attempted).toEqual([
      {
        delivery: delivery('con_a', 3),
        target: { id: 'con_a', connection: state.connections.get('con_a') },
        facts: FACTS,
      },
    ]);
  });

  it('asks the table, past the cache, before parking a delivery for a connection the cache says is disabled', async () => {
    const { processBatch, attempted, state, deps } = setup({}, { cacheMs: 30_000 });
    state.connections.set('con_a', connection('con_a', { enabled: false }));
    await deps.connections.get('con_a'); // cached as disabled
    state.connections.set('con_a', connection('con_a', { enabled: true })); // enabled, then recovered
    await processBatch([on('retry', 'm1', delivery('con_a', 4))], run);
    expect(attempted[0]!.target).toEqual({ id: 'con_a', connection: state.connections.get('con_a') });
    expect((await deps.connections.get('con_a'))?.enabled).toBe(true); // and the cache refreshed
  });

  it('still parks a delivery for a connection the table says is disabled', async () => {
    const { processBatch, attempted, state } = setup({}, { cacheMs: 30_000 });
    state.connections.set('con_a', connection('con_a', { enabled: false }));
    await processBatch([on('retry', 'm1', delivery('con_a', 4))], run);
    expect(attempted[0]!.target.refusal).toEqual(['connection_disabled', 'connection con_a is disabled']);
  });

  it('refuses a delivery whose connection belongs to another application than its body names', async () => {
    const { processBatch, attempted } = setup();
    await processBatch([on('retry', 'm1', delivery('con_x'))], run);
    expect(attempted[0]!.target).toEqual({
      id: 'con_x',
      refusal: ['connection_invalid', expect.stringContaining('another application, not app_1')],
      foreign: true,
    });
  });

  it('appends an attempt-log message on the retry queue to the attempt log, and notes the outcome', async () => {
    const { processBatch, state, noted } = setup();
    const rec = attemptRecord();
    const { failures } = await processBatch(
      [on('retry', 'm1', { v: 1, type: 'attempt-log', record: rec })],
      run,
    );
    expect(failures).toEqual([]);
    expect(state.records).toEqual([rec]);
    expect(noted).toEqual([{ rec, outcome: 'written', via: 'retry queue' }]);
  });

  it('fails an attempt-log message when the attempt log is still down', async () => {
    const { processBatch, state, noted } = setup();
    state.fail.add('attemptLog');
    const rec = attemptRecord();
    const { failures } = await processBatch(
      [on('retry', 'm1', { v: 1, type: 'attempt-log', record: rec })],
      run,
    );
    expect(failures).toEqual(['m1']);
    expect(noted).toEqual([]);
  });
});

describe('infrastructure failures', () => {
  it('fails only the record whose part threw, by its messageId, and logs it at error', async () => {
    const other = 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V8';
    const { processBatch, state, fannedOut } = setup({
      [other]: new InfrastructureError('connections.listByApplication', {}),
    });
    const { failures } = await processBatch(
      [on('ingress', 'ok-1', event()), on('ingress', 'boom', event(other)), on('retry', 'ok-2', delivery())],
      run,
    );
    expect(failures).toEqual(['boom']);
    expect(fannedOut).toHaveLength(2);
    expect(state.logs.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'record failed; SQS will redeliver it',
        fields: expect.objectContaining({ messageId: 'boom', errorName: 'InfrastructureError' }),
      }),
    ]);
    expect(state.deadLetters).toEqual([]);
  });

  it('fails a delivery whose connection cannot be read, without attempting it', async () => {
    const { processBatch, state, attempted } = setup();
    state.fail.add('connections');
    const { failures } = await processBatch([on('retry', 'm1', delivery())], run);
    expect(failures).toEqual(['m1']);
    expect(attempted).toEqual([]);
  });

  it('leaves a record whose deadline is near for redelivery, logged as a warning not an error', async () => {
    const { processBatch, state } = setup({ con_a: new DeadlineError(1_000) });
    const { failures } = await processBatch([on('retry', 'late', delivery())], run);
    expect(failures).toEqual(['late']);
    expect(state.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(state.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ messageId: 'late' }) }),
    );
  });
});
