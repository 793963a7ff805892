/**
 * The delivery core: turns a batch of queue records into signed attempts, decisions and
 * attempt-log records, through the ports it declares. No AWS, no environment, no clock of
 * its own: everything arrives in {@link DispatcherDeps}, so every rule is testable.
 *
 * Per record the order is: parse → resolve connection(s) → attempt → act on the decision
 * (reschedule or dead-letter) → write the attempt record. A record fails (and SQS
 * redelivers it) only for infrastructure errors or a too-close deadline; every other
 * problem ends in a logged outcome and, when final, in the dead-letter queue.
 */

import { attemptRecordOf, type EventFacts, MAX_ERROR_LENGTH } from './attempt-record';
import { checkConnection, targetOf } from './connection';
import { ATTEMPT_TIMEOUT_MS } from './constants';
import type { EgressPolicy } from './egress';
import { type QueueSource, type ReadMessage, readMessage } from './envelope';
import {
  DeadlineError,
  DestinationRefusedError,
  InfrastructureError,
  PoisonMessageError,
  ValidationError,
} from './errors';
import { buildHeaders } from './headers';
import type { HealthTracker } from './health-tracker';
import { deliveryIdFor } from './ids';
import { createLimiter } from './limiter';
import { decide } from './outcome';
import { isParkReason, type ParkedDeliveries, type ParkReason, parkedItemOf } from './parking';
import { deadLetterSource, errorText } from './poison';
import { MIN_ANYWHERE_LENGTH, truncateUtf8 } from './redact';
import { judgeTarget, otherApplication, type Target } from './targets';
import type {
  AppendOutcome,
  AttemptLog,
  AttemptLogFallback,
  AttemptRecord,
  AttemptResult,
  Clock,
  Connection,
  ConnectionStore,
  DeadLetter,
  DeadLetters,
  Decision,
  DeliveryMessage,
  EventMessage,
  HttpSender,
  Log,
  Metrics,
  Outcome,
  RefusalReason,
  RetryScheduler,
  SigningSecrets,
} from './types';
import { queueJson } from './untrusted';

/** Time an attempt needs beyond its own timeout to reschedule and log before Lambda stops. */
export const DEADLINE_MARGIN_MS = 5_000;

export interface DispatcherDeps {
  connections: ConnectionStore;
  secrets: SigningSecrets;
  sender: HttpSender;
  scheduler: RetryScheduler;
  deadLetters: DeadLetters;
  /** Where exhausted, disabled-connection and blocked deliveries wait for a retry or recovery (DESIGN.md §9). */
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
  /** @default 30 000 (spec §6) */
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

/** An invocation as the core carries it: its time left, and whether success lines are written. */
interface Run extends Invocation {
  debugLines: boolean;
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

/** Facts about the event that every attempt record of a delivery repeats. */
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
  const { clock, log } = deps;
  /**
   * Success lines are DEBUG only: asking first spares building them, and the logger's own
   * per-call work, at INFO (docs/performance.md). Asked once per invocation: the level
   * changes between invocations (sampling), not within one.
   */
  const runOf = (invocation: Invocation): Run => ({
    remainingMs: () => invocation.remainingMs(),
    debugLines: log.debugEnabled?.() ?? true,
  });
  const timeoutMs = options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const deliveredTtlDays = Math.min(
    options.deliveredTtlDays ?? options.attemptTtlDays,
    options.attemptTtlDays,
  );
  /** Days an attempt record is kept: shorter only for a delivery's one and only record. */
  const ttlDaysOf = (outcome: Outcome, attempt: number) =>
    outcome === 'delivered' && attempt === 1 ? deliveredTtlDays : options.attemptTtlDays;
  const limit = createLimiter(options.concurrency);
  const iso = (ms: number) => new Date(ms).toISOString();
  /**
   * What checking a connection record gives, kept for as long as the record object lives
   * (the connection cache hands out the same object until its TTL): URL parsing and the
   * egress and header checks were a third of the core's CPU per attempt (docs/performance.md).
   * Only a record that passes is kept; a refused one is checked, and refused, every time.
   */
  const checked = new WeakMap<Connection, { href: string; target: string; sensitive: string[] }>();
  function checkedConnection(connection: Connection) {
    let entry = checked.get(connection);
    if (!entry) {
      const url = checkConnection(connection, options.egress, options.headerPrefix);
      const sensitive = [...Object.values(connection.headers), ...queryValues(url)];
      entry = { href: url.href, target: targetOf(url), sensitive };
      checked.set(connection, entry);
    }
    return entry;
  }

