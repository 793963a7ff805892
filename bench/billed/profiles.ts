/**
 * The two profiles the billed benchmark runs: the construct's defaults and `profile: 'lean'`
 * (lib/profiles.ts), through the construct's own prop resolution (lib/webhook-delivery-props.ts),
 * so the benchmark runs what a stack with that prop deploys; only what the dispatcher and its
 * event source see matters here (memory, batch, window, concurrency, secret store, bodies, TTLs).
 */

import { ENV } from '../../lambdas/config';
import { resolveProps } from '../../lib/webhook-delivery-props';

export type ProfileName = 'defaults' | 'lean';

export interface BilledProfile {
  name: ProfileName;
  memoryMb: number;
  batchSize: number;
  batchingWindowMs: number;
  secretStore: 'secrets-manager' | 'kms';
  /** The dispatcher's settings the profile changes, by their environment names. */
  settings: Record<string, string>;
}

export function billedProfile(name: ProfileName): BilledProfile {
  const p = resolveProps({ profile: name }, 'Webhooks');
  return {
    name,
    memoryMb: p.memorySize,
    batchSize: p.batchSize,
    batchingWindowMs: p.maxBatchingWindow?.toMilliseconds() ?? 0,
    secretStore: p.secretStore === 'kms' ? 'kms' : 'secrets-manager',
    settings: {
      [ENV.batchConcurrency]: String(p.batchConcurrency),
      [ENV.keepBodies]: p.keepBodies,
      [ENV.attemptTtlDays]: String(p.attemptTtl.toDays()),
      [ENV.deliveredTtlDays]: String(p.deliveredAttemptTtl.toDays()),
    },
  };
}
