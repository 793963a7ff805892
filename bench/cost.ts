/**
 * `npm run cost`: the cost model (bench/cost-model.ts) on measured figures; writes docs/cost.md.
 *
 *   npm run cost                    # figures: bench-results/latest.json, else bench/baseline-figures.json
 *   npm run cost -- --json          # the scenarios and fixed costs as JSON on stdout (writes nothing)
 *   npm run cost -- --check         # exit 1 if docs/cost.md is not what the figures give
 *   npm run cost -- --save-baseline # copy bench-results/latest.json to bench/baseline-figures.json first
 *
 * A quick (`--quick`) or partial bench run is never used: the committed baseline is.
 */

import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_DEFAULTS } from '../lambdas/config';
import { ATTEMPTS_PER_CHAIN } from '../lambdas/core/constants';
import type { PhaseCounts } from './api-calls';
import {
  type Assumptions,
  alternatives,
  type DeliveryKind,
  DYNAMODB_ITEM_OVERHEAD_BYTES,
  defaultAssumptions,
  expectedSlowestMs,
  type Figures,
  type FixedCost,
  type FixedInputs,
  fixedCost,
  KINDS,
  type KindFigures,
  lambdaUsage,
  MB_PER_VCPU,
  SCENARIOS,
  type ScenarioCost,
  SQS_EVENT_SOURCE_POLLERS,
  scenarioCost,
  sqsRequestsPerDelivery,
} from './cost-model';
import { PRICE_SOURCES, PRICES, PRICES_READ_ON, type Prices } from './prices';
import { ATTEMPT_TIMEOUT_MS, BATCH_SIZE, DEFAULT_MEMORY_MB } from './support/constants';
import type { BenchResults } from './support/results';

const ROOT = resolve(__dirname, '..');
const LATEST = join(ROOT, 'bench-results', 'latest.json');
const BASELINE = join(ROOT, 'bench', 'baseline-figures.json');
const DOC = join(ROOT, 'docs', 'cost.md');

/** The stack's defaults the model starts from. */
export const ASSUMPTIONS: Assumptions = {
  ...defaultAssumptions({
    batchSize: BATCH_SIZE,
    memoryMb: DEFAULT_MEMORY_MB,
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    attemptTtlDays: CONFIG_DEFAULTS.attemptTtlDays,
  }),
  connectionCacheS: CONFIG_DEFAULTS.connectionCacheTtlMs / 1000,
};

/** Fixed costs: 1,000 connections, 10 warm containers, the stack's caches, alarms and metric. */
export const FIXED: FixedInputs = {
  connections: 1_000,
  warmContainers: 10,
  secretCacheS: 24 * 3600,
  alarms: 2,
  customMetrics: 1,
  secretStore: 'secrets-manager',
  // Two event source mappings (the ingress and the retry queue), each with its own pollers.
  idlePollers: 2 * SQS_EVENT_SOURCE_POLLERS,
};

const complete = (r: BenchResults) =>
  !r.quick && Boolean(r.volume && r.endToEnd && r.overhead && r.coldStart && r.apiCalls);

/**
 * What the kms secret store calls, counted by the bench (`apiCallsKms`): Decrypts per secret
 * read (the warm-up reads each connection's secret once) and per delivery past the caches.
 */
export function kmsCallsFrom(
  results: BenchResults,
): { decryptsPerSecretRead: number; decryptsPerDelivery: number; encryptsPerConnection: number } | undefined {
  const run = results.apiCallsKms;
  if (!run?.connections) return undefined;
  const phases = Object.values(run.phases);
  const deliveries = phases.reduce((s, p) => s + p.deliveries, 0);
  const decrypts = phases.reduce((s, p) => s + (p.calls['kms:Decrypt'] ?? 0), 0);
  return {
    decryptsPerSecretRead: (run.warmUp['kms:Decrypt'] ?? 0) / run.connections,
    decryptsPerDelivery: deliveries ? decrypts / deliveries : 0,
    encryptsPerConnection: (run.warmUp['kms:Encrypt'] ?? 0) / run.connections,
  };
}

/** The fixed cost with `secretStore: 'kms'`, from the counted KMS calls when the results have them. */
export function fixedKmsCost(results: BenchResults | undefined, prices: Prices = PRICES): FixedCost {
  const calls = results && kmsCallsFrom(results);
  return fixedCost(
    {
      ...FIXED,
      secretStore: 'kms',
      ...(calls ? { kmsDecryptsPerSecretRead: calls.decryptsPerSecretRead } : {}),
    },
    prices,
  );
}

