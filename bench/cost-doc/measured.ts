/**
 * The sections of docs/cost.md on what the model is fed: the scenarios, the API calls counted
 * per delivery, the batch fill as traffic changes, and the receiver latency.
 */

import { ATTEMPTS_PER_CHAIN } from '../../lambdas/core/constants';
import {
  expectedSlowestMs,
  KINDS,
  SCENARIOS,
  SQS_EVENT_SOURCE_POLLERS,
  scenarioCost,
  sqsRequestsPerDelivery,
} from '../cost-model';
import type { CostDoc } from './context';
import { money, num, table } from './format';

export function scenarios({ results }: CostDoc): string {
  const parkedLine = (['failing', 'hanging'] as const)
    .map((k) => {
      const p = results.volume!.deliveries[k].parked;
      return p
        ? `${k}: a ${num(p.itemBytes)} B item and a ${num(p.indexBytes)} B index entry, ${num(p.writeUnits)} write units`
        : `${k}: not measured (a bench run from before parking)`;
    })
    .join('; ');
  return `## Scenarios

${SCENARIOS.map((s) => `- **${s.name}** (\`${s.key}\`): ${s.description}.`).join('\n')}

A delivery is one event for one connection (no fan-out). A failing or hanging receiver gets
the whole chain: ${ATTEMPTS_PER_CHAIN} attempts (after 1 s, 2 s, 4 s), then it is parked (docs/design.md §9).
Parking is in the figures: the bench parks for real (the production parked store on dynalite)
and sizes what it stored, ${parkedLine}; the connection's health update
and the dispatcher's other writes are counted at the emulators (below).`;
}

export function apiCalls({ results, figures }: CostDoc): string {
  const api = results.apiCalls!;
  const kf = figures.kinds;
  const callRows = (['healthy', 'healthyBatched', 'failing'] as const).map((name) => {
    const p = api.phases[name];
    return [
      name,
      num(p.deliveries),
      num(p.attempts),
      Object.entries(p.calls)
        .map(([k, n]) => `${k} ${num(n)}`)
        .join('<br>'),
      `${num(p.receivesWithMessages)} (${num(p.messagesReceived)} messages)`,
      num(p.emptyReceives),
      `${num(p.wireBytesOut / p.attempts)} B`,
    ];
  });
  return `## Counted, not assumed: API calls per delivery

\`npm run bench\` (measurement \`apiCalls\`, bench/api-calls.ts) runs local mode's emulators behind
counting proxies and the receiver behind a byte-counting TCP proxy, with the production wiring of
the dispatcher under the local event-source runner, after a warm-up that fills the connection and
secret caches as a warm Lambda container has them. What reached the emulators and the receiver:

${table(
  [
    'phase',
    'deliveries',
    'attempts',
    'calls at the emulators',
    'receives with messages',
    'empty long polls',
    'wire bytes out per attempt',
  ],
  callRows,
)}

Warm-up (connection creation and the first reads, not per delivery): ${Object.entries(api.warmUp)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}.

From these the model takes, per delivery: publish requests ${num(figures.publishRequests.single)} (one per event) and
${num(figures.publishRequests.batched)} (batches of 10); dispatcher sends (retries, dead letter) ${KINDS.map((k) => `${k} ${num(kf[k].sqsSends)}`).join(', ')};
DynamoDB write requests ${KINDS.map((k) => `${k} ${num(kf[k].dynamoWrites)}`).join(', ')}; reads and Secrets Manager calls
past the caches ${num(kf.healthy.readUnits * 2)} and ${num(kf.healthy.secretCalls)} per healthy delivery; ${num(figures.deletesPerBatch)} DeleteMessageBatch per batch.
Receives and deletes are per batch: their cost per delivery follows the batch fill below. The
empty long polls of the local runner are idle polling, priced as a fixed cost. A hanging chain
is counted as the failing one (same calls; its 4 × 30 s are not run). The SNS \`Publish\` in the
failing phase is a health transition (the connection turned failing): once per change of a
connection's state, not per delivery, so it is left out of the per-delivery price (SNS charges
$0.50 per million publishes).`;
}

export function sqsRequests({ figures, a, costs }: CostDoc): string {
  const sqsRows = KINDS.map((k) => {
    const r = sqsRequestsPerDelivery(k, figures, a, costs[0]!.lambda.fill);
    return [k, num(r.publish), num(r.receive), num(r.delete), num(r.sends), `**${num(r.total)}**`];
  });
  return `### SQS requests per delivery (at the scenarios' batch fill)

${table(['delivery', 'publish', 'receive', 'delete', 'retry + dead-letter sends', 'total'], sqsRows)}`;
}

