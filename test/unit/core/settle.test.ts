/** createSettler on its own: the decision acted on, the record written, health counted (fakes of the ports). */

import { InfrastructureError } from '../../../lambdas/core/errors';
import type { HealthTracker } from '../../../lambdas/core/ports';
import { createSettler, type Settlement } from '../../../lambdas/core/settle';
import type { AttemptResult, DeliveryMessage, RefusalReason } from '../../../lambdas/core/types';
import { connection, deliveryMessage, ok, SECRET } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const BODY = '{"event":"user.identified","application":{"id":"app_1","name":"Acme"}}';

function delivery(attempt: number, extra: Partial<DeliveryMessage> = {}): DeliveryMessage {
  return deliveryMessage({ attempt, body: BODY, firstAttemptAt: '2026-11-21T14:59:00.000Z', ...extra });
}

const http503: AttemptResult = { kind: 'response', status: 503, snippet: 'busy', durationMs: 40 };

function setup() {
  const f = memoryPorts([connection('con_a')]);
  // Health is counted through the port; these calls are what settling asked of it.
  const healthCalls: Array<[keyof HealthTracker, string]> = [];
  f.deps.health = {
    async delivered(c) {
      healthCalls.push(['delivered', c.connectionId]);
    },
    async exhausted(c) {
      healthCalls.push(['exhausted', c.connectionId]);
    },
  };
  const settler = createSettler(f.deps, { attemptTtlDays: 30, deliveredTtlDays: 3 });
  const settle = (d: DeliveryMessage, result: AttemptResult, extra: Partial<Settlement> = {}) =>
    settler.settle({
      delivery: d,
      facts: { applicationId: 'app_1', userId: 'usr_7', event: 'user.identified' },
      request: { method: 'POST', target: 'https://con-a.example.com/hooks', requestedAtMs: f.state.now },
      result,
      sensitive: [SECRET],
      connection: f.state.connections.get('con_a'),
      ...extra,
    });
  return { ...f, settler, settle, healthCalls };
}

describe('a delivered attempt', () => {
  it('writes its final record, schedules and parks nothing, and counts the delivery for health', async () => {
    const { settle, state, healthCalls } = setup();
    const rec = await settle(delivery(1), ok(200));
    expect(state.records).toEqual([rec]);
    expect(rec).toMatchObject({ outcome: 'delivered', final: true, attempt: 1, statusCode: 200 });
    expect(rec.error).toBeUndefined();
    expect(state.scheduled).toEqual([]);
    expect(state.parked).toEqual([]);
    expect(state.deadLetters).toEqual([]);
    expect(healthCalls).toEqual([['delivered', 'con_a']]);
  });

  it('keeps a first-attempt delivery for deliveredTtlDays and a later one for attemptTtlDays', async () => {
    const { settle, state } = setup();
    const first = await settle(delivery(1), ok(200));
    const later = await settle(delivery(2), ok(200));
    const nowS = Math.floor(state.now / 1000);
    expect(first.expiresAt).toBe(nowS + 3 * 86_400);
    expect(later.expiresAt).toBe(nowS + 30 * 86_400);
  });
});

describe('a failed attempt with attempts left', () => {
  it.each([
    [1, 1],
    [2, 2],
    [3, 4],
  ])('schedules attempt %i + 1 after %i s, and records when it will happen', async (attempt, delay) => {
    const { settle, state, healthCalls } = setup();
    const rec = await settle(delivery(attempt), http503);
    const dueAt = new Date(state.now + delay * 1000).toISOString();
    expect(state.scheduled).toEqual([{ delivery: delivery(attempt + 1, { dueAt }), delaySeconds: delay }]);
    expect(rec).toMatchObject({
      outcome: 'http_error',
      final: false,
      error: 'receiver answered HTTP 503',
      nextAttemptAt: new Date(state.now + delay * 1000).toISOString(),
    });
    expect(state.records).toEqual([rec]);
    expect(state.parked).toEqual([]);
    expect(state.deadLetters).toEqual([]);
    expect(healthCalls).toEqual([]);
  });

  it('counts the delay from the chain start: attempt 6 of a chain started at 5 waits 2 s', async () => {
    const { settle, state } = setup();
    await settle(delivery(6, { chainStart: 5 }), { kind: 'timeout', durationMs: 30_000, error: 'timed out' });
    const dueAt = new Date(state.now + 2_000).toISOString();
    expect(state.scheduled).toEqual([{ delivery: delivery(7, { chainStart: 5, dueAt }), delaySeconds: 2 }]);
  });

  it('fails with an InfrastructureError, writing no record, when the retry cannot be scheduled', async () => {
    const { settle, state } = setup();
    state.fail.add('scheduler');
    await expect(settle(delivery(1), http503)).rejects.toMatchObject({
      name: 'InfrastructureError',
      operation: 'scheduler.schedule',
    });
    expect(state.records).toEqual([]);
  });
});

