/**
 * What the core counts (core/metrics.ts facts through the Metrics port), for each way a
 * delivery can go: a fact missing here is a metric that silently disappeared.
 */

import { statusClassOf } from '../../../lambdas/adapters/metrics/samples';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { createHealthTracker } from '../../../lambdas/core/health-tracker';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import type { InFlight } from '../../../lambdas/core/limiter';
import { dependencyOf, type MetricFact } from '../../../lambdas/core/metrics';
import { recoveryMessage } from '../../../lambdas/core/parking';
import type { InputRecord } from '../../../lambdas/core/ports';
import type { DeliveryMessage } from '../../../lambdas/core/types';
import { connection, ok, DISPATCHER_OPTIONS as options, PLENTY as plenty } from '../../support/fixtures';
import { memoryPorts, type Responder } from '../../support/memory';

const event = {
  v: 1,
  type: 'event',
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  occurredAt: '2026-11-21T14:53:00.123Z',
  user: { id: 'usr_7', email: 'grace@example.com' },
  application: { id: 'app_1', name: 'Acme' },
};

/** The lag comes with every attempt of a retry: kept apart, tested on its own. */
const LEVELS = new Set(['retryLag']);

function setup(responder?: Responder) {
  const f = memoryPorts([connection('con_a')], { responder });
  const facts: MetricFact[] = [];
  const levels: MetricFact[] = [];
  f.deps.metrics = {
    record: (...recorded) => {
      for (const fact of recorded) (LEVELS.has(fact.kind) ? levels : facts).push(fact);
    },
  };
  return { ...f, facts, levels, dispatcher: createDispatcher(f.deps, options) };
}

const ingress = (sentAtMs?: number): InputRecord => ({
  messageId: 'm1',
  body: JSON.stringify(event),
  source: 'ingress',
  ...(sentAtMs === undefined ? {} : { sentAtMs }),
});
const retry = (delivery: DeliveryMessage): InputRecord => ({
  messageId: 'm2',
  body: JSON.stringify(delivery),
  source: 'retry',
});

describe('one delivery that fails twice, then arrives', () => {
  it('counts 2 http_error attempts, 2 retries, 1 delivered attempt and result, and the latency from publish', async () => {
    const answers = [500, 500, 200];
    const f = setup(() => ok(answers.shift()!));
    const publishedAt = f.state.now - 5_000;
    await f.dispatcher.processBatch([ingress(publishedAt)], plenty);
    for (let i = 0; i < 2; i++) {
      const next = f.state.scheduled.shift()!.delivery;
      // Carried across retries: the publish time, not the first attempt's.
      expect(next.publishedAt).toBe(new Date(publishedAt).toISOString());
      f.state.now += 60_000;
      await f.dispatcher.processBatch([retry(next)], plenty);
    }
    const attempt = (outcome: string, statusCode: number) => ({
      kind: 'attempt',
      outcome,
      statusCode,
      durationMs: expect.any(Number),
    });
    expect(f.facts).toEqual([
      { kind: 'retry' },
      attempt('http_error', 500),
      { kind: 'retry' },
      attempt('http_error', 500),
      attempt('delivered', 200),
      { kind: 'final', result: 'delivered' },
      { kind: 'latency', ms: 125_000 },
    ]);
  });

  it('measures the latency from the first attempt for a message that carries no publish time (a Resend)', async () => {
    const f = setup();
    await f.dispatcher.processBatch([ingress()], plenty);
    expect(f.facts.map((x) => x.kind)).toEqual(['attempt', 'final', 'latency']);
    expect(f.facts.at(-1)).toEqual({ kind: 'latency', ms: 0 });
  });
});

