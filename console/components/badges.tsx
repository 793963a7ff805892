import { OUTCOME_LABELS } from '../format';
import type { Outcome } from '../types';

export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  return <span class={`badge outcome-${outcome}`}>{OUTCOME_LABELS[outcome] ?? outcome}</span>;
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span class={`badge ${enabled ? 'enabled' : 'disabled'}`}>{enabled ? 'Enabled' : 'Disabled'}</span>;
}
