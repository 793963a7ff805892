/**
 * How connections, attempts and dead letters look to an operator, and in `--json`.
 * Custom header values are never shown: they often hold credentials (Authorization).
 */

import { currentAttemptShards } from '../lambdas/core/attempt-shards';
import { deliveryTimeOf } from '../lambdas/core/ids';
import { recoveryStatus } from '../lambdas/core/recovery-status';
import type { AttemptRecord, Connection } from '../lambdas/core/types';
import type { DeadLetterEntry } from '../lambdas/management';
import { healthView } from '../lambdas/management/connections';
import { type Column, keyValues, plural, relativeTime, truncate, when } from './format';

export { failureAdvice } from '../lambdas/core/failure-advice';

export const HIDDEN = '[hidden]';

/** A connection for `--json`: everything but the custom header values. */
export function connectionJson(c: Connection): Connection {
  // A kms store's sealed secret stays in the item: a listing is no place for it, even encrypted.
  const { secretCiphertext: _sealed, ...rest } = c as Connection & { secretCiphertext?: string };
  const json = {
    ...rest,
    headers: Object.fromEntries(Object.keys(c.headers ?? {}).map((name) => [name, HIDDEN])),
  };
  // The write version is storage detail; the rest of health is what `connections get` shows.
  if (c.health) json.health = healthView(c.health) as Connection['health'];
  return json;
}

/** Health in a few words: "failing since … (4 deliveries in a row failed)". */
export function healthLine(health: Connection['health'], now: Date): string {
  const h = health ?? { state: 'healthy', consecutiveFailures: 0, version: 0 };
  const streak =
    h.consecutiveFailures > 0
      ? ` (${plural(h.consecutiveFailures, 'delivery', 'deliveries')} in a row failed every attempt)`
      : '';
  switch (h.state) {
    case 'healthy':
      return `healthy${streak}`;
    case 'failing':
      return `FAILING${h.failingSince ? ` since ${when(h.failingSince, now)}` : ''}${streak}; failed deliveries are parked`;
    case 'disabled':
      return `DISABLED by health${streak}; new events are parked, not sent, until it is enabled`;
  }
}

/**
 * Whether events reach it. Disabled by health, its events are parked until it is enabled again;
 * disabled by hand, new events are not delivered to it at all (docs/design.md §9).
 */
function enabledLine(c: Connection): string {
  if (c.enabled) return 'yes';
  if (c.health?.state === 'disabled') return 'no (by health: new events are parked until it is enabled)';
  return 'no (new events are not delivered to it)';
}

function headerNames(c: Connection): string {
  const names = Object.keys(c.headers ?? {});
  return names.length ? `${names.join(', ')} (values hidden)` : 'none';
}

/**
 * What limits a connection's deliveries: its own rate limit, else the default of the target
 * (local mode's WEBHOOKS_DEFAULT_RATE_LIMIT, a stack's DefaultRateLimit output). Local mode
 * always knows its default; a deployed stack that names none may predate the output.
 */
export interface RateLimitDefault {
  local: boolean;
  defaultRateLimit?: number;
}

function rateLimitLine(c: Connection, target: RateLimitDefault): string {
  if (c.rateLimit !== undefined) return `${c.rateLimit} deliveries/s`;
  const whose = target.local ? "local mode's" : "the stack's";
  if (target.defaultRateLimit !== undefined)
    return `none of its own: ${whose} default applies, ${target.defaultRateLimit} deliveries/s`;
  return target.local
    ? 'none of its own, and local mode has no default (WEBHOOKS_DEFAULT_RATE_LIMIT is not set): no limit'
    : "none of its own (the stack's default, if set)";
}