describe('the facts of one moment', () => {
  it('records a settled attempt with its final result and latency in one call', async () => {
    const f = memoryPorts([connection('con_a')]);
    const calls: MetricFact[][] = [];
    f.deps.metrics = { record: (...facts) => calls.push(facts) };
    await createDispatcher(f.deps, options).processBatch([ingress(f.state.now)], plenty);
    expect(calls.map((facts) => facts.map((x) => x.kind))).toEqual([['attempt', 'final', 'latency']]);
  });
});

describe('a delivery parked, then recovered', () => {
  /** The exhausted delivery's recovery: a new chain after attempt 4, as core/parking.ts writes it. */
  async function parkedThenRecovered(answer: number) {
    const f = setup((req) => ok(Number(req.headers['X-Service-Attempt']) >= 5 ? answer : 503));
    const publishedAt = f.state.now - 5_000;
    await f.dispatcher.processBatch([ingress(publishedAt)], plenty);
    const first = f.state.scheduled.shift()!.delivery;
    await f.dispatcher.processBatch([retry({ ...first, attempt: 4 })], plenty);
    const parked = f.state.parked.find((p) => p.deliveryId === first.deliveryId)!;
    expect(parked.publishedAt).toBe(new Date(publishedAt).toISOString());
    f.facts.length = 0;
    f.state.now += 3_600_000;
    await f.dispatcher.processBatch([retry(recoveryMessage(parked))], plenty);
    return { f, publishedAt };
  }

  it('counts its 2xx as recovered, not a second delivered, with the latency from publish', async () => {
    const { f, publishedAt } = await parkedThenRecovered(200);
    expect(f.facts).toEqual([
      { kind: 'attempt', outcome: 'delivered', statusCode: 200, durationMs: expect.any(Number) },
      { kind: 'final', result: 'recovered' },
      { kind: 'latency', ms: f.state.now - publishedAt },
    ]);
  });

  it('counts a recovery that ends parked again as a park, not a second final result', async () => {
    const { f } = await parkedThenRecovered(503);
    const again = f.state.scheduled.at(-1)!.delivery;
    f.facts.length = 0;
    await f.dispatcher.processBatch([retry({ ...again, attempt: again.chainStart! + 3 })], plenty);
    expect(f.facts).toEqual([
      { kind: 'attempt', outcome: 'http_error', statusCode: 503, durationMs: expect.any(Number) },
      { kind: 'parkedAgain', reason: 'exhausted' },
    ]);
  });
});

describe('deliveries in flight and retry start lag', () => {
  it('holds a slot while the attempt is sent and settled, gives it back, and measures a retry from when it was due', async () => {
    const during: InFlight[] = [];
    const f = setup(() => {
      during.push(f.dispatcher.inFlight());
      return ok(503);
    });
    await f.dispatcher.processBatch([ingress()], plenty);
    expect(during).toEqual([{ now: 1, peak: 1 }]);
    // Given back; held at the last reading, so the peak since is 1, then none.
    expect(f.dispatcher.inFlight()).toEqual({ now: 0, peak: 1 });
    expect(f.dispatcher.inFlight()).toEqual({ now: 0, peak: 0 });
    const next = f.state.scheduled.shift()!.delivery;
    expect(next.dueAt).toBe(new Date(f.state.now + 1_000).toISOString());
    // Taken up 2.5 s after it was scheduled: 1.5 s after it was due.
    f.state.now += 2_500;
    await f.dispatcher.processBatch([retry(next)], plenty);
    expect(f.levels).toEqual([{ kind: 'retryLag', ms: 1_500 }]);
  });
});

