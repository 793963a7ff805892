/**
 * The construct's defaults and `profile: 'lean'` (lib/profiles.ts) through its own prop resolution,
 * so the benchmark runs what such a stack deploys (every setting lean changes, search and claims too).
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
      [ENV.deliverySearch]: String(p.deliverySearch),
      [ENV.dedupeEvents]: String(p.dedupeEvents),
    },
  };
}
