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
});

describe('figures from a bench run', () => {
  it("counts an exhausted delivery's parked item and index entry, and each counted write beyond the items once", () => {
    const { results } = loadResults();
    const volume = structuredClone(results.volume!);
    const failing = volume.deliveries.failing;
    failing.itemBytes = [700, 700, 700, 800];
    failing.indexWriteUnits = 1;
    failing.parked = { itemBytes: 1_100, indexBytes: 300, writeUnits: 3 };
    failing.writeUnits = 4 + 1 + 3;
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
    expect(kind.indexItems).toBe(2);
    expect(kind.indexBytes).toBe(800 + 300);
    expect(kind.dynamoWrites).toBe(6);
    expect(kind.writeUnits).toBe(8 + 1);
  });
});
