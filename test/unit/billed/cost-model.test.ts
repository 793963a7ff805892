/** The parts of the cost model the billed benchmark checks (bench/cost-model.ts): the keep-alive model. */

import { invocationWallMs, newConnectionShare } from '../../../bench/cost-model';

describe('the keep-alive model: share of attempts opening a new TLS connection', () => {
  const tenSeconds = [{ seconds: 10, share: 1 }];
  const traffic = (
    deliveriesPerSecond: number,
    connections: number,
    containers: number,
    meanFill: number,
  ) => ({
    deliveriesPerSecond,
    connections,
    containers,
    meanFill,
  });

  it('is e^(−rate × idle) per origin and container when batches carry one delivery: 86 % at 100/s, 1,000 connections, 10 s, 6.6 containers', () => {
    const share = newConnectionShare(traffic(100, 1_000, 6.6, 1), tenSeconds);
    expect(share).toBeCloseTo(Math.exp(-1 / 6.6), 3);
    expect(share).toBeCloseTo(0.86, 2);
  });

  it('weights each class of receiver idle timeout by its share', () => {
    const idle = [
      { seconds: 4, share: 2 },
      { seconds: 10, share: 3 },
    ];
    const share = newConnectionShare(traffic(100, 200, 5, 1), idle);
    const one = (seconds: number) => newConnectionShare(traffic(100, 200, 5, 1), [{ seconds, share: 1 }]);
    expect(share).toBeCloseTo(0.4 * one(4) + 0.6 * one(10), 9);
    expect(share).toBeCloseTo(0.4 * Math.exp(-0.4) + 0.6 * Math.exp(-1), 2);
  });

  it('counts a second connection for two requests at once to one origin, open only if a recent batch also sent two', () => {
    // 20 connections, batches of 10 every 2.5 s per container (20/s over 5): one origin's count
    // in a batch is binomial (10, 1/20); the j-th socket lives if one of the 4 batches in the
    // 10 s idle time sent j or more there.
    const choose = (k: number) => [1, 10, 45, 120, 210, 252][k]!;
    const pmf = (k: number) => choose(k) * 0.05 ** k * 0.95 ** (10 - k);
    let expected = 0;
    for (let j = 1, below = 0; j <= 6; j++) {
      below += pmf(j - 1);
      const atLeast = 1 - below;
      expected += (atLeast * (1 - atLeast) ** 4) / 0.5;
    }
    expect(newConnectionShare(traffic(20, 20, 5, 10), tenSeconds)).toBeCloseTo(expected, 3);
    // Sent one at a time, the same traffic would reuse far more.
    expect(newConnectionShare(traffic(20, 20, 5, 10), tenSeconds)).toBeGreaterThan(
      newConnectionShare(traffic(20, 20, 5, 1), tenSeconds),
    );
  });

  it('reads a fill between two sizes as the mix of both that keeps the mean, with no step between them', () => {
    // 1.3 a batch: 70 % batches of one, 30 % of two. A second request at once to one origin comes only
    // from the batches of two, 30 % × (1/20)² of batches; never from a batch of one.
    const mixed = newConnectionShare(traffic(30, 20, 5, 1.3), tenSeconds);
    const batchRate = 30 / (5 * 1.3);
    const first = 0.7 * 0.05 + 0.3 * (1 - 0.95 ** 2);
    const second = 0.3 * 0.05 ** 2;
    const expected =
      (first * (1 - first) ** (batchRate * 10) + second * (1 - second) ** (batchRate * 10)) / (1.3 * 0.05);
    expect(mixed).toBeCloseTo(expected, 9);
    const near = (fill: number) => newConnectionShare(traffic(30, 20, 5, fill), tenSeconds);
    expect(Math.abs(near(1.499) - near(1.501))).toBeLessThan(0.001);
    expect(Math.abs(near(1.999) - near(2))).toBeLessThan(0.001);
  });

  it('refuses batches larger than it models', () => {
    expect(() => newConnectionShare(traffic(100, 20, 5, 2_000), tenSeconds)).toThrow(RangeError);
  });

  it('opens fewer new connections the more deliveries a second the containers serve', () => {
    expect(newConnectionShare(traffic(1_000, 1_000, 5, 10), tenSeconds)).toBeLessThan(
      newConnectionShare(traffic(100, 1_000, 5, 10), tenSeconds),
    );
    expect(newConnectionShare(traffic(100, 1, 5, 10), tenSeconds)).toBeLessThan(1e-6);
  });
});

describe("an invocation's wall time from its CPU and its wait (D42, D43)", () => {
  it('is the longer of the two plus the serial share of the shorter', () => {
    expect(invocationWallMs(100, 500)).toBe(530);
    expect(invocationWallMs(8_000, 1_300)).toBe(8_390);
    expect(invocationWallMs(0, 300)).toBe(300);
  });
});
