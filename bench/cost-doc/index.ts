/**
 * docs/cost.md, section by section: each section a function of the same figures
 * (context.ts), in the order the document reads.
 */

import { allInKeeps, allInLines, allInSummary, allInTargets } from './all-in';
import { keptBodies } from './bodies';
import { breakdown, modelInputs } from './breakdown';
import { type CostDoc, type CostDocInputs, costDocOf } from './context';
import { fixedCosts, optionsCompared, pricesAndSources } from './fixed';
import { apiCalls, batchFill, rateLimits, receiverLatency, scenarios, sqsRequests } from './measured';
import { intro, leversPriced, summary, targets } from './overview';

const SECTIONS: ReadonlyArray<(doc: CostDoc) => string> = [
  intro,
  summary,
  allInSummary,
  allInTargets,
  allInKeeps,
  allInLines,
  targets,
  leversPriced,
  scenarios,
  apiCalls,
  sqsRequests,
  batchFill,
  receiverLatency,
  rateLimits,
  keptBodies,
  breakdown,
  modelInputs,
  fixedCosts,
  optionsCompared,
  pricesAndSources,
];

/** The document: its sections, a blank line between each. */
export function costDoc(inputs: CostDocInputs): string {
  const doc = costDocOf(inputs);
  return `${SECTIONS.map((section) => section(doc)).join('\n\n')}\n`;
}
