/**
 * The delivery core: turns a batch of queue records into signed attempts, decisions and
 * attempt-log records, through the ports it declares. No AWS, no environment, no clock of
 * its own: everything arrives in {@link DispatcherDeps}, so every rule is testable.
 *
 * One record's path, a file per step (docs/architecture.md):
 * batch.ts (read, poison, route) → fan-out.ts (an event's deliveries) → attempt.ts (one
 * attempt, or a refusal) → settle.ts (the one decision of outcome.ts, acted on: retry,
 * park or dead-letter; the record of attempt-record.ts written; health counted; logged).
 * A record fails (and SQS redelivers it) only for infrastructure errors or a too-close
 * deadline; every other problem ends in a logged outcome.
 */

import { createAttempter, type Run } from './attempt';
import { createBatch } from './batch';
import { ATTEMPT_TIMEOUT_MS } from './constants';
import type { EgressPolicy } from './egress';
import { factsOfBody } from './envelope';
import { createFanOut } from './fan-out';
import type { HealthTracker } from './health-tracker';
import type { ParkedDeliveries } from './parking';
import { createSettler } from './settle';
import { otherApplication } from './targets';
import type {
  AttemptLog,
  AttemptLogFallback,
  AttemptRecord,
  Clock,
  Connection,
  ConnectionStore,
  DeadLetters,
  DeliveryMessage,
  HttpSender,
  Log,
  Metrics,
  RetryScheduler,
  SigningSecrets,
} from './types';

export { DEADLINE_MARGIN_MS } from './attempt';

import type { QueueSource } from './envelope';

export interface DispatcherDeps {
  connections: ConnectionStore;
  secrets: SigningSecrets;
  sender: HttpSender;
  scheduler: RetryScheduler;
  deadLetters: DeadLetters;
  /** Where exhausted, disabled-connection and blocked deliveries wait for a retry or recovery (docs/design.md §9). */
  parked: ParkedDeliveries;
  /** Endpoint health: counts exhausted deliveries, resets on a delivery, announces transitions. */
  health: HealthTracker;
  attemptLog: AttemptLog;
  attemptLogFallback: AttemptLogFallback;
  clock: Clock;
  log: Log;
  /** What the dispatcher counts (adapters/metrics/emf.ts in Lambda). Absent: nothing is counted. */
  metrics?: Metrics;
}

export interface DispatcherOptions {
  headerPrefix: string;
  /** @default 30 000 (docs/protocol.md §6) */
  attemptTimeoutMs?: number;
  attemptTtlDays: number;
  /**
   * TTL of a delivery's record when its first attempt delivered it: its only record, which
   * nobody needs for long (the cost lever of docs/cost.md). Any delivery with a failed attempt
   * keeps every record for attemptTtlDays, so its history is never cut short.
   * @default attemptTtlDays
   */
  deliveredTtlDays?: number;
  /** Attempts in flight at once across the batch. */
  concurrency: number;
  egress: EgressPolicy;
}

/** One SQS record as the core sees it. */
export interface InputRecord {
  messageId: string;
  body: string;
  /**
   * The queue the record came from (the handler tells it by the record's `eventSourceARN`).
   * Absent is read as `ingress`, the queue publishers can write: it carries events only.
   */
  source?: QueueSource;
}

/** What the core needs to know about the running invocation. */
export interface Invocation {
  remainingMs(): number;
}

export interface BatchResult {
  /** Message ids SQS must redeliver (`batchItemFailures`). */
  failures: string[];
}

export interface Dispatcher {
  processBatch(records: readonly InputRecord[], invocation: Invocation): Promise<BatchResult>;
  /** One attempt of a delivery, outside the queue (test sends): the record it logged. */
  attemptOnce(
    delivery: DeliveryMessage,
    connection: Connection,
    invocation: Invocation,
  ): Promise<AttemptRecord>;
}

export function createDispatcher(deps: DispatcherDeps, options: DispatcherOptions): Dispatcher {
  const settler = createSettler(deps, {
    attemptTtlDays: options.attemptTtlDays,
    deliveredTtlDays: Math.min(options.deliveredTtlDays ?? options.attemptTtlDays, options.attemptTtlDays),
  });
  const attempter = createAttempter(deps, settler, {
    headerPrefix: options.headerPrefix,
    timeoutMs: options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
    concurrency: options.concurrency,
    egress: options.egress,
  });
  const processBatch = createBatch(deps, { fanOut: createFanOut(deps, attempter), attempter, settler });
  /**
   * Success lines are DEBUG only: asking first spares building them, and the logger's own
   * per-call work, at INFO (docs/performance.md). Asked once per invocation: the level
   * changes between invocations (sampling), not within one.
   */
  const runOf = (invocation: Invocation): Run => ({
    remainingMs: () => invocation.remainingMs(),
    debugLines: deps.log.debugEnabled?.() ?? true,
  });

  return {
    processBatch: (records, invocation) => processBatch(records, runOf(invocation)),
    attemptOnce(delivery, connection, invocation) {
      const facts = factsOfBody(delivery.body);
      if (connection.applicationId !== facts.applicationId) {
        const [reason, error] = otherApplication(connection.connectionId, facts.applicationId);
        return attempter.refuse(delivery, facts, undefined, reason, error);
      }
      // A test send goes to the connection as it is, enabled or not: the customer asked for it.
      return attempter.deliverTo(
        delivery,
        { id: connection.connectionId, connection },
        facts,
        runOf(invocation),
      );
    },
  };
}
