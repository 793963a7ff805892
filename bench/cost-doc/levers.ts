/** The levers docs/cost.md prices: what each changes in the model, and the construct prop that sets it. */

import type { Assumptions } from '../cost-model';

export interface Lever {
  name: string;
  /** The construct prop that sets it, or that it is not built. */
  how: string;
  /** The model's assumptions with the lever pulled. */
  a: Assumptions;
}

/** The levers the model can price, each alone and all together. */
export function levers(a: Assumptions): Lever[] {
  const window = { ...a, batchingWindowS: 1 };
  const big = { ...a, batchingWindowS: 1, batchSize: 100 };
  const ttl = { ...a, ttlDaysSuccess: 3 };
  const noPitr = { ...a, pitr: false };
  const provisioned = { ...a, writeCapacity: { mode: 'provisioned' as const, utilisation: 0.7 } };
  const small = { ...a, memoryMb: 128 };
  const everyProp = {
    ...big,
    memoryMb: 128,
    ttlDaysSuccess: 3,
    pitr: false,
    writeCapacity: provisioned.writeCapacity,
  };
  return [
    { name: 'as built', how: 'the stack today', a },
    {
      name: 'batching window 1 s',
      how: 'construct prop `maxBatchingWindow: Duration.seconds(1)`',
      a: window,
    },
    {
      name: 'batch 100 + window 1 s',
      how: 'construct props `batchSize: 100`, `maxBatchingWindow: Duration.seconds(1)`, `batchConcurrency: 100`',
      a: big,
    },
    {
      name: 'memory 128 MB',
      how: 'construct prop `memorySize: 128` (half the CPU share: a batch of 100 is CPU-bound, docs/performance.md §11)',
      a: small,
    },
    {
      name: 'successes kept 3 days',
      how: 'construct prop `deliveredAttemptTtl: Duration.days(3)` (a delivery that ever failed keeps `attemptTtl`)',
      a: ttl,
    },
    {
      name: 'no PITR on the attempt log',
      how: 'construct prop `attemptLogPointInTimeRecovery: false`',
      a: noPitr,
    },
    {
      name: 'provisioned writes at 70% use',
      how: 'construct prop `attemptLogCapacity` (auto-scaled, 70 % target)',
      a: provisioned,
    },
    {
      name: 'every construct prop above',
      how: 'window 1 s, batch 100, 128 MB, 3-day successes, no PITR, provisioned',
      a: everyProp,
    },
  ];
}
