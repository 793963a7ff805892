/**
 * `npm run cost`: writes docs/cost.md from the bench's measured figures and bench/prices.ts.
 *
 *   npm run cost                    # figures: bench-results/latest.json, else bench/baseline-figures.json
 *   npm run cost -- --check         # exit 1 if docs/cost.md is not what the figures give
 *   npm run cost -- --save-baseline # copy bench-results/latest.json to bench/baseline-figures.json first
 *
 * A quick (`--quick`) or partial bench run is never used: the committed baseline is.
 */

import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Assumptions,
  alternatives,
  DEFAULT_ASSUMPTIONS,
  type DeliveryKind,
  type Figures,
  MB_PER_VCPU,
  SCENARIOS,
  type ScenarioCost,
  scenarioCost,
  secretReadsPerMonth,
  secretsPerMonth,
  sqsRequestsPerDelivery,
} from './cost-model';
import { PRICE_SOURCES, PRICES, PRICES_READ_ON, type Prices } from './prices';
import type { BenchResults } from './support/results';

const ROOT = resolve(__dirname, '..');
const LATEST = join(ROOT, 'bench-results', 'latest.json');
const BASELINE = join(ROOT, 'bench', 'baseline-figures.json');
const DOC = join(ROOT, 'docs', 'cost.md');
/** Warm containers assumed for the fixed-cost upper bounds. */
const WARM_CONTAINERS = 10;
const CONNECTIONS = 1_000;
/** Seconds in a 30-day month, and the connection cache TTL (CONFIG_DEFAULTS.connectionCacheTtlMs). */
const MONTH_S = 30 * 86_400;
const CONNECTION_CACHE_TTL_S = 30;

const complete = (r: BenchResults) =>
  !r.quick && Boolean(r.volume && r.endToEnd && r.overhead && r.coldStart);

/** The bench results the doc is made from, and which file they came from. */
export function loadResults(): { results: BenchResults; file: string } {
  if (existsSync(LATEST)) {
    const latest = JSON.parse(readFileSync(LATEST, 'utf8')) as BenchResults;
    if (complete(latest)) return { results: latest, file: LATEST };
  }
  return { results: JSON.parse(readFileSync(BASELINE, 'utf8')) as BenchResults, file: BASELINE };
}

/** The model's inputs from one bench run. */
export function figuresFrom(results: BenchResults): Figures {
  const { volume, endToEnd } = results;
  if (!volume || !endToEnd) throw new Error('the bench results lack the volume or end-to-end figures');
  const d = volume.deliveries;
  const byKind = (pick: (v: (typeof d)['delivered']) => number): Record<DeliveryKind, number> => ({
    healthy: pick(d.delivered),
    failing: pick(d.failing),
    hanging: pick(d.hanging),
  });
  const failedMessages = d.failing.messageBytes;
  return {
    cpuMicrosPerDelivery: endToEnd.throughput.cpuMicrosPerDelivery,
    writeUnits: byKind((v) => v.writeUnits),
    logBytes: byKind((v) => v.logBytes),
    logBytesAtDebug: byKind((v) => v.logBytesAtDebug),
    messageBytes: {
      event: volume.eventMessageBytes,
      retry: Math.max(...failedMessages.slice(0, -1)),
      deadLetter: failedMessages.at(-1)!,
    },
  };
}

const money = (x: number) =>
  x >= 100 || (x >= 10 && Number.isInteger(x))
    ? `$${Math.round(x).toLocaleString('en-US')}`
    : x >= 0.1
      ? `$${x.toFixed(2)}`
      : `$${x.toPrecision(2)}`;
const num = (x: number, digits = 3) =>
  Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en-US') : Number(x.toPrecision(digits)).toString();
const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/**
 * docs/cost.md for one bench run. `baselineRun` is the start time of the committed baseline,
 * named so that a reader knows whether the doc shows it or a newer local run.
 */