describe('retry start lag, measured when its attempt starts', () => {
  it('counts one lag per attempt: none for a delivery deferred by the rate limit or handed back', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 1 })]);
    const lags: MetricFact[] = [];
    f.deps.metrics = { record: (...facts) => lags.push(...facts.filter((x) => x.kind === 'retryLag')) };
    const dispatcher = createDispatcher(f.deps, options);
    const due = (n: number): DeliveryMessage => ({
      v: 1,
      type: 'delivery',
      deliveryId: deliveryIdFor(`evt_01JD3XQ4Z8K2M5N7P9R1S3T5V${n}`, 'con_a', Date.parse(event.occurredAt)),
      eventId: `evt_01JD3XQ4Z8K2M5N7P9R1S3T5V${n}`,
      connectionId: 'con_a',
      attempt: 2,
      chainStart: 1,
      body: '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_7","metadata":{}},"application":{"id":"app_1","name":"Acme"}}',
      firstAttemptAt: new Date(f.state.now - 2_000).toISOString(),
      dueAt: new Date(f.state.now - 500).toISOString(),
    });
    await dispatcher.processBatch([retry(due(1)), { ...retry(due(2)), messageId: 'm3' }], plenty);
    // One sent, one over the limit of 1 a second and put back: one lag, of the one attempt.
    expect(f.state.records).toHaveLength(1);
    expect(f.state.scheduled).toHaveLength(1);
    expect(lags).toEqual([{ kind: 'retryLag', ms: 500 }]);
    lags.length = 0;
    f.state.fail.add('secrets');
    f.state.now += 5_000;
    await dispatcher.processBatch([retry(due(3))], plenty);
    expect(lags).toEqual([]);
  });
});

describe('final results and dead letters', () => {
  it('counts an exhausted delivery as parked with its reason, with no dead letter', async () => {
    const f = setup(() => ok(503));
    // The last attempt of the chain of the delivery the fan-out wrote.
    await f.dispatcher.processBatch([ingress()], plenty);
    const last: DeliveryMessage = { ...f.state.scheduled[0]!.delivery, attempt: 4 };
    f.facts.length = 0;
    await f.dispatcher.processBatch([retry(last)], plenty);
    expect(f.facts).toEqual([
      { kind: 'attempt', outcome: 'http_error', statusCode: 503, durationMs: expect.any(Number) },
      { kind: 'final', result: 'parked', reason: 'exhausted' },
    ]);
  });

  it('counts a delivery whose parking failed as dead-lettered, with its reason and the table failure', async () => {
    const f = setup();
    f.state.connections.set('con_a', { ...connection('con_a'), enabled: false });
    f.state.fail.add('parked');
    // Named explicitly: a disabled connection is refused, not left out of the fan-out.
    const named = { ...ingress(), body: JSON.stringify({ ...event, connectionIds: ['con_a'] }) };
    await f.dispatcher.processBatch([named], plenty);
    expect(f.facts).toEqual([
      { kind: 'infrastructure', dependency: 'dynamodb' },
      { kind: 'deadLetter', reason: 'connection_disabled' },
      { kind: 'attempt', outcome: 'rejected' },
      { kind: 'final', result: 'dead_lettered' },
    ]);
  });

  it('counts a poison message as a dead letter with its reason, and no attempt', async () => {
    const f = setup();
    await f.dispatcher.processBatch([{ messageId: 'p', body: '{not json', source: 'ingress' }], plenty);
    expect(f.facts).toEqual([{ kind: 'deadLetter', reason: 'invalid_message' }]);
  });

  it('counts a blocked destination with its attempt (a refusal: no duration)', async () => {
    const f = setup();
    f.state.connections.set('con_a', connection('con_a', { url: 'https://10.0.0.5/hooks' }));
    await f.dispatcher.processBatch([ingress()], plenty);
    expect(f.facts).toEqual([
      { kind: 'attempt', outcome: 'blocked' },
      { kind: 'blocked' },
      { kind: 'final', result: 'parked', reason: 'blocked' },
    ]);
  });

  it('counts a test send as one attempt and no delivery', async () => {
    const f = setup(() => ok(200));
    const delivery: DeliveryMessage = {
      v: 1,
      type: 'delivery',
      deliveryId: 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_a',
      eventId: event.eventId,
      connectionId: 'con_a',
      attempt: 1,
      body: '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_7","email":"grace@example.com","name":"Grace Hopper","metadata":{}},"application":{"id":"app_1","name":"Acme"}}',
      firstAttemptAt: '2026-11-21T14:53:00Z',
      publishedAt: '2026-11-21T14:53:00Z',
      test: true,
    };
    await f.dispatcher.attemptOnce(delivery, connection('con_a'), plenty);
    expect(f.facts.map((x) => x.kind)).toEqual(['attempt']);
  });
});

