import { isLabelled, LABEL_GAP, labelEvery, windowFor } from '../../../console/chart-scale';

const HOUR = 3_600_000;

describe('chart geometry', () => {
  it('asks for exactly the buckets of the range, the current one last', () => {
    const now = Date.parse('2026-11-22T13:25:40Z');
    expect(windowFor('24h', now)).toEqual({ since: '2026-11-21T14:00:00.000Z', bucket: '1h' });
    expect(windowFor('1h', now)).toEqual({ since: '2026-11-22T12:30:00.000Z', bucket: '5m' });
    expect(windowFor('7d', now)).toEqual({ since: '2026-11-16T00:00:00.000Z', bucket: '1d' });
    // As the API counts them (stats.ts: from since, aligned down, up to now).
    const { since } = windowFor('24h', now);
    expect(Math.ceil((now - Date.parse(since!)) / HOUR)).toBe(24);
  });

  it('spaces labels by round steps wide enough for the label and a gap', () => {
    expect(labelEvery(60, 40)).toBe(1);
    expect(labelEvery(12, 50)).toBe(6);
    expect(labelEvery(20, 50)).toBe(3);
    for (const step of [3, 7, 11.5, 19, 26, 80])
      expect(labelEvery(step, 48) * step).toBeGreaterThanOrEqual(48 + LABEL_GAP);
  });

  it('puts labels on round local times', () => {
    const starts = Array.from({ length: 24 }, (_, i) => Date.parse('2026-11-22T00:00:00Z') + i * HOUR);
    const labelled = starts.filter((s) => isLabelled(s, 3_600, 6));
    expect(labelled).toHaveLength(4);
    for (const s of labelled) expect(new Date(s).getHours() % 6).toBe(0);
  });
});
