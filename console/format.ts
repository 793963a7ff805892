/** How the console writes times, durations and outcomes. */

import type { HealthState, Outcome, ParkReason } from './types';

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
