/**
 * Parked deliveries and operational events (docs/design.md §9): the types and the ports the core
 * declares for them (docs/design.md §2, rule 1). A parked delivery is one the pipeline processed to
 * its end without delivering it; it waits per connection for a retry or a recovery, instead
 * of the dead-letter queue, which keeps only what the pipeline itself could not process.
 */

import type { ParkedView } from '../shapes/resource-types';
import type { ConnectionHealth, HealthState, HealthTransition } from './health';
import { isoTime } from './time';
import type { DeliveryMessage, Outcome } from './types';

/** Why a delivery is parked (the API's and the CLI's listings use this list). */
export const PARK_REASONS = ['exhausted', 'connection_disabled', 'blocked'] as const;
export type ParkReason = (typeof PARK_REASONS)[number];

/**
 * A parked delivery as listings show it: never the body, a secret or a custom header value. The
 * API's `ParkedDelivery`, declared once as its schema (lambdas/api/schemas.ts; written out
 * without zod in shapes/resource-types.ts). `attempts` is the number of the delivery's last
 * logged attempt, refusals included: a recovery continues after it.
 */
export type ParkedDelivery = ParkedView;

/** What is stored: the listing fields plus what a recovery needs to send it again. */
export interface ParkedItem extends ParkedDelivery {
  /** The exact request body of the first attempt: a recovery sends these bytes again. */
  body: string;
  firstAttemptAt: string;
  /** The event's publish time, carried to the recovery so its latency counts from publish. */
  publishedAt?: string;
  /** The publisher's trace context, carried to the recovery's attempts. */
  traceparent?: string;
  /** Epoch seconds; DynamoDB TTL (the attempt log's TTL). */
  expiresAt: number;
}

/**
 * A stored parked delivery as listings show it: the listing fields only (never the body), the
 * optional ones only when they hold a value of their type.
 */
export function parkedListing(stored: object): ParkedDelivery {
  const item = stored as Record<string, unknown>;
  const view: ParkedDelivery = {
    deliveryId: item.deliveryId as string,
    connectionId: item.connectionId as string,
    applicationId: item.applicationId as string,
    eventId: item.eventId as string,
    reason: item.reason as ParkReason,
    attempts: item.attempts as number,
    parkedAt: item.parkedAt as string,
  };
  if (typeof item.lastError === 'string') view.lastError = item.lastError;
  if (typeof item.lastOutcome === 'string') view.lastOutcome = item.lastOutcome as Outcome;
  if (typeof item.lastStatusCode === 'number') view.lastStatusCode = item.lastStatusCode;
  return view;
}

/** The delivery message a recovery puts on the retry queue: a new chain that continues the numbering. */
export function recoveryMessage(item: ParkedItem): DeliveryMessage {
  const attempt = item.attempts + 1;
  return {
    v: 1,
    type: 'delivery',
    deliveryId: item.deliveryId,
    eventId: item.eventId,
    connectionId: item.connectionId,
    attempt,
    chainStart: attempt,
    body: item.body,
    firstAttemptAt: item.firstAttemptAt,
    ...(item.publishedAt ? { publishedAt: item.publishedAt } : {}),
    ...(item.traceparent ? { traceparent: item.traceparent } : {}),
  };
}

/** One operational event: what an on-call person needs, never a secret, URL query or header value. */
export interface OperationalEvent {
  type: HealthTransition;
  connectionId: string;
  applicationId: string;
  /** The connection's name as its owner typed it (untrusted text). */
  connectionName?: string;
  state: HealthState;
  consecutiveFailures: number;
  failingSince?: string;
  lastFailureAt?: string;
  lastSuccessAt?: string;
  /** When the transition was recorded. */
  at: string;
}

/** The event announcing one transition. */
export function operationalEvent(
  type: HealthTransition,
  connection: { connectionId: string; applicationId: string; name?: string },
  health: ConnectionHealth,
  at: string,
): OperationalEvent {
  const event: OperationalEvent = {
    type,
    connectionId: connection.connectionId,
    applicationId: connection.applicationId,
    state: health.state,
    consecutiveFailures: health.consecutiveFailures,
    at,
  };
  if (connection.name !== undefined) event.connectionName = connection.name;
  if (health.failingSince) event.failingSince = health.failingSince;
  if (health.lastFailureAt) event.lastFailureAt = health.lastFailureAt;
  if (health.lastSuccessAt) event.lastSuccessAt = health.lastSuccessAt;
  return event;
}

/** The parked item of a delivery that ended without being delivered. */
export function parkedItemOf(input: {
  delivery: DeliveryMessage;
  applicationId: string;
  reason: ParkReason;
  /**
   * The number of the last attempt logged. A refusal is logged as an attempt too (outcome
   * `rejected` or `blocked`), so a recovery continues after it and never reuses its number.
   */
  attempts: number;
  lastError?: string;
  lastOutcome?: Outcome;
  lastStatusCode?: number;
  parkedAtMs: number;
  ttlDays: number;
}): ParkedItem {
  const { delivery } = input;
  const item: ParkedItem = {
    deliveryId: delivery.deliveryId,
    connectionId: delivery.connectionId,
    applicationId: input.applicationId,
    eventId: delivery.eventId,
    reason: input.reason,
    attempts: input.attempts,
    parkedAt: isoTime(input.parkedAtMs),
    body: delivery.body,
    firstAttemptAt: delivery.firstAttemptAt,
    expiresAt: Math.floor(input.parkedAtMs / 1000) + input.ttlDays * 86_400,
  };
  if (delivery.publishedAt !== undefined) item.publishedAt = delivery.publishedAt;
  if (delivery.traceparent !== undefined) item.traceparent = delivery.traceparent;
  if (input.lastError !== undefined) item.lastError = input.lastError;
  if (input.lastOutcome !== undefined) item.lastOutcome = input.lastOutcome;
  if (input.lastStatusCode !== undefined) item.lastStatusCode = input.lastStatusCode;
  return item;
}

/** Whether a final failure is parked (per connection) rather than dead-lettered (the pipeline's own failures). */
export function isParkReason(reason: string): reason is ParkReason {
  return (PARK_REASONS as readonly string[]).includes(reason);
}
