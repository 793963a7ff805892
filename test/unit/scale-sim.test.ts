/** docs/scale.md's simulation (bench/scale-sim.ts): partition load against DynamoDB's per-partition limit. */

import {
  accountConcurrency,
  accountMaxRate,
  PARTITION_WCU_PER_S,
  type SimOptions,
  simulate,
  WCU,
} from '../../bench/scale-sim';

const options: SimOptions = { seconds: 30, shards: 1, wcu: WCU, seed: 15 };

describe('partition simulation', () => {
  it('lets one healthy connection well under 1,000 deliveries/s through without a throttled second', () => {
    const r = simulate([{ rate: 600, failing: 0 }], options);
    expect(r.throttledSeconds).toBe(0);
    expect(r.peakTableWcu).toBeLessThanOrEqual(PARTITION_WCU_PER_S);
  });

  it('throttles one connection above the partition limit, and not once it is sharded four ways', () => {
    expect(simulate([{ rate: 1_200, failing: 0 }], options).throttledSeconds).toBeGreaterThan(0);
    expect(simulate([{ rate: 1_200, failing: 0 }], { ...options, shards: 4 }).throttledSeconds).toBe(0);
  });

  it('puts every final failure of the day in one index partition unless the index is sharded', () => {
    const crowd = Array.from({ length: 100 }, () => ({ rate: 12, failing: 1 }));
    expect(simulate(crowd, options).peakIndexWcu).toBeGreaterThan(PARTITION_WCU_PER_S);
    expect(simulate(crowd, { ...options, shards: 8 }).peakIndexWcu).toBeLessThan(PARTITION_WCU_PER_S / 2);
  });

  it('is seeded: the same traffic gives the same figures', () => {
    const load = [{ rate: 300, failing: 0.1 }];
    expect(simulate(load, options)).toEqual(simulate(load, options));
  });

  it('lets a hanging receiver cut what the account can deliver', () => {
    expect(accountMaxRate(10, 1_000, 256, 0.01)).toBeLessThan(accountMaxRate(10, 1_000, 256, 0) / 5);
  });

  it('holds first-attempt batches for a hanging first attempt only: its retries hang in batches of their own', () => {
    const { durationS } = accountConcurrency(1, 10, 1_000, 256);
    const hangingBatch = 1 - 0.99 ** 10;
    // Per delivery: a tenth of an ingress batch, and 1 % × 3 retries in full retry batches of 10, 30 s each.
    const perDelivery = (hangingBatch * 30 + (1 - hangingBatch) * durationS) / 10 + (0.01 * 3 * 30) / 10;
    expect(accountMaxRate(10, 1_000, 256, 0.01)).toBe(Math.floor(1_000 / perDelivery));
    // A batch of 100 from the ingress queue still takes retries 10 at a time.
    const big = accountConcurrency(1, 100, 1_000, 256).durationS;
    const bigHanging = 1 - 0.99 ** 100;
    expect(accountMaxRate(100, 1_000, 256, 0.01)).toBe(
      Math.floor(1_000 / ((bigHanging * 30 + (1 - bigHanging) * big) / 100 + (0.01 * 3 * 30) / 10)),
    );
  });
});
