/** How the console writes times, durations and outcomes. */

import type { ApiIndex, Attempt, DeliveryState, Health, HealthState, Outcome, ParkReason } from './types';

export const OUTCOME_LABELS: Record<Outcome, string> = {
  delivered: 'Delivered',
  http_error: 'HTTP error',
  timeout: 'Timeout',
  network_error: 'Network error',
  blocked: 'Blocked',
  rejected: 'Rejected',
};

export const HEALTH_LABELS: Record<HealthState, string> = {
  healthy: 'Healthy',
  failing: 'Failing',
  disabled: 'Disabled by health',
};

export const PARK_REASON_LABELS: Record<ParkReason, string> = {
  exhausted: 'Every attempt failed',
  connection_disabled: 'Connection disabled',
  blocked: 'Destination refused',
};

/** Where a delivery stands now, in words (docs/api.md "Deliveries"). */
export const DELIVERY_STATE_LABELS: Record<DeliveryState, string> = {
  delivered: 'Delivered',
  retrying: 'Retrying',
  parked: 'Parked',
  dead_lettered: 'Dead-lettered',
  failed: 'Failed (test send)',
};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * When a delivery was created, read from its id (`dlv_<ULID>_con_…`: the ULID's time part is its
 * event's time). Lists ordered by delivery id are in this order, so a list shows it beside the
 * attempt times, which a retry or a rate limit puts later. Undefined for an id of another shape.
 */
export function deliveryCreatedAt(deliveryId: string): string | undefined {
  const time = /^dlv_([0-9A-HJKMNP-TV-Z]{10})/.exec(deliveryId)?.[1];
  if (!time) return undefined;
  let ms = 0;
  for (const char of time) ms = ms * 32 + CROCKFORD.indexOf(char);
  return new Date(ms).toISOString();
}

/**
 * A time in the browser's zone, the zone named (`Nov 22, 2026, 10:00:00 AM UTC`): an operator
 * comparing it with a receiver's logs or another colleague's screen must know which clock it is.
 */
export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

/** The browser's time zone as formatTime names it (`UTC`, `CET`, `GMT+1`): for labels of times shown without it. */
export function timeZoneName(at = new Date()): string {
  const part = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? 'local time';
}

export function formatDuration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** `2026-11-22T13:05` (a datetime-local value, local time) → ISO 8601 in UTC. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * Health in words that claim no more than the API knows. Health counts deliveries that failed on
 * every attempt, in a row; `healthy` only means not (yet) failing: it says nothing of deliveries
 * parked for other reasons (a disabled connection, a refused destination), nor of failures
 * below the threshold, so those are said when known instead of "deliveries succeed".
 * `parked`: whether the connection has parked deliveries, when the caller knows.
 */
export function healthSummary(h: Health, parked?: boolean): string {
  return healthParts(h, parked)
    .map((p) => (p.label === 'State' ? p.value : `${p.label}: ${p.value}`))
    .join('; ');
}

/** One labelled part of a connection's health, as the connection page lists them. */
export interface HealthPart {
  label: string;
  value: string;
}

/**
 * The same facts as healthSummary, in short labelled parts (state, failing since, parked, last
 * failure, last success) instead of one long sentence.
 */
export function healthParts(h: Health, parked?: boolean): HealthPart[] {
  const n = h.consecutiveFailures;
  const state =
    h.state === 'healthy'
      ? n > 0
        ? `Not failing yet: ${deliveries(n)} in a row failed on every attempt`
        : 'No failed deliveries in a row'
      : `${h.state === 'failing' ? 'Failing' : 'Disabled after failing'}: ${deliveries(n)} in a row failed on every attempt`;
  const parts: HealthPart[] = [{ label: 'State', value: state }];
  if (h.state !== 'healthy' && h.failingSince)
    parts.push({ label: 'Failing since', value: formatTime(h.failingSince) });
  if (parked) parts.push({ label: 'Parked', value: 'some deliveries, waiting to be sent again' });
  if (h.lastFailureAt) parts.push({ label: 'Last failure', value: formatTime(h.lastFailureAt) });
  if (h.lastSuccessAt)
    parts.push({ label: 'Last success after a failure', value: formatTime(h.lastSuccessAt) });
  return parts;
}

/**
 * Where a delivery stands, from its attempts (oldest first), in the words the CLI's
 * `attempts get` uses: delivered, retrying (and when), or failed for good (then parked for its
 * connection, or dead-lettered if parking failed).
 */
export function deliveryState(
  attempts: readonly Pick<Attempt, 'attempt' | 'outcome' | 'nextAttemptAt' | 'final' | 'test' | 'resentAs'>[],
): string {
  const last = attempts[attempts.length - 1];
  if (!last) return 'No attempts yet';
  if (last.resentAs !== undefined) return `Sent again: attempt ${last.resentAs} is queued`;
  if (last.test)
    return last.outcome === 'delivered' ? 'Test delivery, delivered' : 'Test delivery, failed (not retried)';
  if (last.outcome === 'delivered') return `Delivered on attempt ${last.attempt}`;
  if (last.nextAttemptAt)
    return `Retrying: attempt ${last.attempt + 1} due ${formatTime(last.nextAttemptAt)}`;
  if (last.final)
    return `Not delivered: attempt ${last.attempt} was its last; parked until sent again (Resend, or Recover on its connection)`;
  return `Last attempt ${last.attempt}: ${last.outcome.replace('_', ' ')}`;
}

/** The connection's recovery setting, and the deployment's when that turns it off for all. */
export function recoverySetting(own: boolean | undefined, index: ApiIndex | 'loading' | 'unknown'): string {
  if (own === false) return 'off: parked deliveries wait for Recover';
  if (typeof index === 'object' && index.recoveryChecks === false)
    return 'off for this deployment (recoveryProbes): parked deliveries wait for Recover';
  return 'on: a down endpoint is checked again by itself, and its parked deliveries sent when it answers';
}