describe('an exhausted delivery', () => {
  it('is parked with its last error and status after the 4th attempt, and counted for health', async () => {
    const { settle, state, healthCalls } = setup();
    const rec = await settle(delivery(4), http503);
    expect(state.scheduled).toEqual([]);
    expect(state.deadLetters).toEqual([]);
    expect(state.parked).toEqual([
      expect.objectContaining({
        deliveryId: delivery(4).deliveryId,
        connectionId: 'con_a',
        applicationId: 'app_1',
        reason: 'exhausted',
        attempts: 4,
        body: BODY,
        lastOutcome: 'http_error',
        lastStatusCode: 503,
        lastError: 'receiver answered HTTP 503',
      }),
    ]);
    expect(rec).toMatchObject({ outcome: 'http_error', final: true });
    expect(rec.nextAttemptAt).toBeUndefined();
    expect(state.records).toEqual([rec]);
    expect(healthCalls).toEqual([['exhausted', 'con_a']]);
  });

  it('goes to the dead-letter port, with the delivery, when parking throws, and is logged as dead-lettered', async () => {
    const { settle, state } = setup();
    state.fail.add('parked');
    await settle(delivery(4), http503);
    expect(state.parked).toEqual([]);
    const messages = state.logs.map((l) => l.message);
    expect(messages).toContain('parking failed; the delivery goes to the dead-letter queue instead');
    expect(messages).toContain('delivery dead-lettered');
    expect(messages).not.toContain('delivery parked');
    expect(state.deadLetters).toEqual([
      {
        v: 1,
        type: 'dead-letter',
        reason: 'exhausted',
        error: 'receiver answered HTTP 503',
        failedAt: new Date(state.now).toISOString(),
        delivery: delivery(4),
      },
    ]);
    expect(state.records).toHaveLength(1);
  });

  it('fails with an InfrastructureError when neither parking nor the dead-letter port takes it', async () => {
    const { settle, state } = setup();
    state.fail.add('parked');
    state.fail.add('deadLetters');
    await expect(settle(delivery(4), http503)).rejects.toMatchObject({
      name: 'InfrastructureError',
      operation: 'deadLetters.put',
    });
  });
});

describe('a test send (delivery.test)', () => {
  it('is never retried, parked or dead-lettered, and its record says test', async () => {
    const { settle, state } = setup();
    const rec = await settle(delivery(1, { test: true }), http503);
    expect(state.scheduled).toEqual([]);
    expect(state.parked).toEqual([]);
    expect(state.deadLetters).toEqual([]);
    expect(rec).toMatchObject({ test: true, final: true, outcome: 'http_error' });
    expect(state.logs.map((l) => l.message)).toContain('test send failed');
  });

  it('is not counted for health, delivered or failed', async () => {
    const { settle, healthCalls } = setup();
    await settle(delivery(1, { test: true }), ok(200));
    await settle(delivery(4, { test: true }), http503);
    expect(healthCalls).toEqual([]);
  });
});

