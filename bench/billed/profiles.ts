/**
 * The two profiles the billed benchmark runs: the construct's defaults and the lean profile.
 * Both come from the construct's own prop resolution (lib/webhook-delivery-props.ts), so the
 * benchmark runs what a stack with those props deploys; only what the dispatcher and its event
 * source see matters here (memory, batch, window, concurrency, secret store, bodies, TTLs).
 *
 * LEAN_PROPS is the one place the lean profile is read from: issue 26's `profile: 'lean'`
 * prop replaces its contents (`{ profile: 'lean' }`) once the construct has it. Until then it
 * is D24's construct props with `secretStore: 'kms'` and `keepBodies: 'failures'`.
 */

import { Duration } from 'aws-cdk-lib';
import { ENV } from '../../lambdas/config';
import { resolveProps, type WebhookDeliveryProps } from '../../lib/webhook-delivery-props';

export const LEAN_PROPS: WebhookDeliveryProps = {
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  batchConcurrency: 100,
  memorySize: 128,
  deliveredAttemptTtl: Duration.days(3),
  attemptLogPointInTimeRecovery: false,
  attemptLogCapacity: { minWriteCapacity: 5, maxWriteCapacity: 1_000 },
  secretStore: 'kms',
  keepBodies: 'failures',
};

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
  const p = resolveProps(name === 'lean' ? LEAN_PROPS : {}, 'Webhooks');
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