/** The key/value block of one connection. */
export function connectionBlock(
  c: Connection,
  now: Date,
  target: RateLimitDefault = { local: false },
): string {
  return keyValues([
    ['id', c.connectionId],
    ['application', c.applicationId],
    ['name', c.name],
    ['url', c.url],
    ['method', c.method],
    ['headers', headerNames(c)],
    ['rate limit', rateLimitLine(c, target)],
    ['recovery checks', c.recoveryProbes === false ? 'off for this connection (recover by hand)' : undefined],
    ['enabled', enabledLine(c)],
    ['health', healthLine(c.health, now)],
    [
      'recovery',
      recoveryStatus(c.health, (iso) => when(iso, now) ?? iso, { probesOff: c.recoveryProbes === false }),
    ],
    // Shown once raised (`connections shards`): listings read one Query per shard.
    ['attempt shards', c.attemptShards ? currentAttemptShards(c) : undefined],
    // A rotation's new secret waiting for its switch time (show-secret prints both).
    ['secret switch', c.secretSwitchAt ? `to the next secret at ${when(c.secretSwitchAt, now)}` : undefined],
    ['last success', when(c.health?.lastSuccessAt, now)],
    ['last failure', when(c.health?.lastFailureAt, now)],
    ['created', when(c.createdAt, now)],
    ['updated', c.updatedAt !== c.createdAt ? when(c.updatedAt, now) : undefined],
  ]);
}

export function connectionColumns(now: Date): Column<Connection>[] {
  return [
    { header: 'ID', value: (c) => c.connectionId },
    { header: 'APPLICATION', value: (c) => c.applicationId },
    { header: 'NAME', value: (c) => truncate(c.name, 40) },
    { header: 'METHOD', value: (c) => c.method },
    { header: 'URL', value: (c) => truncate(c.url, 60) },
    { header: 'ENABLED', value: (c) => (c.enabled ? 'yes' : 'no') },
    { header: 'HEALTH', value: (c) => c.health?.state ?? 'healthy' },
    { header: 'CREATED', value: (c) => relativeTime(c.createdAt, now) },
  ];
}

/** What an attempt's outcome means, in a few words: "HTTP 503 (not 2xx)", "timed out after 30000 ms". */
export function outcomeDetail(
  r: Pick<AttemptRecord, 'outcome' | 'statusCode' | 'error' | 'durationMs'>,
): string {
  switch (r.outcome) {
    case 'delivered':
      return `HTTP ${r.statusCode ?? '2xx'}`;
    case 'http_error':
      return `HTTP ${r.statusCode ?? '?'} (not 2xx)`;
    case 'timeout':
      return `timed out after ${r.durationMs} ms`;
    case 'network_error':
      return r.error ?? 'unknown network error';
    case 'blocked':
      return `blocked by the egress policy: ${r.error ?? 'destination refused'}`;
    case 'rejected':
      return `rejected: ${r.error ?? 'the connection is not valid'}`;
    default:
      return r.outcome;
  }
}

/** What happened next: retried, final (parked, or dead-lettered for a deleted connection), done, or a test. */
export function attemptNext(r: AttemptRecord): string {
  if (r.test) return r.outcome === 'delivered' ? 'test' : 'test, not retried';
  if (r.outcome === 'delivered') return 'done';
  if (r.nextAttemptAt) {
    const delayS = Math.round((Date.parse(r.nextAttemptAt) - Date.parse(r.requestedAt)) / 1000);
    return `retry after ${delayS}s`;
  }
  return r.final ? 'final' : '-';
}

/** The receiver's own words when it answered (status is its own column), else the error. */
function detail(r: AttemptRecord): string | undefined {
  if (r.outcome === 'delivered') return truncate(r.responseSnippet, 50);
  if (r.outcome === 'http_error' && r.responseSnippet) return truncate(r.responseSnippet, 60);
  return truncate(r.error ?? r.responseSnippet, 60);
}

/**
 * The widest value each attempt column can hold (`attempts tail` prints a table per poll, and
 * with these widths every poll's lines stay under the first one's columns): a timestamp with
 * "(just now)", a delivery id (dlv_ + ULID + _con_ + ULID), attempt 1000, `network_error`,
 * a status, `30000 ms`, `test, not retried`.
 */
const ATTEMPT_WIDTHS = {
  requested: 35,
  delivery: 61,
  user: 12,
  event: 30,
  attempt: 4,
  outcome: 13,
  status: 3,
  latency: 8,
  next: 17,
};

