/**
 * The EMF adapter as CloudWatch reads it: documents written once per invocation, each metric
 * under `[Stack]` and its `[Stack, X]` sets, dimension values at the top level, counts summed
 * and durations kept as value arrays of at most 100.
 */

import { CLOUDWATCH_METRICS } from '../../../lambdas/adapters/metrics/catalogue';
import { type EmfDocument, EmfMetrics, MAX_VALUES_PER_METRIC } from '../../../lambdas/adapters/metrics/emf';
import { createLimiter } from '../../../lambdas/core/limiter';
import type { MetricFact } from '../../../lambdas/core/metrics';

const NOW = Date.parse('2026-11-25T12:00:00Z');

function emf() {
  const docs: EmfDocument[] = [];
  const lines: string[] = [];
  const metrics = new EmfMetrics({
    stack: 'prod-webhooks',
    clock: { now: () => NOW },
    write: (line) => {
      lines.push(line);
      docs.push(JSON.parse(line) as EmfDocument);
    },
  });
  return { metrics, docs, lines };
}

const attempt = (outcome: string, statusCode: number | undefined, durationMs?: number): MetricFact =>
  ({ kind: 'attempt', outcome, statusCode, durationMs }) as MetricFact;

/**
 * What CloudWatch makes of the documents: each (metric, dimension set with its values) and
 * the values it receives, summed for counts. Also checks each document is well-formed: every
 * dimension a directive names is a top-level string, every metric a top-level value.
 */
function extracted(docs: EmfDocument[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const doc of docs) {
    for (const directive of doc._aws.CloudWatchMetrics) {
      expect(directive.Namespace).toBe('Webhooks');
      for (const set of directive.Dimensions) {
        for (const name of set) expect(typeof doc[name]).toBe('string');
        for (const metric of directive.Metrics) {
          const value = doc[metric.Name] as number | number[];
          expect(value).toBeDefined();
          const key = `${metric.Name}{${set.map((d) => `${d}=${doc[d]}`).join(',')}}`;
          out[key] = [...(out[key] ?? []), ...(Array.isArray(value) ? value : [value])];
        }
      }
    }
  }
  return out;
}

const sum = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);

describe('one invocation, one flush', () => {
  it('writes a healthy batch as one document: counts summed, every duration in one array', () => {
    const { metrics, docs } = emf();
    for (const ms of [120, 80, 95]) {
      metrics.record(attempt('delivered', 200, ms));
      metrics.record({ kind: 'final', result: 'delivered' });
      metrics.record({ kind: 'latency', ms: ms + 1_000 });
    }
    expect(docs).toEqual([]);
    metrics.flush();
    expect(docs).toHaveLength(1);
    expect(docs[0]).toEqual({
      _aws: {
        Timestamp: NOW,
        CloudWatchMetrics: [
          {
            Namespace: 'Webhooks',
            Dimensions: [['Stack'], ['Stack', 'Outcome'], ['Stack', 'StatusClass']],
            Metrics: [{ Name: 'Attempts', Unit: 'Count' }],
          },
          {
            Namespace: 'Webhooks',
            Dimensions: [['Stack'], ['Stack', 'Outcome']],
            Metrics: [{ Name: 'AttemptDuration', Unit: 'Milliseconds' }],
          },
          {
            Namespace: 'Webhooks',
            Dimensions: [['Stack'], ['Stack', 'Result']],
            Metrics: [{ Name: 'Deliveries', Unit: 'Count' }],
          },
          {
            Namespace: 'Webhooks',
            Dimensions: [['Stack']],
            Metrics: [{ Name: 'DeliveryLatency', Unit: 'Milliseconds' }],
          },
        ],
      },
      Stack: 'prod-webhooks',
      Outcome: 'delivered',
      StatusClass: '2xx',
      Result: 'delivered',
      Attempts: 3,
      AttemptDuration: [120, 80, 95],
      Deliveries: 3,
      DeliveryLatency: [1120, 1080, 1095],
    });
    // Flushed means forgotten: the next invocation starts from nothing and writes nothing.
    metrics.flush();
    expect(docs).toHaveLength(1);
  });

  it('writes as few documents as the dimension values need, and CloudWatch gets every count right', () => {
    const { metrics, docs } = emf();
    const facts: MetricFact[] = [
      attempt('delivered', 200, 10),
      attempt('http_error', 500, 20),
      attempt('http_error', 404, 30),
      attempt('http_error', 503, 40),
      attempt('timeout', undefined, 30_000),
      attempt('blocked', undefined),
      { kind: 'blocked' },
      { kind: 'retry' },
      { kind: 'retry' },
      { kind: 'final', result: 'delivered' },
      { kind: 'final', result: 'parked', reason: 'exhausted' },
      { kind: 'final', result: 'parked', reason: 'blocked' },
      { kind: 'final', result: 'dead_lettered' },
      { kind: 'deadLetter', reason: 'exhausted' },
      { kind: 'deadLetter', reason: 'invalid_message' },
      { kind: 'health', state: 'failing' },
      { kind: 'infrastructure', dependency: 'sqs' },
      { kind: 'attemptLogDeferred' },
      { kind: 'senderResend' },
    ];
    for (const fact of facts) metrics.record(fact);
    metrics.flush();
    // Attempts has 5 (outcome, class) pairs: 5 documents, everything else packed into them.
    expect(docs).toHaveLength(5);
    const cw = extracted(docs);
    expect(sum(cw['Attempts{Stack=prod-webhooks}'])).toBe(6);
    expect(sum(cw['Attempts{Stack=prod-webhooks,Outcome=http_error}'])).toBe(3);
    expect(sum(cw['Attempts{Stack=prod-webhooks,StatusClass=5xx}'])).toBe(2);
    expect(sum(cw['Attempts{Stack=prod-webhooks,StatusClass=none}'])).toBe(2);
    expect(cw['AttemptDuration{Stack=prod-webhooks}']).toEqual([10, 20, 30, 40, 30_000]);
    // By outcome too: a timeout's durations apart from the answers'.
    expect(cw['AttemptDuration{Stack=prod-webhooks,Outcome=timeout}']).toEqual([30_000]);
    expect(cw['AttemptDuration{Stack=prod-webhooks,Outcome=http_error}']).toEqual([20, 30, 40]);
    expect(sum(cw['Deliveries{Stack=prod-webhooks}'])).toBe(4);
    expect(sum(cw['Deliveries{Stack=prod-webhooks,Result=parked}'])).toBe(2);
    expect(sum(cw['Parked{Stack=prod-webhooks,Reason=exhausted}'])).toBe(1);
    expect(sum(cw['Parked{Stack=prod-webhooks,Reason=blocked}'])).toBe(1);
    expect(sum(cw['DeadLetters{Stack=prod-webhooks}'])).toBe(2);
    expect(sum(cw['DeadLetters{Stack=prod-webhooks,Reason=exhausted}'])).toBe(1);
    expect(sum(cw['RetriesScheduled{Stack=prod-webhooks}'])).toBe(2);
    expect(sum(cw['HealthTransitions{Stack=prod-webhooks,State=failing}'])).toBe(1);
    expect(sum(cw['InfrastructureFailures{Stack=prod-webhooks,Dependency=sqs}'])).toBe(1);
    expect(sum(cw['AttemptLogDeferred{Stack=prod-webhooks}'])).toBe(1);
    expect(sum(cw['SenderResends{Stack=prod-webhooks}'])).toBe(1);
    expect(sum(cw['BlockedDestinations{Stack=prod-webhooks}'])).toBe(1);
  });

  it('splits more than 100 values of a metric over documents, losing none', () => {
    const { metrics, docs } = emf();
    for (let i = 0; i < 250; i++) metrics.record(attempt('delivered', 200, i));
    metrics.flush();
    expect(docs.map((d) => (d.AttemptDuration as number[]).length)).toEqual([100, 100, 50]);
    expect(docs.every((d) => (d.AttemptDuration as number[]).length <= MAX_VALUES_PER_METRIC)).toBe(true);
    expect(sum(extracted(docs)['Attempts{Stack=prod-webhooks}'])).toBe(250);
    expect(extracted(docs)['AttemptDuration{Stack=prod-webhooks}']).toEqual([...Array(250).keys()]);
  });

  it('emits only catalogue names and dimensions, with bounded values: never an id', () => {
    const { metrics, docs, lines } = emf();
    metrics.record(attempt('http_error', 500, 5));
    metrics.record({ kind: 'final', result: 'parked', reason: 'connection_disabled' });
    metrics.flush();
    const names = new Set<string>(Object.values(CLOUDWATCH_METRICS).map((m) => m.name));
    for (const doc of docs) {
      for (const d of doc._aws.CloudWatchMetrics) {
        for (const m of d.Metrics) expect(names.has(m.Name)).toBe(true);
        for (const set of d.Dimensions) expect(set.length).toBeLessThanOrEqual(2);
      }
    }
    expect(lines.join()).not.toMatch(/con_|app_|dlv_|evt_/);
  });
});

