/**
 * One delivery, top-down ({@link deliver}): judge the connection, read its secret, take a slot
 * among the batch's attempts and the rate limit, sign, send, and settle (which decides, acts
 * and records). Each stage is a named step, most in a file of their own. A delivery that cannot
 * be attempted (its target refused, its connection invalid, its destination blocked) is settled
 * as a refusal, through the same decision as any attempt.
 */

import { DEADLINE_MARGIN_MS } from './constants';
import { type Destination, Destinations, loggedTarget } from './destination';
import type { EgressPolicy } from './egress';
import { DeadlineError, infra } from './errors';
import { buildHeaders } from './headers';
import { attemptIdsOf } from './ids';
import { createLimiter, type InFlight, type Limiter } from './limiter';
import type { DispatcherDeps } from './ports';
import { createRateLimiter, effectiveRateLimit, type RateLimiter } from './rate-limit';
import { type SigningChoice, signingSecrets } from './secret-switch';
import type { Settlement, Settler } from './settle';
import type { Target } from './targets';
import { isoTime } from './time';
import type {
  AttemptRecord,
  AttemptResult,
  Connection,
  DeliveryMessage,
  EventFacts,
  RefusalReason,
} from './types';

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
  /** The batch's attempts in flight (its limiter's slots held). */
  inFlight(): InFlight;
}

type Deps = Pick<
  DispatcherDeps,
  'secrets' | 'sender' | 'clock' | 'scheduler' | 'log' | 'metrics' | 'rateCounter' | 'tracing'
>;

/** What every delivery of a dispatcher shares: its ports, settling, and the batch-wide state. */
interface Context {
  deps: Deps;
  settler: Settler;
  options: AttemptOptions;
  /** Attempts in flight at once across the batch. */
  limiter: Limiter;
  rateLimiter?: RateLimiter;
  destinations: Destinations;
  sleep(ms: number): Promise<void>;
}

export function createAttempter(deps: Deps, settler: Settler, options: AttemptOptions): Attempter {
  const sleep = (ms: number) =>
    deps.clock.sleep ? deps.clock.sleep(ms) : new Promise<void>((resolve) => setTimeout(resolve, ms));
  const ctx: Context = {
    deps,
    settler,
    options,
    limiter: createLimiter(options.concurrency),
    rateLimiter: deps.rateCounter && createRateLimiter(deps.rateCounter, () => deps.clock.now(), sleep),
    destinations: new Destinations(options),
    sleep,
  };
  return {
    deliverTo: (delivery, target, facts, run) => deliver(ctx, delivery, target, facts, run),
    refuse: (delivery, facts, connection, reason, error, foreign) =>
      refuse(ctx, delivery, facts, connection, [reason, error], foreign),
    inFlight: () => ctx.limiter.inFlight(),
  };
}

/**
 * One delivery's stages, in order. A refused target or destination is settled at once; a
 * delivery over its rate limit goes back on the queue unattempted; every other ends in a
 * settled attempt. Throws only InfrastructureError and DeadlineError (SQS redelivers).
 */
async function deliver(
  ctx: Context,
  delivery: DeliveryMessage,
  target: Target,
  facts: EventFacts,
  run: Run,
): Promise<AttemptRecord | Deferral> {
  // 1. Judge the connection: the target (missing, disabled, foreign), then its destination.
  if (target.refusal) return refuse(ctx, delivery, facts, target.connection, target.refusal, target.foreign);
  const connection = target.connection!;
  const destination = ctx.destinations.judge(connection);
  if ('refusal' in destination) return refuse(ctx, delivery, facts, connection, destination.refusal);
  // 2. Its signing secrets: the current one, and a rotated one while its switch is ahead.
  const secrets = await infra('secrets.current', attemptIdsOf(delivery), () =>
    signingSecrets(ctx.deps.secrets, connection, ctx.deps.clock.now()),
  );
  // 3. A slot among the batch's attempts; the deadline; the rate limit.
  const slot = ctx.limiter.acquire();
  if (slot) await slot;
  try {
    // Checked once the attempt may start: waiting for a slot also spends the invocation's time.
    const remaining = run.remainingMs();
    if (remaining < ctx.options.timeoutMs + DEADLINE_MARGIN_MS) throw new DeadlineError(remaining);
    const deferral = await waitForRateLimit(ctx, delivery, connection, run);
    if (deferral) return deferral;
    return await traced(ctx, delivery, async (traceId) => {
      // 4. Sign, at send time. 5. Send. 6. Settle: decide, act, record.
      const requestedAtMs = ctx.deps.clock.now();
      // Which secret signs is decided by the switch time against the time this request is signed.
      const secret = secrets.at(requestedAtMs);
      const headers = sign(ctx, delivery, connection, secret, requestedAtMs);
      const result = await ctx.deps.sender.send({
        method: connection.method,
        url: destination.url,
        headers,
        body: delivery.body,
        timeoutMs: ctx.options.timeoutMs,
      });
      return ctx.settler.settle(
        sentSettlement(
          ctx,
          { delivery, facts, connection, destination, secret, secrets, headers, requestedAtMs, traceId },
          result,
          run,
        ),
      );
    });
  } finally {
    ctx.limiter.release();
  }
}

/** The service headers, signed now, and the connection's own (core/headers.ts). */
function sign(
  ctx: Context,
  delivery: DeliveryMessage,
  connection: Connection,
  secret: string,
  timestampMs: number,
): Record<string, string> {
  return buildHeaders({
    prefix: ctx.options.headerPrefix,
    secret,
    body: delivery.body,
    timestampMs,
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
    custom: connection.headers,
  });
}