/** The bench results the doc is made from, and which file they came from. */
export function loadResults(): { results: BenchResults; file: string } {
  if (existsSync(LATEST)) {
    const latest = JSON.parse(readFileSync(LATEST, 'utf8')) as BenchResults;
    if (complete(latest)) return { results: latest, file: LATEST };
  }
  return { results: JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchResults, file: BASELINE };
}

const sumCalls = (p: PhaseCounts, test: (key: string) => boolean) =>
  Object.entries(p.calls).reduce((s, [k, n]) => (test(k) ? s + n : s), 0);
const isPublish = (k: string) => /^sqs:SendMessage(Batch)?:[^:]+:event$/.test(k);
const isDispatcherSend = (k: string) => /^sqs:SendMessage(Batch)?:/.test(k) && !isPublish(k);
const isDynamoWrite = (k: string) =>
  /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems):/.test(k);
const isDynamoRead = (k: string) => /^dynamodb:(GetItem|Query|Scan|BatchGetItem):/.test(k);

/** The model's inputs from one bench run: counted calls, measured bytes, measured CPU. */
export function figuresFrom(results: BenchResults): Figures {
  const { volume, endToEnd, apiCalls } = results;
  if (!volume || !endToEnd || !apiCalls)
    throw new Error('the bench results lack the volume, end-to-end or API-call figures');
  const { healthy, healthyBatched, failing } = apiCalls.phases;
  const phases = [healthy, healthyBatched, failing];
  const attempts = phases.reduce((s, p) => s + p.attempts, 0);
  const wireBytesPerAttempt = phases.reduce((s, p) => s + p.wireBytesOut, 0) / attempts;
  const kindOf = (phase: PhaseCounts, v: (typeof volume.deliveries)['delivered']): KindFigures => {
    const per = (n: number) => n / phase.deliveries;
    const writes = per(sumCalls(phase, isDynamoWrite));
    // A parked delivery's item (and its index entry) is one more item the counted writes include.
    const parked = v.parked ? 1 : 0;
    const items = v.itemBytes.length + parked;
    const indexed = v.indexWriteUnits > 0;
    return {
      messages: per(phase.attempts),
      attempts: per(phase.attempts),
      sqsSends: per(sumCalls(phase, isDispatcherSend)),
      dynamoWrites: writes,
      // Write units of the items as sized, plus one per counted write beyond them.
      writeUnits: v.writeUnits + Math.max(0, writes - items),
      readUnits: per(sumCalls(phase, isDynamoRead)) * 0.5,
      secretCalls: per(sumCalls(phase, (k) => k.startsWith('secretsmanager:'))),
      itemBytes: v.itemBytes.reduce((s, b) => s + b, 0) + (v.parked?.itemBytes ?? 0),
      items,
      indexBytes: (indexed ? v.itemBytes.at(-1)! : 0) + (v.parked?.indexBytes ?? 0),
      indexItems: (indexed ? 1 : 0) + parked,
      wireBytesPerAttempt,
      logBytes: v.logBytes,
      logBytesAtDebug: v.logBytesAtDebug,
    };
  };
  const d = volume.deliveries;
  const kinds: Record<DeliveryKind, KindFigures> = {
    healthy: kindOf(healthy, d.delivered),
    failing: kindOf(failing, d.failing),
    // A hanging receiver's chain makes the same calls as a failing one (not run: 4 × 30 s).
    hanging: kindOf(failing, d.hanging),
  };
  const batches = phases.reduce((s, p) => s + p.receivesWithMessages, 0);
  const deletes = phases.reduce((s, p) => s + sumCalls(p, (k) => k.startsWith('sqs:DeleteMessage')), 0);
  const allMessages = [volume.eventMessageBytes, ...Object.values(d).flatMap((x) => x.messageBytes)];
  return {
    cpuMicrosPerDelivery: endToEnd.throughput.cpuMicrosPerDelivery,
    kinds,
    publishRequests: {
      single: sumCalls(healthy, isPublish) / healthy.deliveries,
      batched: sumCalls(healthyBatched, isPublish) / healthyBatched.deliveries,
    },
    receivesPerBatch: 1,
    deletesPerBatch: deletes / batches,
    largestMessageBytes: Math.max(...allMessages),
  };
}

