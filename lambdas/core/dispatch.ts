/**
 * The delivery core: turns a batch of queue records into signed attempts, decisions and
 * attempt-log records, through the ports of ports.ts. No AWS, no environment, no clock of
 * its own: everything arrives in {@link DispatcherDeps}, so every rule is testable.
 *
 * The order of a record's stages is written top-down in code (docs/architecture.md): a record
 * in batch.ts `processRecord` (receive, then fan out, retarget or append), a delivery in
 * attempt.ts `deliver` (judge, secret, slot and rate limit, sign, send, settle), settling in
 * settle.ts `settle` (decide, build the record, act, record, count health, report). This file
 * wires them: each stage is handed the next. A record fails (and SQS redelivers it) only for
 * infrastructure errors or a too-close deadline; every other problem ends in a logged outcome.
 */

import { createAttempter, type Run } from './attempt';
import { createBatch } from './batch';
import { ATTEMPT_TIMEOUT_MS } from './constants';
import { factsOfBody } from './envelope';
import { createFanOut } from './fan-out';
import type { Dispatcher, DispatcherDeps, DispatcherOptions, Invocation } from './ports';
import { createProber } from './prober';
import { createSettler } from './settle';
import { otherApplication } from './targets';

export function createDispatcher(deps: DispatcherDeps, options: DispatcherOptions): Dispatcher {
  const settler = createSettler(deps, {
    attemptTtlDays: options.attemptTtlDays,
    deliveredTtlDays: Math.min(options.deliveredTtlDays ?? options.attemptTtlDays, options.attemptTtlDays),
    keepBodies: options.keepBodies,
  });
  const attempter = createAttempter(deps, settler, {
    headerPrefix: options.headerPrefix,
    timeoutMs: options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
    concurrency: options.concurrency,
    egress: options.egress,
    defaultRateLimit: options.defaultRateLimit,
    rateLimitCeiling: options.rateLimitCeiling,
  });
  const prober = createProber(deps, attempter, {
    defaultRateLimit: options.defaultRateLimit,
    rateLimitCeiling: options.rateLimitCeiling,
  });
  const processBatch = createBatch(deps, {
    fanOut: createFanOut(deps, attempter),
    attempter,
    settler,
    prober,
  });
  /**
   * Success lines are DEBUG only: asking first spares building them, and the logger's own
   * per-call work, at INFO (docs/performance.md). Asked once per invocation: the level
   * changes between invocations (sampling), not within one.
   */
  const runOf = (invocation: Invocation): Run => ({
    // The invocation's own function: a wrapper here would be one more hop on every attempt.
    remainingMs: invocation.remainingMs,
    debugLines: deps.log.debugEnabled?.() ?? true,
  });

  return {
    processBatch: (records, invocation) => processBatch(records, runOf(invocation)),
    inFlight: () => attempter.inFlight(),
    async attemptOnce(delivery, connection, invocation) {
      const facts = factsOfBody(delivery.body);
      if (connection.applicationId !== facts.applicationId) {
        const [reason, error] = otherApplication(connection.connectionId, facts.applicationId);
        return attempter.refuse(delivery, facts, undefined, reason, error, true);
      }
      // A test send goes to the connection as it is, enabled or not: the customer asked for it.
      // Nor is it held to the rate limit: it is sent at once and always ends in a record.
      const done = await attempter.deliverTo(delivery, { id: connection.connectionId, connection }, facts, {
        ...runOf(invocation),
        rateLimited: false,
      });
      if ('deferred' in done) throw new Error('a test send is never deferred');
      return done;
    },
  };
}
