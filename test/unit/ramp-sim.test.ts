/** docs/scale.md's simulation from rest (bench/ramp-sim.ts): the event source's ramp, a new table, built placement. */

import { mappingBatches, type RampOptions, raisedTo, simulateRamp } from '../../bench/ramp-sim';

describe('from rest (bench/ramp-sim.ts): the event source ramp, a new on-demand table, built placement', () => {
  const ramp: RampOptions = {
    seconds: 40,
    seed: 15,
    batchSize: 10,
    batchSeconds: 0.64,
    indexShardsBuilt: true,
  };

  it('ramps each queue mapping from 5 batches by 300 a minute up to 1,000', () => {
    expect([0, 1, 12, 60, 600].map(mappingBatches)).toEqual([5, 10, 65, 305, 1_000]);
  });

  it("spreads a hot connection's writes over the partitions its shard steps name, and throttles one partition", () => {
    const load = (shards: number) => [
      { connectionId: 'con_hot', rate: 1_500, failing: 0, steps: raisedTo(shards) },
    ];
    const one = simulateRamp(load(1), ramp);
    const four = simulateRamp(load(4), ramp);
    expect(one.throttledSeconds).toBeGreaterThan(0);
    expect(four.throttledSeconds).toBe(0);
    expect(four.peakPartitionWcu).toBeLessThan(one.peakPartitionWcu / 3);
    // The first second takes no more than the five first batches can.
    expect(one.peakBacklog).toBeGreaterThan(1_500);
  });

  it("puts a day's final failures on the built index shards, one partition without them", () => {
    const crowd = Array.from({ length: 20 }, (_, i) => ({
      connectionId: `con_${i}`,
      rate: 10,
      failing: 1,
      steps: raisedTo(1),
    }));
    const built = simulateRamp(crowd, ramp);
    const before = simulateRamp(crowd, { ...ramp, indexShardsBuilt: false });
    expect(before.peakIndexPartitionWcu).toBeGreaterThan(150);
    expect(built.peakIndexPartitionWcu).toBeLessThan(before.peakIndexPartitionWcu / 4);
  });

  it('counts a second throttled when the table writes more than twice its peak so far (from 4,000)', () => {
    const burst = Array.from({ length: 50 }, (_, i) => ({
      connectionId: `con_${i}`,
      rate: 200,
      failing: 0,
      steps: raisedTo(1),
    }));
    // 10,000 deliveries/s offered, all of it at once only if the event source took it at once.
    const instant = simulateRamp(burst, { ...ramp, seconds: 3, batchSeconds: 0.0001 });
    expect(instant.throttledSeconds).toBeGreaterThan(0);
    expect(instant.peakPartitionWcu).toBeLessThanOrEqual(1_000);
  });
});