describe('writing the attempt record', () => {
  it('sends the record to the fallback when the attempt log fails, and settles normally', async () => {
    const { settle, state } = setup();
    state.fail.add('attemptLog');
    const rec = await settle(delivery(1), ok(200));
    expect(state.records).toEqual([]);
    expect(state.deferred).toEqual([rec]);
    expect(state.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringContaining('attempt log write failed'),
      }),
    );
  });

  it('fails with an InfrastructureError when the fallback fails too', async () => {
    const { settle, state } = setup();
    state.fail.add('attemptLog');
    state.fail.add('fallback');
    const settling = settle(delivery(1), ok(200));
    await expect(settling).rejects.toBeInstanceOf(InfrastructureError);
    await expect(settling).rejects.toMatchObject({ operation: 'attemptLogFallback.defer' });
  });

  it('logs, and does not replace, a different record already under the same key', async () => {
    const { settle, state, deps } = setup();
    deps.attemptLog = { append: async () => 'conflict' };
    const settler = createSettler(deps, { attemptTtlDays: 30, deliveredTtlDays: 30 });
    await settler.record(await settle(delivery(1), ok(200)));
    const warnings = state.logs.filter((l) => l.message.includes('different record'));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]!.fields).toMatchObject({ deliveryId: delivery(1).deliveryId, attempt: 1 });
  });

  it('places the record by the shards of the connection it was judged with, without looking it up again', async () => {
    const { settle, deps } = setup();
    const placed: unknown[] = [];
    deps.attemptLog = {
      append: async (_rec, shards) => {
        placed.push(shards);
        return 'written';
      },
    };
    const steps = [
      { count: 1, from: '1970-01-01T00:00:00.000Z' },
      { count: 4, from: '2026-11-20T00:00:00.000Z' },
    ];
    await settle(delivery(1), ok(200), { connection: { ...connection('con_a'), attemptShards: steps } });
    await settle(delivery(1), ok(200), { connection: connection('con_a') });
    await settle(delivery(1), ok(200), { connection: undefined });
    // A connection never raised has one unsharded step; without a connection the log looks it up.
    expect(placed).toEqual([steps, [{ count: 1, from: '1970-01-01T00:00:00.000Z' }], undefined]);
  });

  it('redacts a value passed in sensitive from the response snippet, the error and the parked item', async () => {
    const { settle, state } = setup();
    const token = 'tok_4f9a2b7c1d8e';
    const snippet = await settle(
      delivery(1),
      { kind: 'response', status: 500, snippet: `bad token ${token}`, durationMs: 5 },
      { sensitive: [SECRET, token] },
    );
    expect(snippet.responseSnippet).toBe('bad token [redacted]');
    const failed = await settle(
      delivery(4),
      { kind: 'network', durationMs: 5, error: `reset while sending ${token}` },
      { sensitive: [token] },
    );
    expect(failed.error).toBe('reset while sending [redacted]');
    expect(JSON.stringify([state.records, state.parked, state.logs])).not.toContain(token);
  });
});

describe('every outcome goes through decide()', () => {
  it.each<[RefusalReason, 'parked' | 'dead-lettered', string]>([
    ['blocked', 'parked', 'blocked'],
    ['connection_disabled', 'parked', 'rejected'],
    ['connection_missing', 'dead-lettered', 'rejected'],
    ['connection_invalid', 'dead-lettered', 'rejected'],
  ])(
    'a refusal %s at attempt 1 is %s at once, recorded %s, never retried',
    async (reason, where, outcome) => {
      const { settle, state, healthCalls } = setup();
      const rec = await settle(
        delivery(1),
        { kind: 'refused', reason, durationMs: 0, error: `refused: ${reason}` },
        { connection: undefined },
      );
      expect(rec).toMatchObject({ outcome, final: true, error: `refused: ${reason}` });
      expect(state.scheduled).toEqual([]);
      if (where === 'parked') {
        expect(state.parked).toEqual([
          expect.objectContaining({ reason, attempts: 1, lastOutcome: outcome }),
        ]);
        expect(state.deadLetters).toEqual([]);
      } else {
        expect(state.deadLetters).toEqual([expect.objectContaining({ reason, delivery: delivery(1) })]);
        expect(state.parked).toEqual([]);
      }
      expect(healthCalls).toEqual([]);
    },
  );

  it('names the application on every delivery line: a retry, a park, a dead letter, a failed park', async () => {
    const { settle, state } = setup();
    await settle(delivery(1), http503);
    await settle(delivery(4), http503);
    await settle(delivery(2), {
      kind: 'refused',
      reason: 'connection_missing',
      durationMs: 0,
      error: 'gone',
    });
    state.fail.add('parked');
    await settle(delivery(8, { chainStart: 5 }), http503);
    const lines = state.logs.filter((l) => l.level === 'warn');
    expect(lines.map((l) => l.message)).toEqual([
      'attempt failed; retry scheduled',
      'delivery parked',
      'delivery dead-lettered',
      'parking failed; the delivery goes to the dead-letter queue instead',
      'delivery dead-lettered',
    ]);
    for (const line of lines) expect(line.fields).toMatchObject({ applicationId: 'app_1' });
  });

  it('parks a destination the sender blocked at connect time, and counts it in the EMF document', async () => {
    const { settle, state, metrics } = setup();
    await settle(delivery(1), { kind: 'blocked', durationMs: 3, error: 'resolved to 10.0.0.1' });
    expect(state.parked).toEqual([expect.objectContaining({ reason: 'blocked', lastOutcome: 'blocked' })]);
    const line = state.logs.find((l) => l.message === 'delivery parked');
    expect(line?.fields).toMatchObject({ outcome: 'blocked', reason: 'blocked' });
    metrics.flush();
    expect(state.emf).toEqual([
      expect.objectContaining({ BlockedDestinations: 1, Parked: 1, Reason: 'blocked', Outcome: 'blocked' }),
    ]);
  });
});