export interface CostReport {
  scenarios: Record<string, { perMillion: number; lines: Array<{ item: string; perMillion: number }> }>;
  fixedPerThousandConnections: {
    perMonth: number;
    lines: Array<{ item: string; perMonth: number }>;
    /** The same with `secretStore: 'kms'` (D28). */
    withKmsSecretStore: { perMonth: number; lines: Array<{ item: string; perMonth: number }> };
  };
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

export function costReport(
  figures: Figures,
  a: Assumptions = ASSUMPTIONS,
  prices: Prices = PRICES,
  /** The fixed cost with the kms secret store (counted calls: {@link fixedKmsCost}). */
  kms: FixedCost = fixedKmsCost(undefined, prices),
): CostReport {
  const costs = SCENARIOS.map((s) => scenarioCost(s, figures, prices, a));
  const fixed = fixedCost(FIXED, prices);
  return {
    scenarios: Object.fromEntries(
      costs.map((c) => [
        c.scenario.key,
        {
          perMillion: r4(c.perMillion),
          lines: c.lines.map((l) => ({ item: l.item, perMillion: r4(l.perMillion) })),
        },
      ]),
    ),
    fixedPerThousandConnections: {
      perMonth: r4(fixed.perMonth),
      lines: fixed.lines.map((l) => ({ item: l.item, perMonth: r4(l.perMonth) })),
      withKmsSecretStore: {
        perMonth: r4(kms.perMonth),
        lines: kms.lines.map((l) => ({ item: l.item, perMonth: r4(l.perMonth) })),
      },
    },
  };
}

/** The levers of issue 15 the model can price, each alone and all together. */
export function levers(): Array<{ name: string; how: string; a: Assumptions; fixed?: Partial<FixedInputs> }> {
  const a = ASSUMPTIONS;
  const window = { ...a, batchingWindowS: 1 };
  const big = { ...a, batchingWindowS: 1, batchSize: 100 };
  const ttl = { ...a, ttlDaysSuccess: 3 };
  const noPitr = { ...a, pitr: false };
  const provisioned = { ...a, writeCapacity: { mode: 'provisioned' as const, utilisation: 0.7 } };
  const slow = { ...a, slowLane: true };
  const small = { ...a, memoryMb: 128 };
  return [
    { name: 'as built', how: 'the stack today', a },
    {
      name: 'batching window 1 s',
      how: 'construct prop `maxBatchingWindow: Duration.seconds(1)`',
      a: window,
    },
    {
      name: 'batch 100 + window 1 s',
      how: 'construct props `batchSize: 100`, `maxBatchingWindow: Duration.seconds(1)`, `batchConcurrency: 100`',
      a: big,
    },
    {
      name: 'memory 128 MB',
      how: 'construct prop `memorySize: 128` today (waiting dominates, not CPU)',
      a: small,
    },
    {
      name: 'successes kept 3 days',
      how: 'construct prop `deliveredAttemptTtl: Duration.days(3)` (a delivery that ever failed keeps `attemptTtl`)',
      a: ttl,
    },
    {
      name: 'no PITR on the attempt log',
      how: 'construct prop `attemptLogPointInTimeRecovery: false`',
      a: noPitr,
    },
    {
      name: 'provisioned writes at 70% use',
      how: 'construct prop `attemptLogCapacity` (auto-scaled, 70 % target)',
      a: provisioned,
    },
    {
      name: 'slow lane for timed-out retries',
      how: 'not built: retries of timed-out attempts on a queue apart from other retries (the retry queue already keeps every retry apart from first attempts)',
      a: slow,
    },
    {
      name: 'every construct prop above',
      how: 'window 1 s, batch 100, 128 MB, 3-day successes, no PITR, provisioned (no slow lane)',
      a: {
        ...big,
        memoryMb: 128,
        ttlDaysSuccess: 3,
        pitr: false,
        writeCapacity: { mode: 'provisioned', utilisation: 0.7 },
      },
    },
    {
      name: 'all of the above',
      how: 'window 1 s, batch 100, 128 MB, 3-day successes, no PITR, provisioned, slow lane',
      a: {
        ...big,
        memoryMb: 128,
        ttlDaysSuccess: 3,
        pitr: false,
        writeCapacity: { mode: 'provisioned', utilisation: 0.7 },
        slowLane: true,
      },
    },
  ];
}

const money = (x: number) =>
  x >= 100 || (x >= 10 && Number.isInteger(x))
    ? `$${Math.round(x).toLocaleString('en-US')}`
    : x >= 0.1
      ? `$${x.toFixed(2)}`
      : x === 0
        ? '$0'
        : `$${x.toPrecision(2)}`;
const num = (x: number, digits = 3) =>
  Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en-US') : Number(x.toPrecision(digits)).toString();
const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

const TARGETS: Array<{ key: string; label: string; limit: number }> = [
  { key: 'healthyBatched', label: 'healthy, upstream publishing in batches', limit: 0.6 },
  { key: 'healthy', label: 'healthy, one event per request', limit: 1.0 },
  { key: 'hanging1', label: '1% of receivers hanging 30 s', limit: 2.5 },
];

/** docs/cost.md for one bench run. */
export function renderCostDoc(results: BenchResults, baselineRun: string, prices: Prices = PRICES): string {
  const figures = figuresFrom(results);
  const a = ASSUMPTIONS;
  const costs = SCENARIOS.map((s) => scenarioCost(s, figures, prices, a));
  const fixed: FixedCost = fixedCost(FIXED, prices);
  const fixedKms = fixedKmsCost(results, prices);
  const kmsCalls = kmsCallsFrom(results);
  const secretsOf = (f: FixedCost) =>
    f.lines.filter((l) => /Secrets Manager|GetSecretValue|KMS/.test(l.item));
  const secretsCost = (f: FixedCost) => secretsOf(f).reduce((s, l) => s + l.perMonth, 0);
  const alts = alternatives(prices, ATTEMPTS_PER_CHAIN);
  const api = results.apiCalls!;
  const parkedOf = (kind: 'failing' | 'hanging') => results.volume!.deliveries[kind].parked;
  const parkedLine = (['failing', 'hanging'] as const)
    .map((k) => {
      const p = parkedOf(k);
      return p
        ? `${k}: a ${num(p.itemBytes)} B item and a ${num(p.indexBytes)} B index entry, ${num(p.writeUnits)} write units`
        : `${k}: not measured (a bench run from before parking)`;
    })
    .join('; ');
  const lv = levers().map((l) => ({
    ...l,
    costs: SCENARIOS.map((s) => scenarioCost(s, figures, prices, l.a)),
  }));
  const best = lv.at(-1)!;
  /** What a user can set on the construct today: every built lever together. */
  const built = lv.find((l) => l.name === 'every construct prop above')!;
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
  const latencyRows = [1, 2, 5, 10, 20, 50, 100].map((n) => [
    num(n),
    `${num(expectedSlowestMs(a.latency, n, a.attemptTimeoutMs))} ms`,
  ]);
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
  const sqsRows = KINDS.map((k) => {
    const r = sqsRequestsPerDelivery(k, figures, a, costs[0]!.lambda.fill);
    return [k, num(r.publish), num(r.receive), num(r.delete), num(r.sends), `**${num(r.total)}**`];
  });
  const kf = figures.kinds;
  const breakdown = (c: ScenarioCost) =>
    table(
      ['line', 'quantity per million deliveries', 'per million'],
      [
        ...c.lines.map((l) => [l.item, `${num(l.quantity)} ${l.unit}`, money(l.perMillion)]),
        ['**total**', '', `**${money(c.perMillion)}**`],
      ],
    );

  return `# Cost per million deliveries

_Generated by \`npm run cost\` (bench/cost.ts, model in bench/cost-model.ts) from measured
figures and the price table in bench/prices.ts. Do not edit by hand: \`npm run cost -- --check\`
fails when this file is not what the figures give. \`npm run cost -- --json\` prints the same
figures as JSON._

Figures: the \`npm run bench\` run of ${results.startedAt} (Node ${results.node}, ${results.machine.cpus} × ${results.machine.model})${results.startedAt === baselineRun ? ', the one committed as `bench/baseline-figures.json`' : `, newer than the committed \`bench/baseline-figures.json\` (${baselineRun})`}; API calls counted at ${api.measuredAt}.
Prices: us-east-1, on demand, first tier, free tiers left out, read on ${PRICES_READ_ON} (sources below).
How each figure is measured: [performance.md](performance.md).

## Summary

Steady traffic of ${num(a.eventsPerSecond)} events/s, the stack's defaults (batch ${a.batchSize}, no batching window,
${a.memoryMb} MB arm64, attempt log kept ${a.ttlDaysSuccess} days with PITR), receivers answering in
${a.latency.medianMs} ms median with a ${a.latency.p99Ms} ms 99th percentile.

