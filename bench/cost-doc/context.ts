/** What docs/cost.md is rendered from: one bench run's figures, the model on them, and what the sections share. */

import { ATTEMPTS_PER_CHAIN } from '../../lambdas/core/constants';
import { type AllInCost, type AllInInputs, allInProfile, costProfile, type ScenarioKey } from '../all-in';
import { ASSUMPTIONS, allInInputs, FIXED, figuresFrom, fixedKmsCost, kmsCallsFrom } from '../cost-inputs';
import {
  type Alternative,
  type Assumptions,
  alternatives,
  type FixedCost,
  fixedCost,
  SCENARIOS,
  type ScenarioCost,
  scenarioCost,
} from '../cost-model';
import type { Prices } from '../prices';
import type { BenchResults } from '../support/results';
import { type Lever, levers } from './levers';

export interface CostDocInputs {
  results: BenchResults;
  /** `startedAt` of the run committed as bench/baseline-figures.json. */
  baselineRun: string;
  prices: Prices;
}

export function costDocOf({ results, baselineRun, prices }: CostDocInputs) {
  const figures = figuresFrom(results);
  const a: Assumptions = ASSUMPTIONS;
  const allIn: AllInInputs = allInInputs(figures, results, prices);
  const costsWith = (x: Assumptions): ScenarioCost[] =>
    SCENARIOS.map((s) => scenarioCost(s, figures, prices, x));
  return {
    results,
    baselineRun,
    prices,
    figures,
    a,
    fixedInputs: FIXED,
    fixed: fixedCost(FIXED, prices),
    /** The fixed cost with `secretStore: 'kms'`, and the KMS calls counted for it. */
    fixedKms: fixedKmsCost(results, prices),
    kmsCalls: kmsCallsFrom(results),
    allInInputs: allIn,
    /** One per scenario, in the order of {@link SCENARIOS}. */
    costs: costsWith(a),
    levers: levers(a).map((l): Lever & { costs: ScenarioCost[] } => ({ ...l, costs: costsWith(l.a) })),
    alts: alternatives(prices, ATTEMPTS_PER_CHAIN) as Alternative[],
    /** Each profile's scenarios, all-in at the stated traffic. */
    allIn: {
      defaults: allInProfile(costProfile('defaults', a), allIn),
      lean: allInProfile(costProfile('lean', a), allIn),
    } as Record<'defaults' | 'lean', Record<ScenarioKey, AllInCost>>,
  };
}

export type CostDoc = ReturnType<typeof costDocOf>;

/** The lines of a fixed cost that keep connection secrets (Secrets Manager or KMS). */
export const secretsOf = (f: FixedCost) =>
  f.lines.filter((l) => /^(Secrets Manager|GetSecretValue|KMS)/.test(l.item));

export const secretsCost = (f: FixedCost) => secretsOf(f).reduce((s, l) => s + l.perMonth, 0);
