/** `npm run cost` (bench/cost.ts): the model's inputs from a bench run, and the JSON report. */

import { costReport, figuresFrom, loadResults } from '../../bench/cost';

describe('npm run cost -- --json', () => {
  it('reports the four scenarios and the fixed costs, each total the sum of its lines', () => {
    const report = costReport(figuresFrom(loadResults().results));
    expect(Object.keys(report.scenarios).sort()).toEqual([
      'failing10',
      'hanging1',
      'healthy',
      'healthyBatched',
    ]);
    for (const s of Object.values(report.scenarios)) {
      expect(s.lines.length).toBeGreaterThan(5);
      expect(s.perMillion).toBeCloseTo(
        s.lines.reduce((sum, l) => sum + l.perMillion, 0),
        2,
      );
    }
    expect(report.fixedPerThousandConnections.perMonth).toBeGreaterThan(400);
  });

  it('reports "allIn" for the defaults and the lean profile at 100 events/s and 1,000 connections', () => {
    const { results } = loadResults();
    const figures = figuresFrom(results);
    const { allIn } = costReport(figures, results);
    expect(allIn.traffic).toEqual({ eventsPerSecond: 100, connections: 1_000 });
    expect(Object.keys(allIn.profiles)).toEqual(['defaults', 'lean']);
    for (const profile of Object.values(allIn.profiles)) {
      expect(Object.keys(profile)).toEqual(['healthy', 'healthyBatched', 'failing10', 'hanging1']);
      for (const s of Object.values(profile)) {
        expect(s.perMillion).toBeCloseTo(
          s.lines.reduce((sum, l) => sum + l.perMillion, 0),
          2,
        );
        for (const l of s.lines) expect(Object.keys(l)).toEqual(['item', 'perMillion']);
      }
    }
    const items = (p: 'defaults' | 'lean') => allIn.profiles[p].healthy!.lines.map((l) => l.item).join('\n');
    expect(items('defaults')).toMatch(/^Secrets Manager: one secret per connection \(1000\)/m);
    expect(items('defaults')).toMatch(/^Secrets Manager: the stack's other secrets/m);
    expect(items('lean')).toMatch(/^KMS Decrypt/m);
    // $400 a month of secrets over 259.2 million deliveries: $1.54 a million, in the defaults only.
    const secrets = allIn.profiles.defaults.healthy!.lines.find((l) =>
      l.item.startsWith('Secrets Manager: one secret'),
    );
    expect(secrets?.perMillion).toBeCloseTo(400 / 259.2, 3);
    expect(allIn.profiles.lean.healthy!.perMillion).toBeLessThan(
      allIn.profiles.defaults.healthy!.perMillion - 1.5,
    );
  });
});

describe('figures from a bench run', () => {
  it("counts an exhausted delivery's parked item and index entry, and each counted write beyond the items once", () => {
    const { results } = loadResults();
    const volume = structuredClone(results.volume!);
    const failing = volume.deliveries.failing;
    failing.itemBytes = [700, 700, 700, 800];
    // Four by-time entries and the final failure's entry.
    failing.indexEntryBytes = [500, 500, 500, 600, 800];
    failing.indexWriteUnits = 5;
    failing.parked = { itemBytes: 1_100, indexBytes: 300, writeUnits: 3 };
    failing.writeUnits = 4 + 5 + 3;
    const apiCalls = structuredClone(results.apiCalls!);
    // Per delivery: 4 attempt items, the parked item, and one health update.
    apiCalls.phases.failing.deliveries = 1;
    apiCalls.phases.failing.calls = {
      'dynamodb:PutItem:attempts': 4,
      'dynamodb:PutItem:parked': 1,
      'dynamodb:UpdateItem:connections': 1,
    };
    const kind = figuresFrom({ ...results, volume, apiCalls }).kinds.failing;
    expect(kind.items).toBe(5);
    expect(kind.itemBytes).toBe(700 * 3 + 800 + 1_100);
    expect(kind.indexItems).toBe(6);
    expect(kind.indexBytes).toBe(500 * 3 + 600 + 800 + 300);
    expect(kind.dynamoWrites).toBe(6);
    expect(kind.writeUnits).toBe(12 + 1);
  });
});