${table(
  ['per million deliveries', ...SCENARIOS.map((s) => s.name), 'what it includes'],
  [
    [
      '**this pipeline** (all-in: SQS, Lambda, DynamoDB writes + storage + PITR, logs, data transfer)',
      ...costs.map((c) => `**${money(c.perMillion)}**`),
      'HMAC signing per attempt, 1/2/4 s retries, every attempt logged and queryable for 30 days, DLQ with reason, in your account',
    ],
    ...alts.map((alt) => [alt.name, ...SCENARIOS.map((s) => money(alt.perMillion(s.mix))), alt.includes]),
  ],
)}

Fixed monthly costs are apart ([below](#fixed-monthly-cost-per-1000-connections)): ${money(fixed.perMonth)} a month per
${FIXED.connections.toLocaleString('en-US')} connections for this pipeline (${money(fixedKms.perMonth)} with the construct prop \`secretStore: 'kms'\`);
Hookdeck's Team plan starts at ${money(prices.hookdeckTeamPlanPerMonth)} a month, Svix Professional at ${money(prices.svixProfessionalPlanPerMonth)}.
The EventBridge rows leave out data transfer out and sign nothing; this pipeline's figure includes both.

## Targets of issue 15

${table(
  [
    'target',
    'limit',
    'defaults',
    'with the construct props (built)',
    'with every lever (model)',
    'reached with the props',
  ],
  [
    ...TARGETS.map((t) => {
      const i = SCENARIOS.findIndex((s) => s.key === t.key);
      const now = built.costs[i]!.perMillion;
      return [
        t.label,
        money(t.limit),
        money(costs[i]!.perMillion),
        money(now),
        money(best.costs[i]!.perMillion),
        now <= t.limit ? 'yes' : 'no',
      ];
    }),
    [
      'secrets, per month per 1,000 connections',
      '$5',
      money(secretsCost(fixed)),
      `${money(secretsCost(fixedKms))} (\`secretStore: 'kms'\`)`,
      money(secretsCost(fixedKms)),
      secretsCost(fixedKms) <= 5 ? 'yes' : 'no',
    ],
  ],
)}

