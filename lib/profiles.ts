/**
 * Construct profiles: named sets of `WebhookDelivery` props chosen together from the cost model
 * (docs/cost.md, "All-in cost per profile"; docs/design.md §12). A profile only fills
 * props the caller left unset: an explicit prop always wins.
 */

import { Duration } from 'aws-cdk-lib';
import type { KeepBodies } from '../lambdas/core/types';
import type { SecretStoreName } from './secret-store';

/** The profiles `WebhookDelivery` accepts as its `profile` prop. */
export const PROFILES = ['defaults', 'lean'] as const;
export type ProfileName = (typeof PROFILES)[number];

/** Props a profile may set (the `WebhookDelivery` props of the same names): cost levers only. */
export interface ProfileProps {
  readonly batchSize?: number;
  readonly maxBatchingWindow?: Duration;
  readonly batchConcurrency?: number;
  readonly deliveredAttemptTtl?: Duration;
  readonly keepBodies?: KeepBodies;
  readonly deliverySearch?: boolean;
  readonly secretStore?: SecretStoreName;
  readonly memorySize?: number;
  readonly dedupeEvents?: boolean;
}

/**
 * `lean`: the levers whose saving outweighs what they give up (docs/design.md §12). Batches of up to 100
 * gathered for at most 1 s on the ingress queue (retries keep 1, 2 and 4 s: docs/design.md §12), all of a
 * batch's attempts at once; the record of a delivery delivered at its first attempt kept 3 days (every record
 * of a delivery that ever failed keeps `attemptTtl`); bodies kept for failed deliveries only; no delivery
 * search by user or event (two writes a delivery saved); connection secrets sealed with one stack KMS key
 * (docs/design.md §5 "The KMS secret store"); republished events not de-duplicated (two writes per delivery,
 * docs/cost.md: receivers de-duplicate on the delivery id anyway, and a publisher that republishes with the
 * same occurredAt keeps it). Left out: PITR off (about 3 cents a million once successes live 3 days, and
 * the audit trail loses its backup) and provisioned capacity (docs/cost.md "Provisioned or on-demand
 * writes"): cheaper than on-demand only above 29 % use of what is provisioned. Steady traffic pays 59 % less
 * per write; a daily hour at 10 times the mean costs 4 times as much with a floor at the peak, or defers a
 * sixth of the day's records with auto-scaling following it. A profile cannot know the traffic's shape.
 */
export const LEAN_PROFILE: Readonly<ProfileProps> = Object.freeze({
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  batchConcurrency: 100,
  deliveredAttemptTtl: Duration.days(3),
  keepBodies: 'failures',
  deliverySearch: false,
  secretStore: 'kms',
  dedupeEvents: false,
});

const PROFILE_PROPS: Readonly<Record<ProfileName, Readonly<ProfileProps>>> = {
  defaults: Object.freeze({}),
  lean: LEAN_PROFILE,
};

/** The props a profile sets (none for `defaults`). */
export function profileProps(name: ProfileName): Readonly<ProfileProps> {
  return PROFILE_PROPS[name];
}

/**
 * The props with the profile's filled in where the caller gave none (a prop given as
 * `undefined` counts as not given). An unknown profile name is returned as is, for
 * `resolveProps` to reject by name.
 */
export function withProfile<P extends ProfileProps & { readonly profile?: string }>(props: P): P {
  const name = props.profile ?? 'defaults';
  if (!(PROFILES as readonly string[]).includes(name)) return props;
  const given = Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined));
  return { ...profileProps(name as ProfileName), ...given } as P;
}