export function batchFill({ a, figures, prices }: CostDoc): string {
  const healthy = SCENARIOS[0]!;
  const fillRows = [1, 10, 50, 100, 500, 1_000, 5_000].map((eps) => {
    const at = { ...a, eventsPerSecond: eps };
    const win = { ...a, eventsPerSecond: eps, batchingWindowS: 1 };
    const c0 = scenarioCost(healthy, figures, prices, at);
    const c1 = scenarioCost(healthy, figures, prices, win);
    return [
      num(eps),
      num(c0.lambda.fill, 2),
      money(c0.perMillion),
      num(c1.lambda.fill, 2),
      money(c1.perMillion),
    ];
  });
  return `## Batch fill as a function of traffic

Each of the event source's ${SQS_EVENT_SOURCE_POLLERS} pollers (AWS Lambda developer guide, "Configuring scaling
behavior for SQS event source mappings": five batches at a time) takes what arrived during its
last cycle (the invocation plus the batching window): at least one message, at most the batch
size. Healthy deliveries, one event per SendMessage:

${table(
  [
    'events/s',
    'messages per batch (no window)',
    'per million',
    'messages per batch (window 1 s)',
    'per million',
  ],
  fillRows,
)}`;
}

export function receiverLatency({ a }: CostDoc): string {
  const latencyRows = [1, 2, 5, 10, 20, 50, 100].map((n) => [
    num(n),
    `${num(expectedSlowestMs(a.latency, n, a.attemptTimeoutMs))} ms`,
  ]);
  return `## Receiver latency

Log-normal, median ${a.latency.medianMs} ms, 99th percentile ${a.latency.p99Ms} ms, cut at the ${a.attemptTimeoutMs / 1000} s attempt deadline.
The attempts of a batch run at once, so an invocation waits for the slowest of them:

${table(['attempts in the batch', 'expected slowest'], latencyRows)}

\`npm run bench\` checks that a real batch meets this physical limit (performance.md, "batch time").`;
}

/**
 * What a per-connection rate limit adds (docs/design.md §4 "Rate limits"), from the burst benchmark
 * (bench/rate-limit.ts): nothing for an unlimited connection, one counter write per send and a
 * delayed message per deferral for a limited one.
 */
export function rateLimits({ results, prices }: CostDoc): string {
  const rl = results.rateLimit;
  const perDeferral = prices.dynamoDbPerMillionWriteUnits + 3 * prices.sqsPerMillionRequests;
  const perSecondWaited = 0.25 * prices.lambdaArmPerGbSecond * 1_000_000;
  const head = `## Rate limits

A connection **without a limit** never reaches the rate-limit table and never waits: it adds
nothing. A connection **with a limit** adds one DynamoDB write per send (the counter's \`ADD\`,
${money(prices.dynamoDbPerMillionWriteUnits)} a million); per deferral one more write, one SendMessage and its share of a
ReceiveMessage and a DeleteMessageBatch (counted here at one of each, the dearest case):
${money(perDeferral)} a million deferrals (their log line is DEBUG, so nothing at the default level); and the
Lambda time its sends wait for their slot in the second (each goes \`(c − 1) / limit\` s into
its second, decisions.md D35): ${money(perSecondWaited)} per million deliveries for each second waited at the
dispatcher's default 256 MB, counted as each batch's time with a delivery waiting (a batch's
waits overlap). Deferrals per delivery depend on how far a burst exceeds the limit and how many
batches poll meanwhile: each waiting delivery is aimed at the second its place fits, and waits
again when that second is full.`;
  if (!rl) return `${head}\n\nNot measured in the figures this document was made from.`;
  return `${head}

Measured (bench/rate-limit.ts, ${num(rl.events)} events to one connection limited to
${num(rl.limit)}/s, ${num(rl.pollers)} pollers per queue, local mode):

${table(
  [
    '',
    'counter writes / delivery',
    'deferrals / delivery',
    'billed wait / delivery',
    'log bytes / delivery',
    'added per million deliveries',
  ],
  [
    [
      `limited (${num(rl.limit)}/s)`,
      num(rl.counterWritesPerDelivery),
      num(rl.deferralsPerDelivery),
      rl.waitMsPerDelivery === undefined ? 'not measured' : `${num(rl.waitMsPerDelivery)} ms`,
      num(rl.logBytesPerDelivery),
      money(rl.addedCostPerMillion),
    ],
    [
      'unlimited',
      num(rl.unlimited.counterWrites / rl.unlimited.events),
      '0',
      rl.unlimited.waitMs === undefined
        ? 'not measured'
        : `${num(rl.unlimited.waitMs / rl.unlimited.events)} ms`,
      num(rl.unlimited.logBytesPerDelivery),
      money(rl.unlimited.addedCostPerMillion),
    ],
  ],
)}`;
}