export function attemptColumns(
  now: Date,
  options: { delivery: boolean; fixedWidths?: boolean; traces?: boolean },
): Column<AttemptRecord>[] {
  const w = (name: keyof typeof ATTEMPT_WIDTHS) =>
    options.fixedWidths ? { minWidth: ATTEMPT_WIDTHS[name] } : {};
  return [
    { header: 'REQUESTED', value: (r) => when(r.requestedAt, now), ...w('requested') },
    // Across deliveries, each row names its user and event: what an operator searches by.
    ...(options.delivery
      ? [
          { header: 'DELIVERY', value: (r: AttemptRecord) => r.deliveryId, ...w('delivery') },
          { header: 'USER', value: (r: AttemptRecord) => r.userId, ...w('user') },
          { header: 'EVENT', value: (r: AttemptRecord) => r.eventId, ...w('event') },
        ]
      : []),
    { header: '#', value: (r) => r.attempt, align: 'right', ...w('attempt') },
    { header: 'OUTCOME', value: (r) => r.outcome, ...w('outcome') },
    { header: 'STATUS', value: (r) => r.statusCode, align: 'right', ...w('status') },
    { header: 'LATENCY', value: (r) => `${r.durationMs} ms`, align: 'right', ...w('latency') },
    { header: 'NEXT', value: attemptNext, ...w('next') },
    // Only where an attempt was traced (the dispatcher's `tracing` prop): X-Ray's trace id.
    ...(options.traces ? [{ header: 'TRACE', value: (r: AttemptRecord) => r.traceId }] : []),
    { header: 'RESPONSE / ERROR', value: detail },
  ];
}

/** The event time a delivery id carries, as `when` writes it: what listings keyed by delivery id are ordered by. */
export function eventTime(deliveryId: string, now: Date): string | undefined {
  const ms = deliveryTimeOf(deliveryId);
  return ms === undefined ? undefined : when(new Date(ms).toISOString(), now);
}

/**
 * Where a delivery that failed for good is now, as far as the parked table tells: `parked`
 * (`attempts retry` sends it again), `not-parked` (sent again since, or in the DLQ because
 * parking failed), or `connection-gone` (nothing left to send it to).
 */
export type FinalPlace = 'parked' | 'not-parked' | 'connection-gone';

/**
 * Where a delivery stands, from its attempts (oldest first) and, after a final failure, where it
 * is. `suggest` writes the commands it names as this invocation would run them (Context.suggest:
 * `npx webhooks --local …` in local mode).
 */
export function deliveryState(
  attempts: readonly AttemptRecord[],
  place: FinalPlace | undefined,
  suggest: (command: string) => string,
): string {
  const last = attempts[attempts.length - 1];
  if (!last) return 'no attempts yet';
  if (last.test)
    return last.outcome === 'delivered' ? 'test delivery, delivered' : 'test delivery, failed (not retried)';
  if (last.outcome === 'delivered') return `delivered on attempt ${last.attempt}`;
  if (last.nextAttemptAt) return `retrying: attempt ${last.attempt + 1} due ${when(last.nextAttemptAt)}`;
  if (last.final) {
    const failed = `failed after ${plural(attempts.length, 'attempt')}`;
    const parked = `parked for its connection (${suggest(`connections parked ${last.connectionId}`)}; retry it: ${suggest(`attempts retry ${last.deliveryId}`)})`;
    switch (place) {
      case 'parked':
        return `${failed}; ${parked}`;
      case 'not-parked':
        return `${failed}; not parked (any more): sent again since (its next attempts appear here), or in the DLQ if parking failed (${suggest('dlq list')})`;
      case 'connection-gone':
        return `${failed}; its connection ${last.connectionId} does not exist (any more), so there is nothing to send it to`;
      default:
        return `${failed}; ${parked}, or in the DLQ (${suggest('dlq list')}) if parking failed or the connection is gone`;
    }
  }
  return `last attempt ${last.attempt}: ${last.outcome}`;
}

export function deadLetterColumns(now: Date): Column<DeadLetterEntry>[] {
  return [
    { header: 'DEAD-LETTERED', value: (d) => when(d.failedAt ?? d.sentAt, now) },
    { header: 'DELIVERY', value: (d) => d.deliveryId ?? `(message ${d.messageId})` },
    { header: 'REASON', value: (d) => d.reason },
    { header: 'ATTEMPT', value: (d) => d.attempt, align: 'right' },
    // One DLQ serves both queues; a redrive returns each message to its own.
    { header: 'REDRIVE TO', value: (d) => (d.redrivable && d.queue ? `${d.queue} queue` : 'no') },
    { header: 'ERROR', value: (d) => truncate(d.error, 60) },
  ];
}
