import { formatTime, HEALTH_LABELS, OUTCOME_LABELS } from '../format';
import type { Health, Outcome } from '../types';

export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  return <span class={`badge outcome-${outcome}`}>{OUTCOME_LABELS[outcome] ?? outcome}</span>;
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span class={`badge ${enabled ? 'enabled' : 'disabled'}`}>{enabled ? 'Enabled' : 'Disabled'}</span>;
}

/**
 * Endpoint health as a word, not a colour alone; the title says since when and how many
 * deliveries failed in a row.
 */
export function HealthBadge({ health }: { health: Health }) {
  const detail =
    health.state === 'healthy'
      ? 'Deliveries succeed'
      : `${health.consecutiveFailures} failed ${health.consecutiveFailures === 1 ? 'delivery' : 'deliveries'} in a row${health.failingSince ? ` since ${formatTime(health.failingSince)}` : ''}`;
  return (
    <span class={`badge health-${health.state}`} title={detail}>
      {HEALTH_LABELS[health.state]}
    </span>
  );
}
