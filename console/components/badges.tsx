import { HEALTH_LABELS, healthSummary, OUTCOME_LABELS } from '../format';
import type { Health, Outcome } from '../types';

export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  return <span class={`badge outcome-${outcome}`}>{OUTCOME_LABELS[outcome] ?? outcome}</span>;
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span class={`badge ${enabled ? 'enabled' : 'disabled'}`}>{enabled ? 'Enabled' : 'Disabled'}</span>;
}

/**
 * Endpoint health as a word, not a colour alone; the title says what the state rests on (how
 * many deliveries failed in a row, since when), never more than that.
 */
export function HealthBadge({ health }: { health: Health }) {
  return (
    <span class={`badge health-${health.state}`} title={healthSummary(health)}>
      {HEALTH_LABELS[health.state]}
    </span>
  );
}
