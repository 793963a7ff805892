/**
 * Tracing (docs/design.md §10 "Traces"): the core opens one span per attempt through the Tracing
 * port and keeps its trace id in the attempt record; the X-Ray adapter turns a span into one
 * annotated subsegment, never with a URL, header, body, error text or secret.
 */
import {
  ATTEMPT_SPAN,
  type SegmentLike,
  type SubsegmentLike,
  type TracerLike,
  xrayTracing,
} from '../../../lambdas/adapters/tracing/xray';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import type { AttemptSpan, SpanIds, Tracing } from '../../../lambdas/core/ports';
import type { Outcome } from '../../../lambdas/core/types';
import {
  connection,
  HEADER_VALUE,
  ok,
  DISPATCHER_OPTIONS as options,
  PLENTY as plenty,
  SECRET,
} from '../../support/fixtures';
import { memoryPorts, type Responder } from '../../support/memory';

const TRACE = '1-6925a3c0-0123456789abcdef01234567';

const event = {
  v: 1,
  type: 'event',
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  occurredAt: '2026-11-21T14:53:00.123Z',
  user: { id: 'usr_7', email: 'grace@example.com' },
  application: { id: 'app_1', name: 'Acme' },
};
const ingress = (messageId = 'm1') => ({
  messageId,
  body: JSON.stringify(event),
  source: 'ingress' as const,
});

/** A fake port: every span it opened, with what it was closed with. */
function fakeTracing() {
  const spans: Array<{
    ids: SpanIds;
    publisher?: string;
    ended: number;
    outcome?: Outcome;
    error?: unknown;
  }> = [];
  const tracing: Tracing = {
    attempt(ids, publisher): AttemptSpan {
      const span: (typeof spans)[number] = { ids, ended: 0, ...(publisher ? { publisher } : {}) };
      spans.push(span);
      return {
        traceId: TRACE,
        end(outcome, error) {
          span.ended += 1;
          span.outcome = outcome;
          span.error = error;
        },
      };
    },
  };
  return { tracing, spans };
}

function setup(responder: Responder, connections = [connection('con_a'), connection('con_b')]) {
  const f = memoryPorts(connections, { responder });
  const fake = fakeTracing();
  const dispatcher = createDispatcher({ ...f.deps, tracing: fake.tracing }, options);
  return { ...f, ...fake, dispatcher };
}

describe('the dispatcher with a tracing port', () => {
  it('opens one span per attempt, closes it with the outcome, and records its trace id', async () => {
    const { dispatcher, state, spans } = setup((req) => (req.url.href.includes('con-b') ? ok(503) : ok(200)));
    await dispatcher.processBatch([ingress()], plenty);
    expect(state.records).toHaveLength(2);
    expect(spans).toHaveLength(2);
    for (const span of spans) expect(span.ended).toBe(1);
    const byConnection = Object.fromEntries(spans.map((s) => [s.ids.connectionId, s]));
    const records = Object.fromEntries(state.records.map((r) => [r.connectionId, r]));
    for (const id of ['con_a', 'con_b']) {
      expect(byConnection[id]!.ids).toEqual({
        connectionId: id,
        deliveryId: records[id]!.deliveryId,
        attempt: 1,
      });
      expect(byConnection[id]!.outcome).toBe(records[id]!.outcome);
      expect(records[id]!.traceId).toBe(TRACE);
    }
    expect(new Set(spans.map((s) => s.outcome))).toEqual(new Set(['delivered', 'http_error']));
  });

  it('spans a refusal too (a blocked destination), without a send', async () => {
    const { dispatcher, state, spans } = setup(
      () => ok(200),
      [connection('con_a', { url: 'https://169.254.169.254/latest' })],
    );
    await dispatcher.processBatch([ingress()], plenty);
    expect(state.sent).toHaveLength(0);
    expect(spans.map((s) => s.outcome)).toEqual(['blocked']);
    expect(state.records[0]).toMatchObject({ outcome: 'blocked', traceId: TRACE });
  });

  it('closes the span with the error when the attempt fails for infrastructure, and sends no trace header', async () => {
    const { dispatcher, state, spans } = setup(() => ok(503), [connection('con_a')]);
    state.fail.add('scheduler'); // the retry cannot be scheduled, nor the delivery handed back
    const { failures } = await dispatcher.processBatch([ingress('m-1')], plenty);
    expect(failures).toEqual(['m-1']);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ ended: 1, outcome: undefined });
    expect(spans[0]!.error).toBeInstanceOf(Error);
    const sentHeaders = Object.keys(state.sent[0]!.headers).map((h) => h.toLowerCase());
    expect(sentHeaders.filter((h) => /trace|traceparent|tracestate/.test(h))).toEqual([]);
  });

  it("hands the publisher's trace to every attempt's span, retries included, and never to the receiver", async () => {
    const traceparent = '00-6925a3c00123456789abcdef01234567-53995c3f42cd8ad8-01';
    const { dispatcher, state, spans } = setup(() => ok(503), [connection('con_a')]);
    await dispatcher.processBatch([{ ...ingress(), traceparent }], plenty);
    const retry = state.scheduled[0]!.delivery;
    expect(retry.traceparent).toBe(traceparent);
    await dispatcher.processBatch([{ messageId: 'r', body: JSON.stringify(retry), source: 'retry' }], plenty);
    expect(spans.map((s) => [s.ids.attempt, s.publisher])).toEqual([
      [1, traceparent],
      [2, traceparent],
    ]);
    for (const sent of state.sent) expect(JSON.stringify(sent.headers)).not.toMatch(/traceparent|6925a3c0/i);
  });

  it('records no trace id without the port', async () => {
    const f = memoryPorts([connection('con_a')], { responder: () => ok(200) });
    await createDispatcher(f.deps, options).processBatch([ingress()], plenty);
    expect(f.state.records[0]!.traceId).toBeUndefined();
  });
});

