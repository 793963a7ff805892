/** The parts of the cost model the billed benchmark checks (bench/cost-model.ts): the keep-alive model. */

import { invocationWallMs, newConnectionShare } from '../../../bench/cost-model';

describe('the keep-alive model: share of attempts opening a new TLS connection', () => {
  it('is e^(−rate × idle) per origin and container: 86 % at 100 events/s, 1,000 connections, 10 s, 6.6 containers', () => {
    const share = newConnectionShare(100, 1_000, 6.6, [{ seconds: 10, share: 1 }]);
    expect(share).toBeCloseTo(Math.exp(-1 / 6.6), 9);
    expect(share).toBeCloseTo(0.86, 2);
  });

  it('weights each class of receiver idle timeout by its share', () => {
    const share = newConnectionShare(100, 200, 5, [
      { seconds: 4, share: 2 },
      { seconds: 10, share: 3 },
    ]);
    expect(share).toBeCloseTo(0.4 * Math.exp(-0.4) + 0.6 * Math.exp(-1), 9);
  });

  it('opens fewer new connections the denser the traffic per origin', () => {
    const idle = [{ seconds: 10, share: 1 }];
    expect(newConnectionShare(1_000, 1_000, 5, idle)).toBeLessThan(newConnectionShare(100, 1_000, 5, idle));
  });
});

describe("an invocation's wall time from its CPU and its wait (D42, D43)", () => {
  it('is the longer of the two plus the serial share of the shorter', () => {
    expect(invocationWallMs(100, 500)).toBe(530);
    expect(invocationWallMs(8_000, 1_300)).toBe(8_390);
    expect(invocationWallMs(0, 300)).toBe(300);
  });
});