  /** Runs a port call; its failure becomes an InfrastructureError naming the operation. */
  function infra<T>(operation: string, ids: InfrastructureError['ids'], run: () => Promise<T>): Promise<T> {
    const wrap = (cause: unknown): never => {
      throw new InfrastructureError(operation, ids, { cause });
    };
    try {
      return run().catch(wrap);
    } catch (cause) {
      return Promise.reject(new InfrastructureError(operation, ids, { cause }));
    }
  }

  function factsOf(body: string): EventFacts {
    const payload = JSON.parse(body) as { event: string; user: { id: string }; application: { id: string } };
    return { applicationId: payload.application.id, userId: payload.user.id, event: payload.event };
  }

  /** Logs an attempt-log write that met a different record under the same key (never replaced). */
  function noteAppend(rec: AttemptRecord, outcome: AppendOutcome | undefined, via: string): void {
    if (outcome !== 'conflict') return;
    log.warn('attempt record not written: a different record of this attempt exists and is never replaced', {
      connectionId: rec.connectionId,
      deliveryId: rec.deliveryId,
      attempt: rec.attempt,
      via,
    });
  }

  /** Writes an attempt record; if the log is down, queues it instead of failing the record. */
  async function record(rec: AttemptRecord): Promise<void> {
    const ids = { connectionId: rec.connectionId, deliveryId: rec.deliveryId, attempt: rec.attempt };
    try {
      noteAppend(rec, await deps.attemptLog.append(rec), 'attempt');
    } catch (cause) {
      log.warn('attempt log write failed; the record is queued for a later write', {
        ...ids,
        error: errorText(cause),
      });
      // Failing the SQS record here would send this attempt again: queue the record instead.
      await infra('attemptLogFallback.defer', ids, () => deps.attemptLogFallback.defer(rec));
    }
  }

  /** Acts on a decision, then logs the attempt. Throws only InfrastructureError. */
  async function settle(
    delivery: DeliveryMessage,
    facts: EventFacts,
    request: { method: string; target: string; requestedAtMs: number },
    result: AttemptResult,
    decision: Decision,
    sensitive: string[],
    debugLines = false,
    connection?: Connection,
  ): Promise<AttemptRecord> {
    const ids = {
      connectionId: delivery.connectionId,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
    };
    const {
      record: rec,
      statusCode,
      lastError,
    } = attemptRecordOf({
      delivery,
      facts,
      request,
      result,
      decision,
      sensitive,
      ttlDays: ttlDaysOf(decision.outcome, delivery.attempt),
      nowMs: clock.now(),
    });
    if (decision.action === 'retry') {
      const next: DeliveryMessage = { ...delivery, attempt: delivery.attempt + 1 };
      await infra('scheduler.schedule', ids, () => deps.scheduler.schedule(next, decision.delaySeconds));
    } else if (decision.action === 'dead-letter') {
      const letter: DeadLetter = {
        v: 1,
        type: 'dead-letter',
        reason: decision.reason,
        error: lastError ?? decision.reason,
        failedAt: iso(clock.now()),
        delivery,
      };
      if (isParkReason(decision.reason)) {
        await park(delivery, facts, decision.reason, rec, letter);
      } else {
        await infra('deadLetters.put', ids, () => deps.deadLetters.put(letter));
      }
    }
    await record(rec);
    if (connection && !delivery.test) {
      // After the record is written: health never holds up or fails a delivery.
      if (decision.action === 'done') await deps.health.delivered(connection);
      else if (decision.action === 'dead-letter' && decision.reason === 'exhausted') {
        await deps.health.exhausted(connection);
      }
    }
    if (decision.action === 'done') {
      // Nearly every delivery ends here, and its attempt record already holds all of it: the
      // line is written at DEBUG only (docs/performance.md, log bytes per delivery). Asking
      // first spares building it, and the logger's own per-call work, at INFO.
      if (debugLines) {
        log.debug('delivered', {
          ...ids,
          outcome: rec.outcome,
          statusCode,
          durationMs: rec.durationMs,
          test: rec.test,
        });
      }
      return rec;
    }
    const fields = {
      ...ids,
      eventId: delivery.eventId,
      outcome: rec.outcome,
      statusCode,
      durationMs: rec.durationMs,
      nextAttemptAt: rec.nextAttemptAt,
      reason: decision.action === 'dead-letter' ? decision.reason : undefined,
      error: rec.error,
      test: rec.test,
      ...(rec.outcome === 'blocked' ? deps.metrics?.blockedDestination(clock.now()) : {}),
    };
    if (decision.action === 'retry') log.warn('attempt failed; retry scheduled', fields);
    else if (delivery.test) log.warn('test send failed', fields);
    else if (decision.action === 'dead-letter' && isParkReason(decision.reason))
      log.warn('delivery parked', fields);
    else log.warn('delivery dead-lettered', fields);
    return rec;
  }