### Levers, priced by the model

Each row changes one assumption of the model (the last two several together); "how" names the
construct prop that sets it today, or says it is not built.

${table(
  ['lever', 'how', ...SCENARIOS.map((s) => s.name)],
  lv.map((l) => [l.name, l.how, ...l.costs.map((c) => money(c.perMillion))]),
)}

\`BufferedPublisher\` (serverless-webhooks/publisher), which gathers events into batches of 10, is the
"healthy, batched publish" column. The construct prop \`secretStore: 'kms'\` (D28) takes the secrets lines from ${money(secretsCost(fixed))} to
${money(secretsCost(fixedKms))} a month per 1,000 connections (one key for the stack at its most, after two paid
rotations, plus its decrypts): each secret is sealed with the key in its connection item instead of
being a Secrets Manager secret of its own.

## Scenarios

${SCENARIOS.map((s) => `- **${s.name}** (\`${s.key}\`): ${s.description}.`).join('\n')}

A delivery is one event for one connection (no fan-out). A failing or hanging receiver gets
the whole chain: ${ATTEMPTS_PER_CHAIN} attempts (after 1 s, 2 s, 4 s), then it is parked (docs/design.md §9).
Parking is in the figures: the bench parks for real (the production parked store on dynalite)
and sizes what it stored, ${parkedLine}; the connection's health update
and the dispatcher's other writes are counted at the emulators (below).

## Counted, not assumed: API calls per delivery

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
$0.50 per million publishes).

### SQS requests per delivery (at the scenarios' batch fill)

${table(['delivery', 'publish', 'receive', 'delete', 'retry + dead-letter sends', 'total'], sqsRows)}

## Batch fill as a function of traffic

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
)}

## Receiver latency

Log-normal, median ${a.latency.medianMs} ms, 99th percentile ${a.latency.p99Ms} ms, cut at the ${a.attemptTimeoutMs / 1000} s attempt deadline.
The attempts of a batch run at once, so an invocation waits for the slowest of them:

