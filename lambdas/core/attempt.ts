/**
 * One attempt of one delivery: check the connection, read its secret, wait for a slot, sign,
 * send, and hand the result to settling. A delivery that cannot be attempted (its target
 * refused, its connection invalid, its destination blocked) is settled as a refusal, through
 * the same decision as any attempt.
 */

import { checkConnection, targetOf } from './connection';
import { DEADLINE_MARGIN_MS } from './constants';
import type { EgressPolicy } from './egress';
import { DeadlineError, DestinationRefusedError, infra, ValidationError } from './errors';
import { buildHeaders } from './headers';
import { createLimiter } from './limiter';
import type { DispatcherDeps } from './ports';
import { createRateLimiter, effectiveRateLimit } from './rate-limit';
import { MIN_ANYWHERE_LENGTH, sensitiveList } from './redact';
import type { Settler } from './settle';
import type { Target } from './targets';
import type { AttemptRecord, Connection, DeliveryMessage, EventFacts, RefusalReason } from './types';

/** An invocation as the core carries it: its time left, and whether success lines are written. */
export interface Run {
  remainingMs(): number;
  debugLines: boolean;
  /**
   * False for Send Test alone: one request the customer waits for, sent at once. Everything
   * that comes through the queues, a Resend of a test included, waits for the rate limit.
   */
  rateLimited?: boolean;
}

export interface AttemptOptions {
  headerPrefix: string;
  timeoutMs: number;
  /** Attempts in flight at once across the batch. */
  concurrency: number;
  egress: EgressPolicy;
  /** Deliveries per second of a connection that sets no `rateLimit` of its own. Absent: none. */
  defaultRateLimit?: number;
  /** The highest limit any connection gets, whatever it asks for. @default MAX_RATE_LIMIT */
  rateLimitCeiling?: number;
}

/**
 * A delivery over its connection's rate limit: put back on the retry queue unchanged, with this
 * delay. No attempt was made: no attempt number used, no record written (core/rate-limit.ts).
 */
export interface Deferral {
  deferred: 'rate_limit';
  delaySeconds: number;
}

export interface Attempter {
  /**
   * Attempts a delivery to its target, or settles it with the reason the target is refused, or
   * defers it when its connection's rate limit is reached.
   */
  deliverTo(
    delivery: DeliveryMessage,
    target: Target,
    facts: EventFacts,
    run: Run,
  ): Promise<AttemptRecord | Deferral>;
  /** Settles a delivery that cannot be attempted, with its refusal reason. */
  refuse(
    delivery: DeliveryMessage,
    facts: EventFacts,
    connection: Connection | undefined,
    reason: RefusalReason,
    error: string,
    /** The delivery names another application's connection ({@link Target.foreign}). */
    foreign?: boolean,
  ): Promise<AttemptRecord>;
}

/** What checking a connection record gives: where to send, what to log, what to redact. */
interface Destination {
  url: URL;
  target: string;
  sensitive: string[];
  /** The values to redact with the secret last read for it (one list per secret version). */
  redacted?: { secret: string; list: readonly string[] };
}

/** Connections whose last signing secret is remembered (as many as the connection cache holds). */
const MAX_REMEMBERED_SECRETS = 10_000;

