import { emfMetrics } from '../../../lambdas/adapters/metrics/emf';

/** In-memory fakes of the core's ports, for handler-level tests (docs/design.md §2, rule 7). */

import type { ConnectionHealth } from '../../../lambdas/core/health';
import { createHealthTracker } from '../../../lambdas/core/health-tracker';
import type { OperationalEvent, ParkedItem } from '../../../lambdas/core/parking';
import type { DispatcherDeps } from '../../../lambdas/core/ports';
import type {
  AttemptRecord,
  AttemptResult,
  Connection,
  DeadLetter,
  DeliveryMessage,
  OutboundRequest,
} from '../../../lambdas/core/types';
import { SECRET } from '../../support/fixtures';

/** The signing secret of every fake connection: the harness's one test secret. */
export { SECRET };

export const HEADER_VALUE = 'Bearer receiver-credential-xyz';

export function connection(id: string, overrides: Partial<Connection> = {}): Connection {
  return {
    connectionId: id,
    applicationId: 'app_1',
    type: 'webhook',
    name: `Receiver ${id}`,
    url: `https://${id.replace('_', '-')}.example.com/hooks?token=query-secret`,
    method: 'POST',
    headers: { Authorization: HEADER_VALUE },
    enabled: true,
    secretArn: `arn:aws:secretsmanager:us-east-1:123456789012:secret:webhooks/${id}-AbCdEf`,
    secretVersion: 'v1',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}

export type Responder = (request: OutboundRequest) => AttemptResult | Promise<AttemptResult>;

export function fakes(connections: Connection[], responder: Responder = () => ok(200)) {
  const state = {
    connections: new Map(connections.map((c) => [c.connectionId, c])),
    sent: [] as OutboundRequest[],
    scheduled: [] as Array<{ delivery: DeliveryMessage; delaySeconds: number }>,
    deadLetters: [] as DeadLetter[],
    parked: [] as ParkedItem[],
    health: new Map<string, ConnectionHealth>(),
    events: [] as OperationalEvent[],
    records: [] as AttemptRecord[],
    deferred: [] as AttemptRecord[],
    logs: [] as Array<{ level: string; message: string; fields?: Record<string, unknown> }>,
    now: Date.parse('2026-11-21T15:00:00.000Z'),
    fail: new Set<
      | 'connections'
      | 'secrets'
      | 'scheduler'
      | 'deadLetters'
      | 'attemptLog'
      | 'fallback'
      | 'parked'
      | 'health'
    >(),
    inFlight: 0,
    maxInFlight: 0,
  };
  const boom = (what: string) => {
    throw Object.assign(new Error(`${what} is unavailable`), { name: 'ServiceUnavailable' });
  };
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    state.logs.push({ level, message, fields });
  };
  const deps: DispatcherDeps = {
    connections: {
      async get(id) {
        if (state.fail.has('connections')) boom('DynamoDB');
        return state.connections.get(id);
      },
      async listByApplication(app) {
        if (state.fail.has('connections')) boom('DynamoDB');
        return [...state.connections.values()].filter((c) => c.applicationId === app);
      },
    },
    secrets: {
      async current() {
        if (state.fail.has('secrets')) boom('Secrets Manager');
        return SECRET;
      },
    },
    sender: {
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
    },
    scheduler: {
      async schedule(delivery, delaySeconds) {
        if (state.fail.has('scheduler')) boom('SQS');
        state.scheduled.push({ delivery, delaySeconds });
      },
    },
    deadLetters: {
      async put(letter) {
        if (state.fail.has('deadLetters')) boom('SQS');
        state.deadLetters.push(letter);
      },
    },
    parked: {
      async park(item) {
        if (state.fail.has('parked')) boom('DynamoDB');
        state.parked.push(item);
      },
    },
    health: createHealthTracker(
      {
        health: {
          async read(id) {
            if (state.fail.has('health')) boom('DynamoDB');
            return state.health.get(id);
          },
          async write(id, next, expected) {
            if ((state.health.get(id)?.version ?? 0) !== expected) return 'conflict';
            state.health.set(id, next);
            return 'written';
          },
        },
        events: { publish: async (event) => void state.events.push(event) },
        clock: { now: () => state.now },
        log: { debug() {}, info() {}, warn() {}, error() {} },
      },
      { failingAfter: 3, disableAfter: 5 },
    ),
    attemptLog: {
      async append(record) {
        if (state.fail.has('attemptLog')) boom('DynamoDB');
        state.records.push(record);
        return 'written' as const;
      },
    },
    attemptLogFallback: {
      async defer(record) {
        if (state.fail.has('fallback')) boom('SQS');
        state.deferred.push(record);
      },
    },
    clock: { now: () => state.now },
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    metrics: emfMetrics,
  };
  return { state, deps };
}

export function ok(status: number, snippet = '{"received":true}'): AttemptResult {
  return { kind: 'response', status, snippet, durationMs: 12 };
}
