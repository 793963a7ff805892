/** The levers docs/cost.md prices: what each changes in the model, and the construct prop that sets it. */

import type { Assumptions } from '../cost-model';

export interface Lever {
  name: string;
  /** The construct prop that sets it, or that it is not built. */
  how: string;
  /** The model's assumptions with the lever pulled. */
  a: Assumptions;
}

/** The levers the model can price, each alone and all together (but tracing, which only adds). */
export function levers(a: Assumptions): Lever[] {
  const provisioned = { mode: 'provisioned' as const, utilisation: 0.7 };
  const big = { batchingWindowS: 1, batchSize: 100 };
  const prop = (p: string) => `construct prop \`${p}\``;
  const rows: Array<[string, string, Partial<Assumptions>]> = [
    ['as built', 'the stack today', {}],
    ['batching window 1 s', prop('maxBatchingWindow: Duration.seconds(1)'), { batchingWindowS: 1 }],
    [
      'batch 100 + window 1 s',
      'construct props `batchSize: 100`, `maxBatchingWindow: Duration.seconds(1)`, `batchConcurrency: 100`',
      big,
    ],
    [
      'memory 128 MB',
      `${prop('memorySize: 128')} (half the CPU share: docs/performance.md §11)`,
      { memoryMb: 128 },
    ],
    [
      'successes kept 3 days',
      `${prop('deliveredAttemptTtl: Duration.days(3)')} (a delivery that ever failed keeps \`attemptTtl\`)`,
      { ttlDaysSuccess: 3 },
    ],
    ['no PITR on the attempt log', prop('attemptLogPointInTimeRecovery: false'), { pitr: false }],
    [
      'provisioned writes at 70% use',
      `${prop('attemptLogCapacity')} (auto-scaled, 70 % target)`,
      { writeCapacity: provisioned },
    ],
    ['X-Ray tracing on', prop('tracing: true'), { tracing: true }],
    [
      'every construct prop above but tracing',
      'window 1 s, batch 100, 128 MB, 3-day successes, no PITR, provisioned',
      { ...big, memoryMb: 128, ttlDaysSuccess: 3, pitr: false, writeCapacity: provisioned },
    ],
  ];
  return rows.map(([name, how, over]) => ({ name, how, a: { ...a, ...over } }));
}