export function createAttempter(
  deps: Pick<
    DispatcherDeps,
    'secrets' | 'sender' | 'clock' | 'scheduler' | 'log' | 'metrics' | 'rateCounter' | 'tracing'
  >,
  settler: Settler,
  options: AttemptOptions,
): Attempter {
  const { clock } = deps;
  const limiter = createLimiter(options.concurrency);
  const sleep = (ms: number) =>
    clock.sleep ? clock.sleep(ms) : new Promise<void>((resolve) => setTimeout(resolve, ms));
  const rateLimiter = deps.rateCounter && createRateLimiter(deps.rateCounter, () => clock.now(), sleep);
  /**
   * Each connection record's check, kept for as long as the record object lives (the
   * connection cache hands out the same object until its TTL). URL parsing and the egress and
   * header checks are more than half the core's CPU: 36-37 µs per delivery with this cache,
   * 82-86 µs without (`npm run bench -- --only batchTime`, docs/performance.md). Only a record
   * that passes is kept: a refused one is checked, and refused, every time.
   */
  const checked = new WeakMap<Connection, Destination>();

  /**
   * The secret each connection was last signed with here, so that the one before a rotation is
   * redacted too: receivers keep accepting it during the overlap, and one that echoes its own
   * configuration may still print it. Bounded; the least recently changed goes first.
   */
  const lastSecret = new Map<string, string>();
  /**
   * The secret, the one before it and the destination's own values: one list per secret, which
   * keeps its redaction pattern. The secret before a rotation stays in the list of the first
   * record that carries the new one, so until the connection cache next replaces the record:
   * the rotation overlap.
   */
  function redactedValues(connectionId: string, destination: Destination, secret: string): readonly string[] {
    if (destination.redacted?.secret !== secret) {
      const before = lastSecret.get(connectionId);
      const previous = before !== undefined && before !== secret ? [before] : [];
      destination.redacted = { secret, list: sensitiveList([secret, ...previous, ...destination.sensitive]) };
      lastSecret.delete(connectionId);
      lastSecret.set(connectionId, secret);
      if (lastSecret.size > MAX_REMEMBERED_SECRETS) lastSecret.delete(lastSecret.keys().next().value!);
    }
    return destination.redacted.list;
  }
  function destinationOf(connection: Connection): Destination {
    let entry = checked.get(connection);
    if (!entry) {
      const url = checkConnection(connection, options.egress, options.headerPrefix);
      const sensitive = [...Object.values(connection.headers), ...queryValues(url)];
      entry = { url, target: targetOf(url), sensitive };
      checked.set(connection, entry);
    }
    return entry;
  }

  /**
   * Runs one attempt (or refusal) in its span when tracing is on: the span's trace id goes
   * into the record, its outcome onto the span.
   */
  async function traced(
    delivery: DeliveryMessage,
    run: (traceId: string | undefined) => Promise<AttemptRecord>,
  ): Promise<AttemptRecord> {
    if (!deps.tracing) return run(undefined);
    const span = deps.tracing.attempt({
      connectionId: delivery.connectionId,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
    });
    try {
      const record = await run(span.traceId);
      span.end(record.outcome);
      return record;
    } catch (error) {
      span.end(undefined, error);
      throw error;
    }
  }

  function refuse(
    delivery: DeliveryMessage,
    facts: EventFacts,
    connection: Connection | undefined,
    reason: RefusalReason,
    error: string,
    foreign = false,
  ): Promise<AttemptRecord> {
    return traced(delivery, (traceId) =>
      settler.settle({
        delivery,
        facts,
        ...(foreign ? { foreign } : {}),
        request: {
          method: connection?.method ?? 'POST',
          target: loggedTarget(connection),
          requestedAtMs: clock.now(),
          ...(traceId ? { traceId } : {}),
        },
        result: { kind: 'refused', reason, durationMs: 0, error },
        sensitive: connection ? Object.values(connection.headers ?? {}) : [],
      }),
    );
  }

  /**
   * Puts a delivery over its rate limit back, unchanged, as a new message on the retry queue
   * with a delay: a new message starts at receive count 0, so waiting never dead-letters it
   * (a message merely left invisible would count a receive each time, decisions.md D35).
   */
  async function defer(
    delivery: DeliveryMessage,
    limit: number,
    delaySeconds: number,
    ids: { connectionId: string; deliveryId: string; attempt: number },
  ): Promise<Deferral> {
    await infra('scheduler.schedule', ids, () => deps.scheduler.schedule(delivery, delaySeconds));
    deps.metrics?.record({ kind: 'rateLimitDeferral' });
    // DEBUG: one line per deferral would be most of a burst's log; RateLimitDeferrals counts them.
    deps.log.debug('delivery deferred: waiting for the rate limit', {
      ...ids,
      eventId: delivery.eventId,
      rateLimit: limit,
      delaySeconds,
    });
    return { deferred: 'rate_limit', delaySeconds };
  }

  async function attempt(
    delivery: DeliveryMessage,
    connection: Connection,
    facts: EventFacts,
    run: Run,
  ): Promise<AttemptRecord | Deferral> {
    let destination: Destination;
    try {
      destination = destinationOf(connection);
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
    const ids = {
      connectionId: delivery.connectionId,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
    };
    const secret = await infra('secrets.current', ids, () => deps.secrets.current(connection));
    const slot = limiter.acquire();
    if (slot) await slot;
    try {
      // Checked once the attempt may start: waiting for a slot also spends the invocation's time.
      const remaining = run.remainingMs();
      if (remaining < options.timeoutMs + DEADLINE_MARGIN_MS) throw new DeadlineError(remaining);
      // Send Test is the customer's own request, answered at once: never limited (nor counted).
      const rateLimit =
        run.rateLimited === false
          ? undefined
          : effectiveRateLimit(connection.rateLimit, options.defaultRateLimit, options.rateLimitCeiling);
      if (rateLimit !== undefined && rateLimiter) {
        // Counted when the send is about to start, in the window it starts in.
        const decision = await infra('rateCounter.increment', ids, () =>
          rateLimiter.take(connection.connectionId, delivery.deliveryId, rateLimit, {
            canWaitMs: run.remainingMs() - options.timeoutMs - DEADLINE_MARGIN_MS,
          }),
        );
        // Its first count went unused (far behind its slot, or back after its second ended).
        if (decision.countedAgain) deps.log.debug('rate limit: counted again in the next second', ids);
        if (!decision.go) return await defer(delivery, rateLimit, decision.delaySeconds, ids);
        if (decision.waitMs > 0) {
          // Its slot in the second, under a second away: its place among the batch's attempts
          // in flight is held meanwhile, and the batch's deliveries wait side by side. Too little time left to wait and send:
          // deferred instead, like a delivery over the limit (its count is simply not used).
          if (run.remainingMs() - decision.waitMs < options.timeoutMs + DEADLINE_MARGIN_MS)
            return await defer(delivery, rateLimit, 1, ids);
          await sleep(decision.waitMs);
        }
      }
      return await traced(delivery, async (traceId) => {
        const requestedAtMs = clock.now();
        // The span is ours alone: no trace header joins these (nothing of tracing is sent).
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
          url: destination.url,
          headers,
          body: delivery.body,
          timeoutMs: options.timeoutMs,
        });
        return settler.settle({
          delivery,
          facts,
          request: {
            method: connection.method,
            target: destination.target,
            requestedAtMs,
            headers,
            customNames: Object.keys(connection.headers),
            ...(traceId ? { traceId } : {}),
          },
          result,
          sensitive: redactedValues(connection.connectionId, destination, secret),
          connection,
          debugLines: run.debugLines,
        });
      });
    } finally {
      limiter.release();
    }
  }

  return {
    refuse,
    deliverTo(delivery, target, facts, run) {
      return target.refusal
        ? refuse(delivery, facts, target.connection, ...target.refusal, target.foreign)
        : attempt(delivery, target.connection!, facts, run);
    },
  };
}

/** The target a refusal's record names: the connection's origin and path when its URL parses. */
function loggedTarget(connection: Connection | undefined): string {
  if (!connection) return '(unknown)';
  try {
    return targetOf(new URL(connection.url));
  } catch {
    return '(invalid URL)';
  }
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
