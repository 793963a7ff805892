/** docs/cost.md's line for keeping request bodies (issue 23, docs/design.md §5 "The request is kept"). */

import { measureBodyStorage } from '../body-storage';
import { SCENARIOS } from '../cost-model';
import type { CostDoc } from './context';
import { money, num, table } from './format';

/** The share of first attempts that fail in the "10% failing" scenario: the deliveries `failures` keeps. */
export function failingShare(): number {
  const s = SCENARIOS.find((x) => x.key === 'failing10');
  if (!s) throw new Error('cost doc: no failing10 scenario');
  return s.mix.failing + s.mix.hanging;
}

export function keptBodies({ a, prices }: CostDoc): string {
  const figures = measureBodyStorage(a.ttlDaysSuccess);
  const share = failingShare();
  const perGbMonth = prices.dynamoDbStoragePerGbMonth + (a.pitr ? prices.dynamoDbPitrPerGbMonth : 0);
  const cost = (wcu: number, gbMonth: number) =>
    (wcu / 1_000_000) * prices.dynamoDbPerMillionWriteUnits + gbMonth * perGbMonth;
  const rows = Object.entries(figures.cases).map(([size, k]) => {
    const { addedWriteUnits: wcu, addedGbMonth: gb } = k.perMillion;
    const failedWcu = k.perMillionFailed.addedWriteUnits * share;
    const failedGb = k.perMillionFailed.addedGbMonth * share;
    return [
      size,
      `${num(k.rawBytes)} → ${num(k.storedBytes)} (${k.ratio})`,
      `${k.writeUnits.firstWithoutBody} → ${k.writeUnits.firstWithBody}`,
      `${k.failedWriteUnits.firstWithoutBody} → ${k.failedWriteUnits.firstWithBody}`,
      `+${num(wcu)} WCU, +${num(gb)} GB-month: ${money(cost(wcu, gb))}`,
      `+${num(failedWcu)} WCU, +${num(failedGb)} GB-month: ${money(cost(failedWcu, failedGb))}`,
    ];
  });
  return `## Keeping request bodies

The body of each delivery is kept once, raw-deflated on its first attempt's record (D37 in
docs/decisions.md). What that adds per million deliveries, measured by
\`npm run bench -- --only bodyStorage\` (the user.identified payload with the fixtures' small
metadata, a typical profile, and the 100 keys a payload may carry) and kept for the
${a.ttlDaysSuccess}-day retention (storage${a.pitr ? ' and PITR' : ''} at ${money(perGbMonth)} per GB-month). With
\`keepBodies: 'failures'\` only deliveries whose first attempt failed keep it: counted here at the
"10% failing" scenario's ${num(share * 100)}%, each a failed first attempt (HTTP 503 with an HTML
error page, whose 1 KiB snippet the record keeps). Later attempts write the same either way.

${table(
  [
    'metadata',
    'body bytes, raw → stored',
    'first attempt WCU, without → with: delivered',
    'failed (503 page)',
    "keepBodies: 'all'",
    "keepBodies: 'failures'",
  ],
  rows,
)}`;
}
