/** What docs/cost.md is rendered from: the inputs bench/cost.ts gives, and what every section derives from them. */

import { ATTEMPTS_PER_CHAIN } from '../../lambdas/core/constants';
import {
  type AllInCost,
  type AllInInputs,
  allInProfile,
  costProfile,
  type ScenarioKey,
  type Traffic,
} from '../all-in';
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
  /** The all-in model's inputs (bench/all-in.ts). */
  allInInputs: AllInInputs;
}

export interface CostDoc extends CostDocInputs {
  /** One per scenario, in the order of {@link SCENARIOS}. */
  costs: ScenarioCost[];
  /** Each lever with the scenarios' costs under it. */
  levers: Array<Lever & { costs: ScenarioCost[] }>;
  alts: Alternative[];
  /** Each profile's scenarios, all-in at the stated traffic. */
  allIn: { traffic: Traffic; profiles: Record<'defaults' | 'lean', Record<ScenarioKey, AllInCost>> };
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
    allIn: {
      traffic: inputs.allInInputs.traffic,
      profiles: {
        defaults: allInProfile(costProfile('defaults', a), inputs.allInInputs),
        lean: allInProfile(costProfile('lean', a), inputs.allInInputs),
      },
    },
  };
}

/** The lines of a fixed cost that keep connection secrets (Secrets Manager or KMS). */
export const secretsOf = (f: FixedCost) =>
  f.lines.filter((l) => /Secrets Manager|GetSecretValue|KMS/.test(l.item));

export const secretsCost = (f: FixedCost) => secretsOf(f).reduce((s, l) => s + l.perMonth, 0);