${table(['attempts in the batch', 'expected slowest'], latencyRows)}

\`npm run bench\` checks that a real batch meets this physical limit (performance.md, "batch time").

## Breakdown

${costs
  .map(
    (c) =>
      `**${c.scenario.name}**: ${num(c.lambda.invocations)} invocations of ${num(c.lambda.durationMs)} ms on average, ${num(c.lambda.fill, 2)} messages each${c.lambda.hangingBatchShare > 0 ? ` (${(c.lambda.hangingBatchShare * 100).toFixed(1)}% of invocations hold a hanging attempt and last the full ${a.attemptTimeoutMs / 1000} s)` : ''}.\n\n${breakdown(c)}`,
  )
  .join('\n\n')}

## Inputs

${table(
  ['figure', 'value', 'source'],
  [
    [
      'CPU per delivery, whole path (dispatcher + AWS SDK calls + runner)',
      `${num(figures.cpuMicrosPerDelivery)} µs`,
      '`npm run bench` endToEnd (upper bound)',
    ],
    [
      'write units per delivery: healthy / failing / hanging (index included)',
      KINDS.map((k) => num(kf[k].writeUnits)).join(' / '),
      'bench volume (item sizes) + counted writes',
    ],
    [
      'attempt-log bytes stored per delivery (items + index entry)',
      KINDS.map((k) => num(kf[k].itemBytes + kf[k].indexBytes)).join(' / '),
      `bench volume; +${DYNAMODB_ITEM_OVERHEAD_BYTES} B overhead per item`,
    ],
    [
      'wire bytes out per attempt (request + TLS)',
      `${num(kf.healthy.wireBytesPerAttempt)} B`,
      'bench apiCalls (TCP proxy)',
    ],
    [
      'log bytes per delivery at INFO: healthy / failing / hanging',
      KINDS.map((k) => num(kf[k].logBytes)).join(' / '),
      'bench volume',
    ],
    [
      'largest queue message',
      `${num(figures.largestMessageBytes)} B`,
      'bench volume: a batch of 10 fits one 64 KB request',
    ],
  ],
)}

${table(
  ['assumption', 'value', 'why'],
  [
    ['traffic', `${num(a.eventsPerSecond)} events/s, steady`, 'batch fill depends on it (table above)'],
    ['batch size / window', `${a.batchSize} / ${a.batchingWindowS} s`, "the stack's SQS event source"],
    ['memory', `${a.memoryMb} MB`, `the stack default; CPU share ${a.memoryMb}/${MB_PER_VCPU} of a vCPU`],
    [
      'AWS calls after the responses',
      `${a.awsCallMs} ms`,
      'attempt-log PutItem (and a retry SendMessage) in region',
    ],
    ['a hanging attempt', `${a.attemptTimeoutMs / 1000} s`, 'the attempt deadline (docs/protocol.md §6)'],
    [
      'Lambda platform log lines',
      `${a.platformLogBytesPerInvocation} B per invocation`,
      'START/END/REPORT (estimate)',
    ],
    [
      'connections',
      `${num(a.connections)}, traffic spread evenly; cache ${a.connectionCacheS} s; ${a.readUnitsPerCacheMiss} read unit per miss`,
      'connection reads per delivery = (1 − e^−x)/x, x = deliveries of a connection per container and cache period',
    ],
    [
      'attempt-log TTL',
      `${a.ttlDaysSuccess} days`,
      'the stack default `attemptTtlDays`; a month of storage per record',
    ],
  ],
)}

Lambda duration per invocation = batch CPU ÷ CPU share + the slowest receiver (or the deadline)
+ AWS calls: CPU and waiting are added, not overlapped, so this is an upper bound.

## Fixed monthly cost per 1,000 connections

${table(
  ['item', 'per month'],
  [...fixed.lines.map((l) => [l.item, money(l.perMonth)]), ['**total**', `**${money(fixed.perMonth)}**`]],
)}

With \`secretStore: 'kms'\` (D28): ${money(fixedKms.perMonth)} a month.

${table(
  ['item', 'per month'],
  [
    ...secretsOf(fixedKms).map((l) => [l.item, money(l.perMonth)]),
    ['the other lines, as above', money(fixedKms.perMonth - secretsCost(fixedKms))],
  ],
)}

${
  kmsCalls
    ? `Counted by \`npm run bench\` (measurement \`apiCallsKms\`: the API-call run again with the kms store and the local KMS behind a counting proxy): ${num(kmsCalls.encryptsPerConnection)} Encrypt per connection created, ${num(kmsCalls.decryptsPerSecretRead)} Decrypt per secret read (a warm container's first delivery to a connection, or to a rotated version), ${num(kmsCalls.decryptsPerDelivery)} Decrypt per delivery once cached. Show Secret is one Decrypt, a rotation one Encrypt (operator actions, not priced).`
    : 'These figures predate the kms store run (`apiCallsKms`): one Decrypt per secret read is assumed.'
}

