/**
 * `npm run cost`: the cost model (bench/cost-model.ts) on measured figures; writes docs/cost.md.
 *
 *   npm run cost                    # figures: bench-results/latest.json, else bench/baseline-figures.json
 *   npm run cost -- --json          # the scenarios and fixed costs as JSON on stdout (writes nothing)
 *   npm run cost -- --check         # exit 1 if docs/cost.md is not what the figures give
 *   npm run cost -- --save-baseline # copy bench-results/latest.json to bench/baseline-figures.json first
 *
 * A quick (`--quick`) or partial bench run is never used: the committed baseline is.
 * The document's sections are written by bench/cost-doc/, one function per section.
 */

import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CLOUDWATCH_METRICS, METRIC_DIMENSIONS } from '../lambdas/adapters/metrics/catalogue';
import { CONFIG_DEFAULTS } from '../lambdas/config';
import {
  ALL_IN_TRAFFIC,
  type AllInInputs,
  allInProfile,
  bodyCostOf,
  costProfile,
  emfBytesPerInvocation,
} from './all-in';
import type { PhaseCounts } from './api-calls';
import { costDoc } from './cost-doc';
import type { KmsCalls } from './cost-doc/context';
import { money } from './cost-doc/format';
import {
  type Assumptions,
  CONTAINER_LIFETIME_S,
  catalogueMetricCount,
  type DeliveryKind,
  defaultAssumptions,
  type Figures,
  type FixedCost,
  type FixedInputs,
  fixedCost,
  type KindFigures,
  type ObservabilityInputs,
  SCENARIOS,
  SQS_EVENT_SOURCE_POLLERS,
  scenarioCost,
} from './cost-model';
import { PRICES, type Prices } from './prices';
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

/**
 * The default stack's alarms, dashboard and Contributor Insights rule as synthesised
 * (test/infra/cost.test.ts counts them in the template), and the metrics it emits.
 */
export const OBSERVABILITY: ObservabilityInputs = {
  alarms: 8,
  // One each, but oldest message age (2 queues) and fleet failure (Attempts twice, the rule's metric).
  alarmMetrics: 11,
  dashboards: 1,
  contributorInsightsRules: 1,
  contributorInsightsEventsPerMonth: 1_000_000,
  customMetrics: catalogueMetricCount(CLOUDWATCH_METRICS, METRIC_DIMENSIONS),
  // An SQS mapping's EventCount group: polled, filtered out, invoked, failed invoke, deleted; two mappings.
  eventSourceMappingMetrics: 2 * 5,
};

/**
 * Fixed costs: 1,000 connections at 100 events/s, 10 warm containers each living 2 hours, the
 * stack's caches, its secrets, alarms, dashboard and metrics.
 */
