/**
 * Where a batch's time goes in the billed benchmark (docs/performance.md §11): each container
 * notes when each HTTP request of an invocation starts and when its response headers arrive
 * (Node's `http.client.*` diagnostics channels), and the parent sets them against the latency
 * drawn for the batch's slowest receiver, taken to be its longest receiver request:
 *
 *   start ─ first receiver request ─ … ─ the slowest receiver's request ─ its answer ─ end
 */

import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

/** One request of an invocation: its operation (the SDK's, or `receiver`), ms from the invocation's start. */
export interface RequestSpan {
  op: string;
  startMs: number;
  /** Absent when no response came (an error): not counted. */
  endMs?: number;
}

export const RECEIVER_OP = 'receiver';

/** An AWS call of another protocol than JSON (no `X-Amz-Target`): signed, and not a receiver's. */
export const OTHER_AWS_OP = 'other AWS call';

/**
 * `DynamoDB_20120810.PutItem` → `PutItem`; a request signed with SigV4 but without a target is
 * another AWS call; anything else is a receiver's (the dispatcher never signs those with SigV4).
 */
export function operationOf(target: unknown, authorization?: unknown): string {
  if (typeof target === 'string' && target !== '') return target.slice(target.lastIndexOf('.') + 1);
  if (typeof authorization === 'string' && authorization.startsWith('AWS4-HMAC-SHA256')) return OTHER_AWS_OP;
  return RECEIVER_OP;
}

/**
 * Container side: notes every HTTP client request between `begin()` and `end()`, which returns
 * the spans of that invocation. One invocation at a time per container, as in Lambda.
 */
export function recordSpans(): { begin(): void; end(): RequestSpan[] } {
  let spans: RequestSpan[] | undefined;
  let began = 0;
  const open = new WeakMap<ClientRequest, RequestSpan>();
  subscribe('http.client.request.start', (message) => {
    if (!spans) return;
    const request = (message as { request: ClientRequest }).request;
    const span: RequestSpan = {
      op: operationOf(request.getHeader('x-amz-target'), request.getHeader('authorization')),
      startMs: performance.now() - began,
    };
    open.set(request, span);
    spans.push(span);
  });
  subscribe('http.client.response.finish', (message) => {
    const span = open.get((message as { request: ClientRequest }).request);
    if (span && spans) span.endMs = performance.now() - began;
  });
  return {
    begin() {
      spans = [];
      began = performance.now();
    },
    end() {
      const done = spans ?? [];
      spans = undefined;
      return done;
    },
  };
}

type Tally = Record<string, { count: number; ms: number }>;

function add(tally: Tally, op: string, count: number, ms: number): void {
  const t = tally[op] ?? { count: 0, ms: 0 };
  t.count += count;
  t.ms += ms;
  tally[op] = t;
}

/** One batch's phases, ms. */
export interface BatchPhases {
  toFirstRequestMs: number;
  toSlowestRequestMs: number;
  slowestOverDrawnMs: number;
  afterSlowestMs: number;
  calls: Tally;
}

/** The phases of one batch, or undefined when it made no receiver request that was answered. */
export function phasesOf(
  spans: readonly RequestSpan[],
  wallMs: number,
  slowestDrawnMs: number,
): BatchPhases | undefined {
  const answered = spans.filter((s): s is Required<RequestSpan> => s.endMs !== undefined);
  const receivers = answered.filter((s) => s.op === RECEIVER_OP);
  if (receivers.length === 0) return undefined;
  const slowest = receivers.reduce((a, b) => (b.endMs - b.startMs > a.endMs - a.startMs ? b : a));
  const calls: Tally = {};
  for (const s of answered) {
    if (s.op === RECEIVER_OP) continue;
    add(calls, s.op, 1, s.endMs - s.startMs);
  }
  return {
    toFirstRequestMs: Math.min(...receivers.map((s) => s.startMs)),
    toSlowestRequestMs: slowest.startMs,
    slowestOverDrawnMs: slowest.endMs - slowest.startMs - slowestDrawnMs,
    afterSlowestMs: wallMs - slowest.endMs,
    calls,
  };
}

/** The phases averaged over a run's batches, ms per batch; each SDK operation's calls per batch and mean ms. */
export interface PhaseFigures {
  batches: number;
  toFirstRequestMs: number;
  toSlowestRequestMs: number;
  slowestOverDrawnMs: number;
  afterSlowestMs: number;
  calls: Record<string, { perBatch: number; meanMs: number }>;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

export function meanPhases(all: readonly BatchPhases[]): PhaseFigures | undefined {
  const n = all.length;
  if (n === 0) return undefined;
  const mean = (key: Exclude<keyof BatchPhases, 'calls'>) => r1(all.reduce((s, p) => s + p[key], 0) / n);
  const totals: Tally = {};
  for (const p of all) {
    for (const [op, c] of Object.entries(p.calls)) {
      add(totals, op, c.count, c.ms);
    }
  }
  return {
    batches: n,
    toFirstRequestMs: mean('toFirstRequestMs'),
    toSlowestRequestMs: mean('toSlowestRequestMs'),
    slowestOverDrawnMs: mean('slowestOverDrawnMs'),
    afterSlowestMs: mean('afterSlowestMs'),
    calls: Object.fromEntries(
      Object.entries(totals)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([op, t]) => [op, { perBatch: r1(t.count / n), meanMs: r1(t.ms / t.count) }]),
    ),
  };
}