/** What settling needs of a sent attempt: the request as sent, and what must never be shown. */
function sentSettlement(
  ctx: Context,
  sent: {
    delivery: DeliveryMessage;
    facts: EventFacts;
    connection: Connection;
    destination: Destination;
    secret: string;
    secrets: SigningChoice;
    headers: Record<string, string>;
    requestedAtMs: number;
    traceId: string | undefined;
  },
  result: AttemptResult,
  run: Run,
): Settlement {
  const { delivery, connection, destination } = sent;
  return {
    delivery,
    facts: sent.facts,
    request: {
      method: connection.method,
      target: destination.target,
      requestedAtMs: sent.requestedAtMs,
      headers: sent.headers,
      customNames: Object.keys(connection.headers),
      ...(sent.traceId ? { traceId: sent.traceId } : {}),
    },
    result,
    sensitive: ctx.destinations.redacted(connection.connectionId, destination, sent.secret, sent.secrets.all),
    connection,
    debugLines: run.debugLines,
  };
}

/** Settles a delivery that cannot be attempted, with its reason: nothing is sent. */
function refuse(
  ctx: Context,
  delivery: DeliveryMessage,
  facts: EventFacts,
  connection: Connection | undefined,
  [reason, error]: [RefusalReason, string],
  foreign = false,
): Promise<AttemptRecord> {
  return traced(ctx, delivery, (traceId) =>
    ctx.settler.settle({
      delivery,
      facts,
      ...(foreign ? { foreign } : {}),
      request: {
        method: connection?.method ?? 'POST',
        target: loggedTarget(connection),
        requestedAtMs: ctx.deps.clock.now(),
        ...(traceId ? { traceId } : {}),
      },
      result: { kind: 'refused', reason, durationMs: 0, error },
      sensitive: connection ? Object.values(connection.headers ?? {}) : [],
    }),
  );
}

/**
 * Runs one attempt (or refusal) in its span when tracing is on: the span's trace id goes
 * into the record, its outcome onto the span.
 */
async function traced(
  ctx: Context,
  delivery: DeliveryMessage,
  run: (traceId: string | undefined) => Promise<AttemptRecord>,
): Promise<AttemptRecord> {
  if (!ctx.deps.tracing) return run(undefined);
  const span = ctx.deps.tracing.attempt(attemptIdsOf(delivery), delivery.traceparent);
  try {
    const record = await run(span.traceId);
    span.end(record.outcome);
    return record;
  } catch (error) {
    span.end(undefined, error);
    throw error;
  }
}

/**
 * The rate limit, counted when the send is about to start, in the window it starts in: nothing
 * when the delivery may go now (after waiting for its slot in the second, under a second), or
 * its deferral. Send Test is the customer's own request, answered at once: never limited (nor
 * counted).
 */
async function waitForRateLimit(
  ctx: Context,
  delivery: DeliveryMessage,
  connection: Connection,
  run: Run,
): Promise<Deferral | undefined> {
  const { options, rateLimiter } = ctx;
  if (run.rateLimited === false || !rateLimiter) return undefined;
  const limit = effectiveRateLimit(connection.rateLimit, options.defaultRateLimit, options.rateLimitCeiling);
  // Most connections have no limit at all: nothing to count.
  if (limit === undefined) return undefined;
  const ids = attemptIdsOf(delivery);
  const decision = await infra('rateCounter.increment', ids, () =>
    rateLimiter.take(connection.connectionId, delivery.deliveryId, limit, {
      canWaitMs: run.remainingMs() - options.timeoutMs - DEADLINE_MARGIN_MS,
    }),
  );
  // Its first count went unused (far behind its slot, or back after its second ended).
  const appIds = { applicationId: connection.applicationId, ...ids };
  if (decision.countedAgain) ctx.deps.log.debug('rate limit: counted again in the next second', appIds);
  if (!decision.go) return defer(ctx, delivery, connection, limit, decision.delaySeconds);
  if (decision.waitMs > 0) {
    // Its slot in the second, under a second away: its place among the batch's attempts in
    // flight is held meanwhile. Too little time left to wait and send: deferred instead, like
    // a delivery over the limit (its count is simply not used).
    if (run.remainingMs() - decision.waitMs < options.timeoutMs + DEADLINE_MARGIN_MS)
      return defer(ctx, delivery, connection, limit, 1);
    await ctx.sleep(decision.waitMs);
  }
  return undefined;
}

/**
 * Puts a delivery over its rate limit back, unchanged but for when it is due, as a new message on the retry queue
 * with a delay: a new message starts at receive count 0, so waiting never dead-letters it
 * (a message merely left invisible would count a receive each time, docs/design.md §4 "Rate limits").
 */
async function defer(
  ctx: Context,
  delivery: DeliveryMessage,
  connection: Connection,
  limit: number,
  delaySeconds: number,
): Promise<Deferral> {
  const ids = attemptIdsOf(delivery);
  const dueAt = isoTime(ctx.deps.clock.now() + delaySeconds * 1000);
  await infra('scheduler.schedule', ids, () =>
    ctx.deps.scheduler.schedule({ ...delivery, dueAt }, delaySeconds),
  );
  ctx.deps.metrics?.record({ kind: 'rateLimitDeferral' });
  // DEBUG: one line per deferral would be most of a burst's log; RateLimitDeferrals counts them.
  ctx.deps.log.debug('delivery deferred: waiting for the rate limit', {
    applicationId: connection.applicationId,
    ...ids,
    eventId: delivery.eventId,
    rateLimit: limit,
    delaySeconds,
  });
  return { deferred: 'rate_limit', delaySeconds };
}