  /**
   * Parks a delivery for its connection (DESIGN.md §9). When the parked table cannot take it
   * (DynamoDB down), the dead-letter queue does, as for any infrastructure failure: nothing is
   * lost, and `dlq redrive` sends it again (decisions.md D23).
   */
  async function park(
    delivery: DeliveryMessage,
    facts: EventFacts,
    reason: ParkReason,
    rec: AttemptRecord,
    letter: DeadLetter,
  ): Promise<void> {
    const ids = {
      connectionId: delivery.connectionId,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
    };
    const item = parkedItemOf({
      delivery,
      applicationId: facts.applicationId,
      reason,
      attempts: delivery.attempt,
      lastError: rec.error,
      lastOutcome: rec.outcome,
      lastStatusCode: rec.statusCode,
      parkedAtMs: clock.now(),
      ttlDays: options.attemptTtlDays,
    });
    try {
      await deps.parked.park(item);
    } catch (cause) {
      log.warn('parking failed; the delivery goes to the dead-letter queue instead', {
        ...ids,
        error: errorText(cause),
      });
      await infra('deadLetters.put', ids, () => deps.deadLetters.put(letter));
    }
  }

  /** Settles a delivery that cannot be attempted (deleted, disabled or invalid connection, refused destination). */
  function refuse(
    delivery: DeliveryMessage,
    facts: EventFacts,
    connection: Connection | undefined,
    reason: RefusalReason,
    error: string,
  ): Promise<AttemptRecord> {
    const result: AttemptResult = { kind: 'refused', reason, durationMs: 0, error };
    let target = '(unknown)';
    if (connection) {
      try {
        target = targetOf(new URL(connection.url));
      } catch {
        target = '(invalid URL)';
      }
    }
    return settle(
      delivery,
      facts,
      { method: connection?.method ?? 'POST', target, requestedAtMs: clock.now() },
      result,
      decide(result, 0, !delivery.test),
      connection ? Object.values(connection.headers ?? {}) : [],
    );
  }

