import {
  batchTimeRatios,
  billedMs,
  drawKeepAliveS,
  gbSecondsPerMillion,
  RECEIVER_KEEP_ALIVE,
  senderIdleS,
} from '../../../bench/billed/arithmetic';

describe('what Lambda bills', () => {
  it('rounds each invocation up to the next millisecond', () => {
    expect(billedMs(101.2)).toBe(102);
    expect(billedMs(100)).toBe(100);
    expect(billedMs(0.3)).toBe(1);
  });

  it('gives GB-seconds per million deliveries from billed durations and memory', () => {
    // Two invocations of 10 deliveries, 500.1 ms and 299.5 ms billed as 501 + 300 ms, at 256 MB.
    const perMillion = gbSecondsPerMillion([500.1, 299.5], 256, 20);
    expect(perMillion).toBeCloseTo((0.801 * 0.25 * 1_000_000) / 20, 6);
    expect(() => gbSecondsPerMillion([1], 256, 0)).toThrow(RangeError);
  });
});

describe('batch wall time ÷ the slowest receiver', () => {
  it('weights by time for the headline ratio, and gives the per-batch median, p90 and worst', () => {
    const r = batchTimeRatios([
      { wallMs: 110, slowestMs: 100 },
      { wallMs: 1_000, slowestMs: 1_000 },
      { wallMs: 60, slowestMs: 20 },
    ]);
    expect(r.ratio).toBeCloseTo(1_170 / 1_120, 3);
    expect(r).toMatchObject({ median: 1.1, p90: 3, max: 3 });
  });

  it('skips batches without a receiver latency and refuses a run with none', () => {
    expect(
      batchTimeRatios([
        { wallMs: 50, slowestMs: 0 },
        { wallMs: 20, slowestMs: 10 },
      ]).ratio,
    ).toBe(2);
    expect(() => batchTimeRatios([{ wallMs: 50, slowestMs: 0 }])).toThrow(RangeError);
  });
});

describe("the receivers' keep-alive", () => {
  it('draws each documented timeout at its share', () => {
    expect(RECEIVER_KEEP_ALIVE.reduce((s, k) => s + k.share, 0)).toBeCloseTo(1, 9);
    expect(drawKeepAliveS(0)).toBe(5);
    expect(drawKeepAliveS(0.399)).toBe(5);
    expect(drawKeepAliveS(0.4)).toBe(60);
    expect(drawKeepAliveS(0.76)).toBe(75);
    expect(drawKeepAliveS(0.999_999)).toBe(75);
  });

  it("is the sender's 10 s, or a second under the receiver's shorter hint", () => {
    expect(senderIdleS(60)).toBe(10);
    expect(senderIdleS(5)).toBe(4);
  });
});
