/** What docs/cost.md is rendered from: bench/cost.ts's inputs, and what every section derives from them. */

import { ATTEMPTS_PER_CHAIN } from '../../lambdas/core/constants';
import { type AllInCost, type AllInInputs, allInProfile, costProfile, type ScenarioKey } from '../all-in';
import type { KmsCalls } from '../cost-inputs';
import {
  type Alternative,
  type Assumptions,
  alternatives,
  type Figures,
  type FixedCost,
  type FixedInputs,
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
  figures: Figures;
  /** The stack's defaults the model starts from. */
  a: Assumptions;
  fixedInputs: FixedInputs;
  fixed: FixedCost;
  /** The fixed cost with `secretStore: 'kms'`. */
  fixedKms: FixedCost;
  kmsCalls: KmsCalls | undefined;
  allInInputs: AllInInputs;
}

export interface CostDoc extends CostDocInputs {
  /** One per scenario, in the order of {@link SCENARIOS}. */
  costs: ScenarioCost[];
  /** Each lever with the scenarios' costs under it. */
  levers: Array<Lever & { costs: ScenarioCost[] }>;
  alts: Alternative[];
  /** Each profile's scenarios, all-in at the stated traffic. */
  allIn: Record<'defaults' | 'lean', Record<ScenarioKey, AllInCost>>;
}

export function costDocOf(x: CostDocInputs): CostDoc {
  const costsWith = (a: Assumptions) => SCENARIOS.map((s) => scenarioCost(s, x.figures, x.prices, a));
  return {
    ...x,
    costs: costsWith(x.a),
    alts: alternatives(x.prices, ATTEMPTS_PER_CHAIN),
    levers: levers(x.a).map((l) => ({ ...l, costs: costsWith(l.a) })),
    allIn: {
      defaults: allInProfile(costProfile('defaults', x.a), x.allInInputs),
      lean: allInProfile(costProfile('lean', x.a), x.allInInputs),
    },
  };
}

/** The lines of a fixed cost that keep connection secrets (Secrets Manager or KMS). */
export const secretsOf = (f: FixedCost) =>
  f.lines.filter((l) => /Secrets Manager|GetSecretValue|KMS/.test(l.item));

export const secretsCost = (f: FixedCost) => secretsOf(f).reduce((s, l) => s + l.perMonth, 0);