  async function attempt(
    delivery: DeliveryMessage,
    connection: Connection,
    facts: EventFacts,
    invocation: Run,
  ): Promise<AttemptRecord> {
    const ids = {
      connectionId: delivery.connectionId,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
    };
    let destination: ReturnType<typeof checkedConnection>;
    try {
      destination = checkedConnection(connection);
    } catch (error) {
      if (error instanceof DestinationRefusedError) {
        return refuse(delivery, facts, connection, 'blocked', error.message);
      }
      if (error instanceof ValidationError) {
        return refuse(
          delivery,
          facts,
          connection,
          'connection_invalid',
          `connection is invalid: ${error.message}`,
        );
      }
      throw error;
    }
    const secret = await infra('secrets.current', ids, () => deps.secrets.current(connection));
    const sensitive = [secret, ...destination.sensitive];
    return limit(async () => {
      // Checked once the attempt may start: waiting for a slot also spends the invocation's time.
      const remaining = invocation.remainingMs();
      if (remaining < timeoutMs + DEADLINE_MARGIN_MS) throw new DeadlineError(remaining);
      const requestedAtMs = clock.now();
      const headers = buildHeaders({
        prefix: options.headerPrefix,
        secret,
        body: delivery.body,
        timestampMs: requestedAtMs,
        deliveryId: delivery.deliveryId,
        attempt: delivery.attempt,
        custom: connection.headers,
      });
      const result = await deps.sender.send({
        method: connection.method,
        url: destination.href,
        headers,
        body: delivery.body,
        timeoutMs,
      });
      const position = delivery.attempt - (delivery.chainStart ?? 1);
      const decision = decide(result, position, !delivery.test);
      return settle(
        delivery,
        facts,
        { method: connection.method, target: destination.target, requestedAtMs },
        result,
        decision,
        sensitive,
        invocation.debugLines,
        connection,
      );
    });
  }

  /** Attempts a delivery to its target, or settles it with the reason the target is refused. */
  function deliverTo(delivery: DeliveryMessage, target: Target, facts: EventFacts, invocation: Run) {
    return target.refusal
      ? refuse(delivery, facts, target.connection, ...target.refusal)
      : attempt(delivery, target.connection!, facts, invocation);
  }

  async function deliverQueued(delivery: DeliveryMessage, invocation: Run): Promise<void> {
    const facts = factsOf(delivery.body);
    const connection = await infra('connections.get', { connectionId: delivery.connectionId }, () =>
      deps.connections.get(delivery.connectionId),
    );
    // The body names its application: a connection of another application never receives it
    // (nor signs it with its secret), whatever the message says (docs/security.md).
    const target = judgeTarget(delivery.connectionId, connection, facts.applicationId);
    await deliverTo(delivery, target, facts, invocation);
  }

  /** The connections an event goes to, with the reason each unusable explicit target is refused. */
  async function targetsOf(event: EventMessage): Promise<Target[]> {
    const appId = event.application.id;
    if (!event.connectionIds) {
      const all = await infra('connections.listByApplication', {}, () =>
        deps.connections.listByApplication(appId),
      );
      return (
        all
          // Strictly true: a stored `"false"` (a string) must not read as enabled. A connection
          // health disabled stays a target: its deliveries are parked (connection_disabled),
          // not sent and not lost, until it is enabled (DESIGN.md §9).
          .filter((c) => c.type === 'webhook' && (c.enabled === true || c.health?.state === 'disabled'))
          .map((c) => judgeTarget(c.connectionId, c))
      );
    }
    return Promise.all(
      event.connectionIds.map(async (id) => {
        const connection = await infra('connections.get', { connectionId: id }, () =>
          deps.connections.get(id),
        );
        return judgeTarget(id, connection, appId);
      }),
    );
  }

