/**
 * `npm run cost`: the cost model (bench/cost-model.ts) on measured figures; writes docs/cost.md.
 *
 *   npm run cost                    # figures: bench-results/latest.json, else bench/baseline-figures.json
 *   npm run cost -- --json          # the scenarios and fixed costs as JSON on stdout (writes nothing)
 *   npm run cost -- --check         # exit 1 if docs/cost.md is not what the figures give
 *   npm run cost -- --save-baseline # copy bench-results/latest.json to bench/baseline-figures.json first
 * A quick or partial bench run is never used (the committed baseline is); bench/cost-doc/ writes the document.
 */

import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { allInProfile, costProfile } from './all-in';
import { costDoc } from './cost-doc';
import { money } from './cost-doc/format';
import {
  ASSUMPTIONS,
  allInInputs,
  BASELINE,
  complete,
  FIXED,
  figuresFrom,
  fixedKmsCost,
  LATEST,
  loadResults,
  ROOT,
} from './cost-inputs';
import {
  type Assumptions,
  type Figures,
  type FixedCost,
  fixedCost,
  SCENARIOS,
  scenarioCost,
} from './cost-model';
import { PRICES, type Prices } from './prices';
import type { BenchResults } from './support/results';

const DOC = join(ROOT, 'docs', 'cost.md');

type Priced = { perMillion: number; lines: Array<{ item: string; perMillion: number }> };
type Monthly = { perMonth: number; lines: Array<{ item: string; perMonth: number }> };

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const rounded = (c: Priced): Priced => ({
  perMillion: r4(c.perMillion),
  lines: c.lines.map((l) => ({ item: l.item, perMillion: r4(l.perMillion) })),
});
const monthly = (f: FixedCost): Monthly => ({
  perMonth: r4(f.perMonth),
  lines: f.lines.map((l) => ({ item: l.item, perMonth: r4(l.perMonth) })),
});

export interface CostReport {
  /** Each profile's scenarios, all-in at the stated traffic. */
  allIn: {
    traffic: { eventsPerSecond: number; connections: number };
    profiles: Record<'defaults' | 'lean', Record<string, Priced>>;
  };
  scenarios: Record<string, Priced>;
  /** With `withKmsSecretStore`: the same with `secretStore: 'kms'` (docs/design.md §5 "The KMS secret store"). */
  fixedPerThousandConnections: Monthly & { withKmsSecretStore: Monthly };
}

/** `npm run cost -- --json`: the kms store's fixed cost and the all-in from the run's counted calls when given. */
export function costReport(
  figures: Figures,
  results?: BenchResults,
  a: Assumptions = ASSUMPTIONS,
  prices: Prices = PRICES,
): CostReport {
  const allIn = allInInputs(figures, results, prices);
  const profile = (name: 'defaults' | 'lean') =>
    Object.fromEntries(
      Object.entries(allInProfile(costProfile(name, a), allIn)).map(([key, c]) => [key, rounded(c)]),
    );
  return {
    allIn: {
      traffic: { ...allIn.traffic },
      profiles: { defaults: profile('defaults'), lean: profile('lean') },
    },
    scenarios: Object.fromEntries(
      SCENARIOS.map((s) => [s.key, rounded(scenarioCost(s, figures, prices, a))]),
    ),
    fixedPerThousandConnections: {
      ...monthly(fixedCost(FIXED, prices)),
      withKmsSecretStore: monthly(fixedKmsCost(results, prices)),
    },
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'save-baseline': { type: 'boolean', default: false },
    },
  });
  if (values['save-baseline']) {
    const latest = JSON.parse(readFileSync(LATEST, 'utf8')) as BenchResults;
    if (!complete(latest))
      throw new Error('bench-results/latest.json is a quick or partial run: run `npm run bench` first');
    copyFileSync(LATEST, BASELINE);
    console.log('Copied bench-results/latest.json to bench/baseline-figures.json');
  }
  const { results, file } = loadResults();
  const figures = figuresFrom(results);
  const report = costReport(figures, results);
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchResults;
  const doc = costDoc({ results, baselineRun: baseline.startedAt, prices: PRICES });
  const where = relative(ROOT, file);
  if (values.check) {
    if ((existsSync(DOC) ? readFileSync(DOC, 'utf8') : '') !== doc) {
      console.error(`docs/cost.md is out of date with ${where}: run \`npm run cost\` and commit it.`);
      process.exit(1);
    }
    console.log(`docs/cost.md is up to date with ${where}.`);
    return;
  }
  writeFileSync(DOC, doc);
  const { allIn, fixedPerThousandConnections: fixed } = report;
  for (const [name, p] of Object.entries(allIn.profiles))
    console.log(
      `all-in, ${name}: ${Object.entries(p)
        .map(([key, s]) => `${key} ${money(s.perMillion)}`)
        .join(', ')} per million`,
    );
  console.log(
    `fixed: ${money(fixed.perMonth)} a month per 1,000 connections (${money(fixed.withKmsSecretStore.perMonth)} with secretStore: 'kms')`,
  );
  console.log(`Wrote docs/cost.md from ${where}.`);
}

if (require.main === module) main();

/** What the report's readers and tests need, from this one module (test/unit/bench-imports.test.ts). */
export { FIXED, figuresFrom, loadResults, OBSERVABILITY } from './cost-inputs';