describe('infrastructure failures, by dependency', () => {
  it('counts the secret store failing (delivery handed back) and the queue failing (record redelivered)', async () => {
    const f = setup();
    f.state.fail.add('secrets');
    await f.dispatcher.processBatch([ingress()], plenty);
    expect(f.facts).toEqual([{ kind: 'infrastructure', dependency: 'secrets' }]);
    f.facts.length = 0;
    f.state.fail.add('scheduler');
    // Another event: the first one's delivery was handed back, so publishing it again sends nothing (core/claims.ts).
    const another = { ...ingress(), body: JSON.stringify({ ...event, eventId: 'evt_another' }) };
    const { failures } = await f.dispatcher.processBatch([another], plenty);
    expect(failures).toEqual(['m1']);
    expect(f.facts).toEqual([
      { kind: 'infrastructure', dependency: 'secrets' },
      { kind: 'infrastructure', dependency: 'sqs' },
    ]);
  });

  it('counts an attempt record the table refused as a DynamoDB failure and a deferred write', async () => {
    const f = setup();
    f.state.fail.add('attemptLog');
    await f.dispatcher.processBatch([ingress()], plenty);
    expect(f.state.deferred).toHaveLength(1);
    expect(f.facts.slice(0, 2)).toEqual([
      { kind: 'infrastructure', dependency: 'dynamodb' },
      { kind: 'attemptLogDeferred' },
    ]);
  });
});

describe('health transitions', () => {
  it('counts each transition by the state entered, and a failed health write as DynamoDB', async () => {
    const f = memoryPorts([connection('con_a')]);
    const facts: MetricFact[] = [];
    const tracker = createHealthTracker(
      {
        health: f.connections.health,
        events: f.events,
        clock: f.deps.clock,
        log: f.deps.log,
        metrics: { record: (...recorded) => facts.push(...recorded) },
      },
      { failingAfter: 1, disableAfter: 2 },
    );
    const con = f.state.connections.get('con_a')!;
    await tracker.exhausted(con);
    await tracker.exhausted(con);
    expect(facts).toEqual([
      { kind: 'health', state: 'failing' },
      { kind: 'health', state: 'disabled' },
    ]);
    facts.length = 0;
    f.state.fail.add('health');
    await tracker.exhausted(connection('con_a'));
    expect(facts).toEqual([{ kind: 'infrastructure', dependency: 'dynamodb' }]);
  });
});

describe('classes and dependencies', () => {
  it('puts each status in its class, one outside 200-599 in other, and no response in none', () => {
    expect([200, 204, 301, 404, 429, 500, 599, 101, 600, 999, undefined].map(statusClassOf)).toEqual([
      '2xx',
      '2xx',
      '3xx',
      '4xx',
      '4xx',
      '5xx',
      '5xx',
      'other',
      'other',
      'other',
      'none',
    ]);
  });

  it('names the dependency behind every port operation, and none for the deadline', () => {
    expect(
      [
        'connections.get',
        'attemptLog.append',
        'parked.park',
        'health.write',
        'scheduler.schedule',
        'deadLetters.put',
        'attemptLogFallback.defer',
        'secrets.current',
        'events.publish',
        'invocation',
      ].map(dependencyOf),
    ).toEqual([
      'dynamodb',
      'dynamodb',
      'dynamodb',
      'dynamodb',
      'sqs',
      'sqs',
      'sqs',
      'secrets',
      'sns',
      undefined,
    ]);
  });
});
