import {
  attemptShardSteps,
  currentAttemptShards,
  MAX_ATTEMPT_SHARDS,
  RAISE_DELAY_MS,
  raisedAttemptShards,
  shardCountOf,
} from '../../../lambdas/core/attempt-shards';
import { ValidationError } from '../../../lambdas/core/errors';
import { deliveryIdFor, deliveryShard } from '../../../lambdas/core/ids';

const NOW = new Date('2026-11-25T12:00:00.000Z');
const delivery = (i: number, at: number) => deliveryIdFor(`evt_${i}`, 'con_1', at);

describe('attempt-log shards', () => {
  it('spreads deliveries evenly over the shards, each always to the same one', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8_000; i++) {
      const id = delivery(i, NOW.getTime());
      const shard = deliveryShard(id, 8);
      expect(deliveryShard(id, 8)).toBe(shard);
      counts[shard]!++;
    }
    for (const n of counts) expect(n).toBeGreaterThan(850);
    expect(deliveryShard(delivery(1, NOW.getTime()), 1)).toBe(0);
  });

  it('reads a connection never raised as one unsharded partition', () => {
    expect(attemptShardSteps(undefined)).toEqual([{ count: 1, from: '1970-01-01T00:00:00.000Z' }]);
    expect(currentAttemptShards({})).toBe(1);
    expect(shardCountOf(attemptShardSteps({}), delivery(1, NOW.getTime()))).toBe(1);
  });

  it('places a delivery by the step begun when it was created: a raise a minute ahead moves none already made', () => {
    const steps = raisedAttemptShards({}, 4, NOW);
    expect(steps.at(-1)).toEqual({ count: 4, from: new Date(NOW.getTime() + RAISE_DELAY_MS).toISOString() });
    expect(shardCountOf(steps, delivery(1, NOW.getTime()))).toBe(1);
    expect(shardCountOf(steps, delivery(1, NOW.getTime() + RAISE_DELAY_MS - 1))).toBe(1);
    expect(shardCountOf(steps, delivery(1, NOW.getTime() + RAISE_DELAY_MS))).toBe(4);
    const again = raisedAttemptShards({ attemptShards: steps }, 16, new Date(NOW.getTime() + 3_600_000));
    expect(again.map((s) => s.count)).toEqual([1, 4, 16]);
    expect(shardCountOf(again, delivery(1, NOW.getTime() + 2 * RAISE_DELAY_MS))).toBe(4);
    expect(currentAttemptShards({ attemptShards: again })).toBe(16);
  });

  it('refuses to lower, keep or overshoot the count, by name', () => {
    const four = { attemptShards: raisedAttemptShards({}, 4, NOW) };
    for (const to of [4, 2, 0, 1.5, MAX_ATTEMPT_SHARDS + 1, Number.NaN]) {
      expect(() => raisedAttemptShards(four, to, NOW)).toThrow(ValidationError);
    }
    expect(() => raisedAttemptShards(four, 2, NOW)).toThrow(
      /can only be raised: the connection has 4 shards, got 2/,
    );
    expect(raisedAttemptShards(four, MAX_ATTEMPT_SHARDS, NOW).at(-1)!.count).toBe(MAX_ATTEMPT_SHARDS);
  });
});