/** A fake X-Ray tracer: the subsegments it opened, their annotations, flags and closes. */
function fakeTracer(hasSegment = true, traceId: string | undefined = TRACE, sampled = true) {
  const subsegments: Array<{
    name: string;
    annotations: Record<string, unknown>;
    metadata?: Record<string, unknown>;
    errorFlag: boolean;
    closed: number;
  }> = [];
  const segment: SegmentLike = {
    addNewSubsegment(name): SubsegmentLike {
      const sub = { name, annotations: {} as Record<string, unknown>, errorFlag: false, closed: 0 };
      subsegments.push(sub);
      return {
        addAnnotation: (key, value) => {
          sub.annotations[key] = value;
        },
        addMetadata: (key, value) => {
          (sub as { metadata?: Record<string, unknown> }).metadata = { [key]: value };
        },
        addErrorFlag: () => {
          sub.errorFlag = true;
        },
        close: () => {
          sub.closed += 1;
        },
      };
    },
  };
  const tracer: TracerLike = {
    getSegment: () => (hasSegment ? segment : undefined),
    getRootXrayTraceId: () => traceId,
    isTraceSampled: () => sampled,
  };
  return { tracer, subsegments };
}

describe('the X-Ray tracing adapter', () => {
  const ids = { connectionId: 'con_a', deliveryId: 'dlv_1_con_a', attempt: 3 };

  it('opens one annotated subsegment per span and closes it with the outcome', () => {
    const { tracer, subsegments } = fakeTracer();
    const span = xrayTracing(tracer).attempt(ids);
    expect(span.traceId).toBe(TRACE);
    span.end('http_error');
    expect(subsegments).toEqual([
      {
        name: ATTEMPT_SPAN,
        annotations: { connectionId: 'con_a', deliveryId: 'dlv_1_con_a', attempt: 3, outcome: 'http_error' },
        errorFlag: false,
        closed: 1,
      },
    ]);
  });

  it("flags an error with the error's name only, never its message", () => {
    const { tracer, subsegments } = fakeTracer();
    const error = new TypeError(`secrets store answered with ${SECRET} and ${HEADER_VALUE}`);
    xrayTracing(tracer).attempt(ids).end(undefined, error);
    expect(subsegments[0]).toMatchObject({ errorFlag: true, closed: 1, annotations: { error: 'TypeError' } });
    expect(JSON.stringify(subsegments)).not.toContain(SECRET);
    expect(JSON.stringify(subsegments)).not.toContain(HEADER_VALUE);
  });

  it('keeps no trace id for the record when the invocation is not sampled (Sampled=0): X-Ray keeps no such trace', () => {
    const { tracer, subsegments } = fakeTracer(true, TRACE, false);
    const span = xrayTracing(tracer).attempt(ids);
    expect(span.traceId).toBeUndefined();
    span.end('delivered');
    expect(subsegments).toHaveLength(1);
  });

  it("records the publisher's trace on the span: its X-Ray id as a searchable annotation, the traceparent as metadata", () => {
    const { tracer, subsegments } = fakeTracer();
    const traceparent = '00-6925a3c00123456789abcdef01234567-53995c3f42cd8ad8-01';
    xrayTracing(tracer).attempt(ids, traceparent).end('delivered');
    expect(subsegments[0]).toMatchObject({
      annotations: { publisherTraceId: '1-6925a3c0-0123456789abcdef01234567' },
      metadata: { traceparent },
    });
  });

  it('gives an inert span, and no trace id, outside an invocation segment', () => {
    const { tracer, subsegments } = fakeTracer(false);
    const span = xrayTracing(tracer).attempt(ids);
    expect(span.traceId).toBeUndefined();
    span.end('delivered');
    expect(subsegments).toEqual([]);
  });
});