  /** `body`: the event's request body as readMessage serialised it, the same bytes for every connection. */
  async function fanOut(event: EventMessage, body: string, invocation: Run): Promise<void> {
    const facts: EventFacts = {
      applicationId: event.application.id,
      userId: event.user.id,
      event: event.event,
    };
    const targets = await targetsOf(event);
    if (targets.length === 0) {
      log.info('no enabled webhook connection for this application; nothing to deliver', {
        eventId: event.eventId,
        applicationId: facts.applicationId,
      });
      return;
    }
    const occurredAtMs = Date.parse(event.occurredAt);
    const firstAttemptAt = iso(clock.now());
    const outcomes = await Promise.allSettled(
      targets.map(async (target) => {
        const delivery: DeliveryMessage = {
          v: 1,
          type: 'delivery',
          deliveryId: deliveryIdFor(event.eventId, target.id, occurredAtMs),
          eventId: event.eventId,
          connectionId: target.id,
          attempt: 1,
          chainStart: 1,
          body,
          firstAttemptAt,
        };
        try {
          await deliverTo(delivery, target, facts, invocation);
        } catch (error) {
          // Hand this one delivery to the queue on its own, so the event's other
          // connections are not sent again when SQS redelivers.
          log.warn('delivery handed back to the queue', {
            deliveryId: delivery.deliveryId,
            connectionId: delivery.connectionId,
            attempt: delivery.attempt,
            error: errorText(error),
          });
          await infra('scheduler.schedule', { deliveryId: delivery.deliveryId }, () =>
            deps.scheduler.schedule(delivery, 0),
          );
        }
      }),
    );
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async function processRecord(record: InputRecord, invocation: Run): Promise<void> {
    let read: ReadMessage;
    const source = record.source ?? 'ingress';
    try {
      read = readMessage(record.body, source);
    } catch (thrown) {
      // Parsing is pure: whatever it throws, it would throw on every receipt, so the message
      // is poison now, on its first receipt, not after maxReceiveCount (docs/security.md).
      const error =
        thrown instanceof PoisonMessageError
          ? thrown
          : new PoisonMessageError(`message could not be read: ${errorText(thrown)}`);
      const text = truncateUtf8(error.message, MAX_ERROR_LENGTH);
      const letter: DeadLetter = {
        v: 1,
        type: 'dead-letter',
        reason: error.reason,
        error: text,
        failedAt: iso(clock.now()),
        sourceQueue: source,
        ...deadLetterSource(record.body),
      };
      await infra('deadLetters.put', {}, () => deps.deadLetters.put(letter));
      log.warn('poison message dead-lettered', {
        messageId: record.messageId,
        sourceQueue: source,
        reason: error.reason,
        error: text,
      });
      return;
    }
    const { message } = read;
    switch (message.type) {
      case 'event':
        return fanOut(message, read.body!, invocation);
      case 'delivery':
        return deliverQueued(message, invocation);
      case 'attempt-log': {
        const rec = message.record;
        const outcome = await infra('attemptLog.append', { deliveryId: rec.deliveryId }, () =>
          deps.attemptLog.append(rec),
        );
        noteAppend(rec, outcome, 'retry queue');
        return;
      }
    }
  }

  return {
    async processBatch(records, invocation) {
      const run = runOf(invocation);
      const settled = await Promise.allSettled(records.map((r) => processRecord(r, run)));
      const failures: string[] = [];
      settled.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        const messageId = records[i]!.messageId;
        failures.push(messageId);
        const error = result.reason;
        const fields = {
          messageId,
          error: errorText(error),
          errorName: error instanceof Error ? error.name : 'Error',
        };
        if (error instanceof DeadlineError)
          log.warn('record left for redelivery: invocation deadline near', fields);
        else log.error('record failed; SQS will redeliver it', fields);
      });
      return { failures };
    },
    attemptOnce(delivery, connection, invocation) {
      const facts = factsOf(delivery.body);
      if (connection.applicationId !== facts.applicationId) {
        const [reason, error] = otherApplication(connection.connectionId, facts.applicationId);
        return refuse(delivery, facts, undefined, reason, error);
      }
      return attempt(delivery, connection, facts, runOf(invocation));
    },
  };
}

/**
 * A URL's query-string values, as sent and decoded. They often carry a token, and a receiver
 * may echo its request URL in the response that the attempt log keeps.
 */
function queryValues(url: URL): string[] {
  if (!url.search) return [];
  const sent = url.search
    .slice(1)
    .split('&')
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  // Short values (`?page=2`) are rarely a credential: unlike custom header values, they are
  // not redacted (a word-bounded "2" would blank every 2 in a snippet). docs/security.md.
  return [...sent, ...url.searchParams.values()].filter((v) => v.trim().length >= MIN_ANYWHERE_LENGTH);
}
