/**
 * What the in-process measurements share: realistic ids and payloads, in-memory ports for
 * everything but the HTTP sender, and a capture of what the Powertools logger writes.
 */

import { randomBytes } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { powertoolsLog } from '../../lambdas/adapters/logger';
import type { DispatcherDeps, InputRecord } from '../../lambdas/core/dispatch';
import { buildEventMessage } from '../../lambdas/core/envelope';
import { ulid } from '../../lambdas/core/ids';
import { buildPayload, serialiseBody } from '../../lambdas/core/payload';
import type {
  AttemptRecord,
  Connection,
  DeadLetter,
  DeliveryMessage,
  EventMessage,
  HttpSender,
  Log,
} from '../../lambdas/core/types';

export const HEADER_PREFIX = 'X-Service';
export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/**
 * A trace header as Lambda sets it on every invocation: Powertools copies its root id into
 * each line (`xray_trace_id`), so it is part of the bytes a deployed dispatcher logs.
 */
export const LAMBDA_TRACE_HEADER =
  'Root=1-6740a1b2-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=0';

const idOf = (prefix: string) => `${prefix}_${ulid(Date.now(), randomBytes(10))}`;

/** A user as upstream services typically publish it (spec §2 fields, small metadata). */
export function userIdentified(applicationId: string): EventMessage {
  return buildEventMessage(
    {
      user: {
        id: idOf('usr'),
        email: 'ada.lovelace@example.com',
        name: 'Ada Lovelace',
        firstName: 'Ada',
        lastName: 'Lovelace',
        metadata: { plan: 'pro', source: 'extension' },
      },
      application: { id: applicationId, name: 'Acme Extension' },
    },
    { eventId: idOf('evt'), occurredAt: new Date().toISOString() },
  );
}

export function connectionFor(
  url: string,
  applicationId: string,
  headers = { Authorization: 'Bearer rk_live_0123456789abcdef' },
): Connection {
  const now = new Date().toISOString();
  const connectionId = idOf('con');
  return {
    connectionId,
    applicationId,
    type: 'webhook',
    name: 'CRM',
    url,
    method: 'POST',
    headers,
    enabled: true,
    secretArn: `arn:aws:secretsmanager:us-east-1:123456789012:secret:webhooks/Webhooks/${connectionId}-AbCdEf`,
    secretVersion: '6f3c1a2e-8b4d-4c5e-9f60-7a8b9c0d1e2f',
    createdAt: now,
    updatedAt: now,
  };
}

/** `count` published events of one application, as SQS records. */
export function eventRecords(applicationId: string, count: number): InputRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    messageId: `m-${i}`,
    body: JSON.stringify(userIdentified(applicationId)),
  }));
}

/** The body the dispatcher sends for an event: the same bytes the baseline posts. */
export function bodyOf(record: InputRecord): string {
  const event = JSON.parse(record.body) as EventMessage;
  return serialiseBody(
    buildPayload({ timestamp: event.occurredAt, user: event.user, application: event.application }),
  );
}

export interface MemoryPorts {
  deps: DispatcherDeps;
  records: AttemptRecord[];
  scheduled: Array<{ delivery: DeliveryMessage; delaySeconds: number }>;
  deadLetters: DeadLetter[];
  /** Forget what was recorded (between rounds), keeping the ports. */
  clear(): void;
}

/** Every port in memory except the sender (and the log) the caller gives. */
export function memoryPorts(connections: Connection[], sender: HttpSender, log: Log): MemoryPorts {
  const byId = new Map(connections.map((c) => [c.connectionId, c]));
  const out: MemoryPorts = {
    records: [],
    scheduled: [],
    deadLetters: [],
    clear() {
      out.records.length = 0;
      out.scheduled.length = 0;
      out.deadLetters.length = 0;
    },
    deps: {
      connections: {
        get: async (id) => byId.get(id),
        listByApplication: async (app) => connections.filter((c) => c.applicationId === app),
      },
      secrets: { current: async () => SECRET },
      sender,
      scheduler: {
        schedule: async (delivery, delaySeconds) => {
          out.scheduled.push({ delivery, delaySeconds });
        },
      },
      deadLetters: {
        put: async (letter) => {
          out.deadLetters.push(letter);
        },
      },
      // Parked deliveries count as dead letters here: the benches measure what a delivery costs.
      parked: {
        park: async (item) => {
          out.deadLetters.push({
            v: 1,
            type: 'dead-letter',
            reason: item.reason,
            error: item.lastError ?? item.reason,
            failedAt: item.parkedAt,
          });
        },
      },
      health: { exhausted: async () => {}, delivered: async () => {} },
      attemptLog: {
        append: async (record) => {
          out.records.push(record);
          return 'written' as const;
        },
      },
      attemptLogFallback: {
        defer: async (record) => {
          out.records.push(record);
        },
      },
      clock: { now: () => Date.now() },
      log,
    },
  };
  return out;
}

/**
 * The production log adapter (Powertools, default INFO level unless told otherwise) with its
 * output captured: `start()` diverts stdout and stderr (Powertools writes warnings and
 * errors to stderr; Lambda sends both to CloudWatch Logs) into `lines`, `stop()` gives them
 * back. Nothing else may print while a capture runs.
 */
export function capturedPowertoolsLog(logLevel: 'INFO' | 'WARN' | 'DEBUG' = 'INFO') {
  const lines: string[] = [];
  let bytes = 0;
  let keep = true;
  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((s) => s.write);
  const log = powertoolsLog(new Logger({ serviceName: 'webhook-dispatcher', logLevel }));
  const sink = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    bytes += Buffer.byteLength(text, 'utf8');
    if (keep) lines.push(text);
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof process.stdout.write;
  return {
    log,
    lines,
    get bytes() {
      return bytes;
    },
    /** @param keepLines false to count bytes only (long runs). */
    start(keepLines = true) {
      keep = keepLines;
      lines.length = 0;
      bytes = 0;
      process.env._X_AMZN_TRACE_ID = LAMBDA_TRACE_HEADER;
      for (const stream of streams) stream.write = sink;
    },
    stop() {
      streams.forEach((stream, i) => {
        stream.write = originals[i]!;
      });
      delete process.env._X_AMZN_TRACE_ID;
    },
  };
}
