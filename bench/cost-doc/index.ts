/** docs/cost.md, section by section, in the order the document reads (context.ts: what they share). */

import { type CostDoc, type CostDocInputs, costDocOf } from './context';
import { fixedCosts, inputs, keptBodies, pricesAndSources, provisionedWrites, rateLimits } from './details';
import { allInKeeps, allInLines, allInSummary, intro, leversPriced, summary } from './overview';
import { recoveryProbes } from './probes';

const SECTIONS: ReadonlyArray<(doc: CostDoc) => string> = [
  intro,
  summary,
  allInSummary,
  allInKeeps,
  allInLines,
  leversPriced,
  provisionedWrites,
  inputs,
  rateLimits,
  recoveryProbes,
  keptBodies,
  fixedCosts,
  pricesAndSources,
];

/** The document: its sections, a blank line between each. */
export function costDoc(inputs: CostDocInputs): string {
  const doc = costDocOf(inputs);
  return `${SECTIONS.map((section) => section(doc)).join('\n\n')}\n`;
}