describe('one meaning per measure', () => {
  it('counts a recovered delivery as recovered, never a second delivered, and a re-park as a park only', () => {
    const { metrics, docs } = emf();
    metrics.record({ kind: 'final', result: 'parked', reason: 'exhausted' });
    metrics.record({ kind: 'final', result: 'recovered' });
    metrics.record({ kind: 'parkedAgain', reason: 'exhausted' });
    metrics.flush();
    const cw = extracted(docs);
    expect(sum(cw['Deliveries{Stack=prod-webhooks}'])).toBe(2);
    expect(sum(cw['Deliveries{Stack=prod-webhooks,Result=recovered}'])).toBe(1);
    expect(cw['Deliveries{Stack=prod-webhooks,Result=delivered}']).toBeUndefined();
    expect(sum(cw['Parked{Stack=prod-webhooks,Reason=exhausted}'])).toBe(2);
  });

  it('writes the deliveries in flight as the most slots held at once in each invocation, read at its flush', () => {
    const { metrics, docs } = emf();
    const limiter = createLimiter(10);
    metrics.readInFlight(limiter.inFlight);
    for (const step of ['take', 'take', 'take', 'give', 'take', 'give', 'give'] as const)
      step === 'take' ? limiter.acquire() : limiter.release();
    metrics.flush();
    expect(extracted(docs)['DeliveriesInFlight{Stack=prod-webhooks}']).toEqual([3]);
    // One still held when the invocation flushed: the next starts from it.
    limiter.release();
    metrics.flush();
    expect(docs.at(-1)?.DeliveriesInFlight).toBe(1);
    limiter.acquire();
    limiter.release();
    metrics.flush();
    expect(docs.at(-1)?.DeliveriesInFlight).toBe(1);
    // No slot held since: nothing written.
    const written = docs.length;
    metrics.flush();
    expect(docs).toHaveLength(written);
  });

  it('writes each retry start lag as a value, like a duration', () => {
    const { metrics, docs } = emf();
    metrics.record({ kind: 'retryLag', ms: 250 });
    metrics.record({ kind: 'retryLag', ms: 4_000 });
    metrics.flush();
    expect(extracted(docs)['RetryStartLag{Stack=prod-webhooks}']).toEqual([250, 4_000]);
  });
});