export function renderCostDoc(results: BenchResults, baselineRun: string, prices: Prices = PRICES): string {
  const figures = figuresFrom(results);
  const a: Assumptions = DEFAULT_ASSUMPTIONS;
  const costs = SCENARIOS.map((s) => scenarioCost(s, figures, prices, a));
  const verbose = SCENARIOS.map((s) => scenarioCost(s, figures, prices, { ...a, logLevel: 'DEBUG' }));
  const batched = SCENARIOS.map((s) => scenarioCost(s, figures, prices, { ...a, publishBatchSize: 10 }));
  const slow = SCENARIOS.map((s) =>
    scenarioCost(s, figures, prices, { ...a, receiverLatencyMs: a.receiverLatencyMs + 200 }),
  );
  const alts = alternatives(prices);
  const c = results.coldStart;
  const o = results.overhead;
  const kinds: DeliveryKind[] = ['healthy', 'failing', 'hanging'];
  const sqsRows = kinds.map((k) => {
    const r = sqsRequestsPerDelivery(k, figures, a);
    return [
      k,
      num(r.publish),
      num(r.receive),
      num(r.delete),
      num(r.retry),
      num(r.deadLetter),
      `**${num(r.total)}**`,
    ];
  });
  const breakdown = (cost: ScenarioCost) =>
    table(
      ['line', 'quantity per million deliveries', 'cost'],
      [
        ...cost.lines.map((l) => [l.service, `${num(l.quantity)} ${l.unit}`, money(l.dollars)]),
        ['**total**', '', `**${money(cost.total)}**`],
      ],
    );
  const secrets = secretsPerMonth(CONNECTIONS, prices);
  const secretReads = secretReadsPerMonth(CONNECTIONS, WARM_CONTAINERS);
  const connectionReadUnits = ((CONNECTIONS * MONTH_S) / CONNECTION_CACHE_TTL_S) * 0.5;

  return `# Cost per million deliveries

_Generated by \`npm run cost\` (bench/cost.ts) from measured figures and the price table in
bench/prices.ts. Do not edit by hand: \`npm run cost -- --check\` fails when this file is not
what the figures give._

Figures: the \`npm run bench\` run of ${results.startedAt} (Node ${results.node}, ${results.machine.cpus} × ${results.machine.model})${results.startedAt === baselineRun ? ', the one committed as `bench/baseline-figures.json`' : `, newer than the committed \`bench/baseline-figures.json\` (${baselineRun})`}.
\`npm run cost\` uses \`bench-results/latest.json\` when a complete (not \`--quick\`) run is
there, and the committed baseline otherwise. How each figure is measured: [performance.md](performance.md).
Prices: us-east-1, on demand, first tier, free tiers left out, read on ${PRICES_READ_ON} (sources below).

## Summary

${table(
  ['per million deliveries', ...SCENARIOS.map((s) => s.name)],
  [
    [
      '**this pipeline** (SQS + Lambda + DynamoDB + CloudWatch Logs)',
      ...costs.map((x) => `**${money(x.total)}**`),
    ],
    [
      'this pipeline, upstream publishing in batches of 10 (`publishUserIdentifiedBatch`)',
      ...batched.map((x) => money(x.total)),
    ],
    ...alts.map((alt) => [alt.name, ...SCENARIOS.map((s) => money(alt.cost(s.mix, 1_000_000)))]),
  ],
)}

Fixed monthly costs are separate ([below](#fixed-monthly-cost-per-1000-connections)): the
pipeline's is one Secrets Manager secret per connection (${money(secrets)} a month per ${CONNECTIONS.toLocaleString('en-US')} connections);
Hookdeck's Team plan starts at ${money(prices.hookdeckTeamPlanPerMonth)} a month, Svix Professional at ${money(prices.svixProfessionalPlanPerMonth)}.

## Scenarios

${SCENARIOS.map((s) => `- **${s.name}**: ${s.description}.`).join('\n')}

A delivery is one event for one connection (no fan-out). A failing or hanging receiver gets
the whole chain: 4 attempts (after 1 s, 2 s, 4 s), then the dead-letter queue.

### SQS requests per delivery

Counted from the design: upstream publishes each event with one \`SendMessage\`; the event
source receives up to ${a.batchSize} messages per \`ReceiveMessage\` and deletes a batch with one
\`DeleteMessageBatch\`; each failed attempt but the last schedules the next with one
\`SendMessage\` (delay 1/2/4 s); the last sends the delivery to the DLQ. Every 64 KB of a
request's payload is one request; the messages measured are ${figures.messageBytes.event} B (event),
${figures.messageBytes.retry} B (retry) and ${figures.messageBytes.deadLetter} B (dead letter), so batches of ${a.batchSize} fit in one.

${table(['delivery', 'publish', 'receive', 'delete', 'retry SendMessage', 'DLQ SendMessage', 'total'], sqsRows)}

### Breakdown

${costs.map((x) => `**${x.scenario.name}**: ${num(x.lambda.invocations)} invocations of ${num(x.lambda.durationMs)} ms on average${x.lambda.hangingBatchShare > 0 ? ` (${(x.lambda.hangingBatchShare * 100).toFixed(1)}% of batches hold a hanging attempt and last the full ${a.attemptTimeoutMs / 1000} s)` : ''}.\n\n${breakdown(x)}`).join('\n\n')}

## Inputs

Measured (\`npm run bench\`, [performance.md](performance.md)):

${table(
  ['figure', 'value', 'used for'],
  [
    [
      'CPU per delivery, whole path (local mode, dispatcher + AWS SDK calls + runner)',
      `${num(figures.cpuMicrosPerDelivery)} µs`,
      'Lambda duration',
    ],
    [
      '… of which one attempt-log PutItem through the AWS SDK',
      `${num(results.endToEnd!.attemptLogPutCpuMicros)} µs`,
      'context: the SDK call outweighs the delivery path',
    ],
    ...(o
      ? [
          [
            'delivery path alone (in-memory ports, real HTTPS)',
            `${num(o.dispatcher.cpuMicrosPerDelivery)} µs`,
            'context',
          ],
          ['dispatch overhead vs bare undici (throughput ratio)', `${o.throughputRatio}`, 'context'],
        ]
      : []),
    [
      'write units per delivery: healthy / failing / hanging (indexes included)',
      kinds.map((k) => num(figures.writeUnits[k])).join(' / '),
      'DynamoDB',
    ],
    [
      'log bytes per delivery at INFO: healthy / failing / hanging',
      kinds.map((k) => num(figures.logBytes[k])).join(' / '),
      'CloudWatch Logs',
    ],
    [
      'log bytes per delivery at DEBUG (a line per success too)',
      kinds.map((k) => num(figures.logBytesAtDebug[k])).join(' / '),
      'CloudWatch Logs (DEBUG row)',
    ],
    [
      'queue message bytes: event / retry / dead letter',
      `${figures.messageBytes.event} / ${figures.messageBytes.retry} / ${figures.messageBytes.deadLetter}`,
      'SQS 64 KB chunks',
    ],
    ...(c
      ? [
          [
            'module init (cold start), as deployed',
            `${num(c.dispatcherInitMs)} ms`,
            'context: init is billed, once per container',
          ],
        ]
      : []),
  ],
)}

Assumed:

${table(
  ['assumption', 'value', 'why'],
  [
    ['batch size', `${a.batchSize}`, "the stack's SQS event source; full batches"],
    [
      'memory',
      `${a.memoryMb} MB`,
      `the stack default; CPU share ${a.memoryMb}/${MB_PER_VCPU} of a vCPU (AWS: 1,769 MB = 1 vCPU)`,
    ],
    [
      'slowest receiver of a batch',
      `${a.receiverLatencyMs} ms`,
      'attempts of a batch run at once; a healthy batch waits for its slowest',
    ],
    [
      'AWS calls after an attempt',
      `${a.awsCallMs} ms`,
      'attempt-log PutItem (and a retry SendMessage) in region',
    ],
    [
      'a hanging attempt',
      `${a.attemptTimeoutMs / 1000} s`,
      'the attempt deadline (spec §6): the whole invocation waits for it',
    ],
    [
      'publish',
      `${a.publishBatchSize} event per SendMessage`,
      'WebhookPublisher.publishUserIdentified; the batch method sends 10',
    ],
    [
      'Lambda platform log lines',
      `${a.platformLogBytesPerInvocation} B per invocation`,
      'START/END/REPORT in the text format (estimate)',
    ],
    ['GB', '2^30 bytes', ''],
  ],
)}

Lambda duration per invocation = batch CPU ÷ CPU share + wait for the slowest receiver (or
the deadline) + AWS calls: CPU and waiting are added, not overlapped, so this is an upper
bound. The CPU figure is an upper bound too: it includes the local runner and publisher.

### What moves the number

${table(
  ['change', ...SCENARIOS.map((s) => s.name)],
  [
    ['as modelled', ...costs.map((x) => money(x.total))],
    ['log level DEBUG (stack prop `logLevel`: a line per success)', ...verbose.map((x) => money(x.total))],
    [
      'upstream publishes in batches of 10 (`publishUserIdentifiedBatch`)',
      ...batched.map((x) => money(x.total)),
    ],
    [`receivers ${a.receiverLatencyMs + 200} ms slower to answer`, ...slow.map((x) => money(x.total))],
  ],
)}

A hanging receiver is the expensive case: it holds its whole batch's invocation for the
deadline. A shorter \`attemptTimeout\` (stack prop) cuts that cost in proportion.

## What each option includes

${table(
  ['option', 'signing', 'retries', 'attempt log', 'dead letters', 'limits to know'],
  [
    [
      'this pipeline',
      'HMAC-SHA256 of timestamp + body, per attempt (spec §5)',
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

The EventBridge rows count one invocation per attempt (retries are invocations) and leave out
the attempt log this pipeline writes; Hookdeck's row uses its list rate for additional events
(retries' billing is not stated in the source read); Svix bills one message per delivery.
EventBridge behaviour: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-retry-policy.html,
https://repost.aws/knowledge-center/eventbridge-api-destination-target-failure and
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-custom-bus-target-http.html.

## Fixed monthly cost per 1,000 connections

${table(
  ['item', 'per month', 'how'],
  [
    [
      'connection secrets (this pipeline)',
      money(secrets),
      `${CONNECTIONS.toLocaleString('en-US')} secrets × ${money(prices.secretsManagerPerSecretMonth)}`,
    ],
    [
      'secret reads, at most',
      money((secretReads / 10_000) * prices.secretsManagerPer10kCalls),
      `≤ 1 GetSecretValue per connection, warm container and day (24 h cache by version), ${WARM_CONTAINERS} warm containers: ${secretReads.toLocaleString('en-US')} calls`,
    ],
    [
      'connection reads, at most, per warm container',
      money((connectionReadUnits / 1_000_000) * prices.dynamoDbPerMillionReadUnits),
      `≤ 1 eventually consistent GetItem per connection every ${CONNECTION_CACHE_TTL_S} s while it has traffic: ${num(connectionReadUnits)} read units`,
    ],
    ['Hookdeck Team plan', money(prices.hookdeckTeamPlanPerMonth), 'base fee, includes 10,000 events'],
    [
      'Svix Professional plan',
      money(prices.svixProfessionalPlanPerMonth),
      'base fee, includes 50,000 messages',
    ],
  ],
)}

## Prices and sources

Read on ${PRICES_READ_ON} from stored copies of these pages. Where the provider's page renders
its rate tables client-side, the figure was read from the second source given, and checked
against the others where they agree.

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
  const figures = figuresFrom(results);
  for (const s of SCENARIOS) {
    console.log(
      `${s.name.padEnd(12)} ${money(scenarioCost(s, figures, PRICES).total)} per million deliveries`,
    );
  }
  console.log(`Wrote docs/cost.md from ${where}.`);
}

if (require.main === module) main();
