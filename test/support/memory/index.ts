/**
 * Every port of the dispatcher core in memory (docs/design.md §2, rule 7), for handler-level tests and
 * in-process benchmarks: the stores and queues of this folder (each held to its production
 * adapter's behaviour by test/contract/), a sender that records each request and answers with
 * a responder (or the sender given), a log that keeps its lines, and the health tracker on the
 * in-memory connections. `state` is what a test reads and steers: what was sent, scheduled,
 * dead-lettered, parked and logged, the clock (`now`), and `fail`, the ports that are down.
 */

import { type EmfDocument, EmfMetrics } from '../../../lambdas/adapters/metrics/emf';
import type { HealthThresholds } from '../../../lambdas/core/health';
import { createHealthTracker } from '../../../lambdas/core/health-tracker';
import type { Clock, DispatcherDeps, HttpSender, Log } from '../../../lambdas/core/ports';
import type { AttemptResult, Connection, OutboundRequest } from '../../../lambdas/core/types';
import { ok, SECRET } from '../fixtures';
import { MemoryAttempts } from './attempts';
import { MemoryClaims } from './claims';
import { MemoryConnections } from './connections';
import { MemoryEvents } from './events';
import { MemoryParked } from './parked';
import { MemoryQueues } from './queues';
import { MemoryRateWindows } from './rate-windows';
import { MemorySigningSecrets } from './secrets';

export {
  MemoryAttempts,
  MemoryClaims,
  MemoryConnections,
  MemoryEvents,
  MemoryParked,
  MemoryQueues,
  MemoryRateWindows,
  MemorySigningSecrets,
};

export type Responder = (request: OutboundRequest) => AttemptResult | Promise<AttemptResult>;

/** The ports a test can take down (`state.fail`). */
export type PortName =
  | 'connections'
  | 'secrets'
  | 'scheduler'
  | 'deadLetters'
  | 'attemptLog'
  | 'fallback'
  | 'parked'
  | 'health'
  | 'rateWindows'
  | 'claims';

export interface MemoryPortsOptions {
  /** Answers each request the recording sender gets. @default HTTP 200 */
  responder?: Responder;
  /** A sender of the caller's instead (nothing is recorded in `state.sent`). */
  sender?: HttpSender;
  /** @default a log that keeps its lines in `state.logs` */
  log?: Log;
  /** @default `state.now`, fixed at 2026-11-21T15:00:00Z until a test moves it */
  clock?: Clock;
  /** @default failing after 3 exhausted deliveries in a row, disabled after 5 */
  health?: HealthThresholds;
}

const QUEUE_PORTS: Record<string, PortName> = {
  schedule: 'scheduler',
  scheduleBatch: 'scheduler',
  put: 'deadLetters',
  defer: 'fallback',
};

export function memoryPorts(connections: Connection[], options: MemoryPortsOptions = {}) {
  const fail = new Set<PortName>();
  const down = (port: PortName) => () => fail.has(port);
  const stores = {
    connections: new MemoryConnections(connections, (operation) =>
      fail.has(operation.startsWith('health.') ? 'health' : 'connections'),
    ),
    attempts: new MemoryAttempts(down('attemptLog')),
    parked: new MemoryParked(down('parked')),
    queues: new MemoryQueues((operation) => fail.has(QUEUE_PORTS[operation]!)),
    secrets: new MemorySigningSecrets({ otherwise: SECRET, outage: down('secrets') }),
    events: new MemoryEvents(),
    rateWindows: new MemoryRateWindows(down('rateWindows')),
    claims: new MemoryClaims(down('claims')),
  };
  const logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const state = {
    /** The stored connections by id (set, change or delete them directly). */
    connections: stores.connections.items,
    sent: [] as OutboundRequest[],
    scheduled: stores.queues.scheduled,
    deadLetters: stores.queues.deadLetters,
    /** What is parked now, in the order first parked. */
    get parked() {
      return stores.parked.all();
    },
    /** Health by connection id, as the connections hold it now. */
    get health() {
      return stores.connections.healthById();
    },
    events: stores.events.events,
    /** Attempt records written, in order (the log keeps them when a test empties this). */
    records: stores.attempts.records,
    deferred: stores.queues.deferred,
    logs,
    /** EMF documents the metrics adapter wrote, read back from their lines (at each `metrics.flush()`). */
    emf: [] as EmfDocument[],
    now: Date.parse('2026-11-21T15:00:00.000Z'),
    fail,
    inFlight: 0,
    maxInFlight: 0,
    /** Where each `clock.sleep` ended (ms): a rate-limited send's slot. */
    waitedUntil: [] as number[],
  };
  const responder = options.responder ?? (() => ok(200));
  const sender: HttpSender = options.sender ?? {
    async send(request) {
      state.sent.push(request);
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        return await responder(request);
      } finally {
        state.inFlight--;
      }
    },
  };
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    logs.push({ level, message, fields });
  };
  /**
   * The fake clock. Waits end in the order of their ends, one at a time (each once everything
   * else that can run has run), moving `now` on to that end: overlapping waits of a batch take
   * the longest of them, not their sum. Each wait's end is kept in `state.waitedUntil`.
   */
  const sleeping: Array<{ until: number; wake: () => void }> = [];
  const wakeNext = () => {
    sleeping.sort((a, b) => a.until - b.until);
    const next = sleeping.shift();
    if (!next) return;
    state.now = Math.max(state.now, next.until);
    next.wake();
    if (sleeping.length) setImmediate(wakeNext);
  };
  const clock = options.clock ?? {
    now: () => state.now,
    sleep(ms: number) {
      const until = state.now + ms;
      state.waitedUntil.push(until);
      return new Promise<void>((wake) => {
        if (sleeping.push({ until, wake }) === 1) setImmediate(wakeNext);
      });
    },
  };
  /** The production EMF adapter, its lines captured in `state.emf`; a handler test flushes it. */
  const metrics = new EmfMetrics({
    stack: 'test-stack',
    clock,
    write: (line) => state.emf.push(JSON.parse(line) as EmfDocument),
  });
  const deps: DispatcherDeps = {
    connections: stores.connections,
    secrets: stores.secrets,
    sender,
    scheduler: stores.queues,
    deadLetters: stores.queues,
    parked: stores.parked,
    health: createHealthTracker(
      {
        health: stores.connections.health,
        events: stores.events,
        clock,
        log: { debug() {}, info() {}, warn() {}, error() {} },
        metrics,
      },
      options.health ?? { failingAfter: 3, disableAfter: 5 },
    ),
    attemptLog: stores.attempts,
    attemptLogFallback: stores.queues,
    clock,
    log: options.log ?? {
      debug: keep('debug'),
      info: keep('info'),
      warn: keep('warn'),
      error: keep('error'),
    },
    metrics,
    rateCounter: stores.rateWindows,
    claims: stores.claims,
  };
  return {
    state,
    deps,
    metrics,
    ...stores,
    /** Forgets what was recorded (between benchmark rounds), keeping the ports and connections. */
    clear() {
      for (const store of [stores.attempts, stores.parked, stores.queues]) store.clear();
      stores.rateWindows.counts.clear();
      stores.claims.items.clear();
      stores.events.events.length = 0;
      state.sent.length = 0;
      logs.length = 0;
      metrics.flush();
      state.emf.length = 0;
    },
  };
}

export type MemoryPorts = ReturnType<typeof memoryPorts>;