Hookdeck Team plan ${money(prices.hookdeckTeamPlanPerMonth)} a month (includes 10,000 events); Svix Professional ${money(prices.svixProfessionalPlanPerMonth)} a month (includes 50,000 messages).

## What each option includes

${table(
  ['option', 'signing', 'retries', 'attempt log', 'dead letters', 'limits to know'],
  [
    [
      'this pipeline',
      'HMAC-SHA256 of timestamp + body, per attempt (docs/protocol.md §4)',
      '1 s, 2 s, 4 s, then DLQ',
      'every attempt, DynamoDB, queryable',
      'SQS DLQ with reason, redrive',
      'runs in your account; you operate it',
    ],
    [
      'EventBridge bus + API destination',
      'none: connections authenticate with Basic, API key or OAuth; no per-request signature',
      'retry policy (up to 185 times / 24 h, exponential with jitter; set to 3 here)',
      'none (metrics only)',
      'SQS DLQ per target',
      'a 5 s request timeout (AWS re:Post; newer EventBridge docs give HTTP targets up to 30 s); a rule target per connection',
    ],
    [
      'EventBridge Pipes + API destination',
      'as above',
      'by SQS redrive (visibility timeout, not 1/2/4 s)',
      'none',
      "the source queue's DLQ",
      'one pipe per source queue; as above',
    ],
    [
      'Hookdeck',
      'signs with its own scheme',
      'configurable',
      'hosted event log (7 days on Team)',
      'hosted',
      'third-party SaaS; events leave your account',
    ],
    [
      'Svix',
      'Standard Webhooks signatures',
      'automatic, on its own schedule',
      'hosted, 90 days on Professional',
      'hosted, with replay',
      'third-party SaaS; 99.99% SLA on Professional',
    ],
  ],
)}

How the alternatives are priced: ${alts.map((x) => `${x.name}: ${x.formula}`).join('; ')}.
EventBridge behaviour: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html,
https://repost.aws/knowledge-center/eventbridge-api-destination-target-failure and
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-custom-bus-target-http.html.

## Prices and sources

${table(
  ['item', 'price', 'provider page', 'read via'],
  PRICE_SOURCES.map((p) => [p.item, p.note ? `${p.price}. ${p.note}` : p.price, p.page, p.readVia ?? '']),
)}
`;
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
  if (values.json) {
    console.log(
      JSON.stringify(costReport(figuresFrom(results), ASSUMPTIONS, PRICES, fixedKmsCost(results)), null, 2),
    );
    return;
  }
  const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchResults;
  const doc = renderCostDoc(results, baseline.startedAt);
  const where = relative(ROOT, file);
  if (values.check) {
    const current = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
    if (current !== doc) {
      console.error(
        `docs/cost.md is out of date with the figures in ${where}: run \`npm run cost\` and commit it.`,
      );
      process.exit(1);
    }
    console.log(`docs/cost.md is up to date with ${where}.`);
    return;
  }
  writeFileSync(DOC, doc);
  const report = costReport(figuresFrom(results), ASSUMPTIONS, PRICES, fixedKmsCost(results));
  for (const [key, s] of Object.entries(report.scenarios))
    console.log(`${key.padEnd(15)} ${money(s.perMillion)} per million deliveries`);
  console.log(
    `${'fixed'.padEnd(15)} ${money(report.fixedPerThousandConnections.perMonth)} a month per 1,000 connections (${money(report.fixedPerThousandConnections.withKmsSecretStore.perMonth)} with secretStore: 'kms')`,
  );
  console.log(`Wrote docs/cost.md from ${where}.`);
}

if (require.main === module) main();

export { lambdaUsage };
