/** How the console writes times, durations and outcomes. */

import type { Attempt, Health, HealthState, Outcome, ParkReason } from './types';

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
  });
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
  const n = h.consecutiveFailures;
  const parts: string[] = [];
  if (h.state === 'healthy')
    parts.push(
      n > 0
        ? `Not failing yet: ${deliveries(n)} in a row failed on every attempt`
        : 'No failed deliveries in a row',
    );
  else
    parts.push(
      `${h.state === 'failing' ? 'Failing' : 'Disabled after failing'}: ${deliveries(n)} in a row failed on every attempt${h.failingSince ? ` since ${formatTime(h.failingSince)}` : ''}`,
    );
  if (parked) parts.push('some deliveries are parked, waiting to be sent again');
  if (h.lastFailureAt) parts.push(`last failure ${formatTime(h.lastFailureAt)}`);
  if (h.lastSuccessAt) parts.push(`last success after a failure ${formatTime(h.lastSuccessAt)}`);
  return parts.join('; ');
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
