/** What docs/cost.md is rendered from: the inputs bench/cost.ts gives, and what every section derives from them. */

import { ATTEMPTS_PER_CHAIN } from '../../lambdas/core/constants';
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

/** What the kms secret store calls, counted by the bench (`apiCallsKms`). */
export interface KmsCalls {
  decryptsPerSecretRead: number;
  decryptsPerDelivery: number;
  encryptsPerConnection: number;
}

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
}

export interface CostDoc extends CostDocInputs {
  /** One per scenario, in the order of {@link SCENARIOS}. */
  costs: ScenarioCost[];
  /** Each lever with the scenarios' costs under it. */
  levers: Array<Lever & { costs: ScenarioCost[] }>;
  alts: Alternative[];
}

export function costDocOf(inputs: CostDocInputs): CostDoc {
  const { figures, prices, a } = inputs;
  const costsWith = (assumptions: Assumptions) =>
    SCENARIOS.map((s) => scenarioCost(s, figures, prices, assumptions));
  return {
    ...inputs,
    costs: costsWith(a),
    alts: alternatives(prices, ATTEMPTS_PER_CHAIN),
    levers: levers(a).map((l) => ({ ...l, costs: costsWith(l.a) })),
  };
}

/** The lines of a fixed cost that keep connection secrets (Secrets Manager or KMS). */
export const secretsOf = (f: FixedCost) =>
  f.lines.filter((l) => /Secrets Manager|GetSecretValue|KMS/.test(l.item));

export const secretsCost = (f: FixedCost) => secretsOf(f).reduce((s, l) => s + l.perMonth, 0);
