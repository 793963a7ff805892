/**
 * The arithmetic of `npm run bench -- --only rateLimit` (bench/rate-limit.ts, docs/design.md §4
 * "Rate limits"): the billed wait.
 */

import { billedWaitMs } from '../../bench/rate-limit';

it("bills each batch's time with at least one delivery waiting: overlapping waits once, batches apart", () => {
  expect(
    billedWaitMs([
      // Batch 0: three waits, two overlapping (0-400 and 100-300), one after a gap (500-600).
      { batch: 0, from: 0, to: 400 },
      { batch: 0, from: 100, to: 300 },
      { batch: 0, from: 500, to: 600 },
      // Batch 1 waits at the same time as batch 0: another invocation, billed too.
      { batch: 1, from: 0, to: 250 },
      { batch: 1, from: 200, to: 450 },
    ]),
  ).toBe(400 + 100 + 450);
  expect(billedWaitMs([])).toBe(0);
});