export const FIXED: FixedInputs = {
  connections: ALL_IN_TRAFFIC.connections,
  eventsPerSecond: ALL_IN_TRAFFIC.eventsPerSecond,
  warmContainers: 10,
  secretCacheS: 24 * 3600,
  containerLifetimeS: CONTAINER_LIFETIME_S,
  // The console's session key (lib/management-api.ts), deployed with the management API by default.
  otherSecrets: 1,
  observability: OBSERVABILITY,
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
export function kmsCallsFrom(results: BenchResults): KmsCalls | undefined {
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
    // Measured under Lambda's CPU share against a population of receivers (TLS handshakes, connection
    // reads, attempt-log writes: bench/billed/, docs/design.md §12 "The cost model") when the results
    // have it; else the full-core figure.
    cpuMicrosPerDelivery:
      results.billed?.profiles?.defaults.cpuMicrosPerDelivery ?? endToEnd.throughput.cpuMicrosPerDelivery,
    ...(results.billed?.profiles
      ? {
          cpuMicrosPerDeliveryByProfile: {
            defaults: results.billed.profiles.defaults.cpuMicrosPerDelivery,
            lean: results.billed.profiles.lean.cpuMicrosPerDelivery,
          },
        }
      : {}),
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

/** The all-in model's inputs (bench/all-in.ts) for one bench run's figures. */
export function allInInputs(
  figures: Figures,
  results: BenchResults | undefined,
  prices: Prices = PRICES,
): AllInInputs {
  const calls = results && kmsCallsFrom(results);
  const { connections, eventsPerSecond, warmContainers, secretStore, observability, ...fixed } = FIXED;
  const emf = new Map<number, number>();
  return {
    figures,
    prices,
    traffic: ALL_IN_TRAFFIC,
    fixed: { ...fixed, ...(calls ? { kmsDecryptsPerSecretRead: calls.decryptsPerSecretRead } : {}) },
    observability,
    body: bodyCostOf(),
    emfBytes: (n) => {
      if (!emf.has(n)) emf.set(n, emfBytesPerInvocation(n));
      return emf.get(n)!;
    },
  };
}

type ScenarioReport = { perMillion: number; lines: Array<{ item: string; perMillion: number }> };

/** `"allIn"` of `npm run cost -- --json`: each profile's scenarios at the stated traffic. */
export interface AllInReport {
  traffic: { eventsPerSecond: number; connections: number };
  profiles: Record<'defaults' | 'lean', Record<string, ScenarioReport>>;
}

export function allInReport(inputs: AllInInputs, a: Assumptions = ASSUMPTIONS): AllInReport {
  const profile = (name: 'defaults' | 'lean') =>
    Object.fromEntries(
      Object.entries(allInProfile(costProfile(name, a), inputs)).map(([key, c]) => [
        key,
        {
          perMillion: r4(c.perMillion),
          lines: c.lines.map((l) => ({ item: l.item, perMillion: r4(l.perMillion) })),
        },
      ]),
    );
  return {
    traffic: { ...inputs.traffic },
    profiles: { defaults: profile('defaults'), lean: profile('lean') },
  };
}

export interface CostReport {
  allIn: AllInReport;
  scenarios: Record<string, { perMillion: number; lines: Array<{ item: string; perMillion: number }> }>;
  fixedPerThousandConnections: {
    perMonth: number;
    lines: Array<{ item: string; perMonth: number }>;
    /** The same with `secretStore: 'kms'` (docs/design.md §5 "The KMS secret store"). */
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
  allIn: AllInInputs = allInInputs(figures, undefined, prices),
): CostReport {
  const costs = SCENARIOS.map((s) => scenarioCost(s, figures, prices, a));
  const fixed = fixedCost(FIXED, prices);
  return {
    allIn: allInReport(allIn, a),
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

/** docs/cost.md for one bench run. */
export function renderCostDoc(results: BenchResults, baselineRun: string, prices: Prices = PRICES): string {
  const figures = figuresFrom(results);
  return costDoc({
    results,
    baselineRun,
    prices,
    figures,
    a: ASSUMPTIONS,
    fixedInputs: FIXED,
    fixed: fixedCost(FIXED, prices),
    fixedKms: fixedKmsCost(results, prices),
    kmsCalls: kmsCallsFrom(results),
    allInInputs: allInInputs(figures, results, prices),
  });
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
    const figures = figuresFrom(results);
    console.log(
      JSON.stringify(
        costReport(figures, ASSUMPTIONS, PRICES, fixedKmsCost(results), allInInputs(figures, results)),
        null,
        2,
      ),
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
  const figures = figuresFrom(results);
  const report = costReport(
    figures,
    ASSUMPTIONS,
    PRICES,
    fixedKmsCost(results),
    allInInputs(figures, results),
  );
  for (const [key, s] of Object.entries(report.scenarios))
    console.log(`${key.padEnd(15)} ${money(s.perMillion)} per million deliveries`);
  for (const [name, p] of Object.entries(report.allIn.profiles))
    console.log(
      `all-in, ${name.padEnd(8)} ${Object.entries(p)
        .map(([key, s]) => `${key} ${money(s.perMillion)}`)
        .join(
          ', ',
        )} per million (${report.allIn.traffic.eventsPerSecond} events/s, ${report.allIn.traffic.connections} connections)`,
    );
  console.log(
    `${'fixed'.padEnd(15)} ${money(report.fixedPerThousandConnections.perMonth)} a month per 1,000 connections (${money(report.fixedPerThousandConnections.withKmsSecretStore.perMonth)} with secretStore: 'kms')`,
  );
  console.log(`Wrote docs/cost.md from ${where}.`);
}

if (require.main === module) main();

/** The prices the report uses, for its readers (test/unit/bench-imports.test.ts: one bench module per test). */
export { PRICES } from './prices';
