/**
 * The cost model's inputs (bench/cost-model.ts): the stack's defaults, its fixed costs, and
 * the figures of one bench run (counted calls, measured bytes, measured CPU). Read by the cost
 * report (bench/cost.ts) and by the billed benchmark, which sets the model beside what it
 * measures; it imports neither.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLOUDWATCH_METRICS, METRIC_DIMENSIONS } from '../lambdas/adapters/metrics/catalogue';
import { CONFIG_DEFAULTS } from '../lambdas/config';
import { ALL_IN_TRAFFIC, type AllInInputs, bodyCostOf, emfBytesPerInvocation } from './all-in';
import type { PhaseCounts } from './api-calls';
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
  SQS_EVENT_SOURCE_POLLERS,
} from './cost-model';
import { PRICES, type Prices } from './prices';
import { ATTEMPT_TIMEOUT_MS, BATCH_SIZE, DEFAULT_MEMORY_MB } from './support/constants';
import type { BenchResults } from './support/results';

/** What the kms secret store calls, counted by the bench (`apiCallsKms`). */
export interface KmsCalls {
  decryptsPerSecretRead: number;
  decryptsPerDelivery: number;
  encryptsPerConnection: number;
}

export const ROOT = resolve(__dirname, '..');
export const LATEST = join(ROOT, 'bench-results', 'latest.json');
export const BASELINE = join(ROOT, 'bench', 'baseline-figures.json');

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
  // 24 that notify and the 12 windows of the burn-rate composites (lib/delivery-objectives.ts).
  alarms: 36,
  // Metric math bills each metric: DynamoDB SystemErrors alone names 7 operations on each of 4 tables.
  alarmMetrics: 76,
  compositeAlarms: 6,
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

export const complete = (r: BenchResults) =>
  !r.quick && Boolean(r.volume && r.endToEnd && r.coldStart && r.apiCalls);

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
  const decrypts = calls ? { kmsDecryptsPerSecretRead: calls.decryptsPerSecretRead } : {};
  return fixedCost({ ...FIXED, secretStore: 'kms', ...decrypts }, prices);
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
      indexBytes: v.indexEntryBytes.reduce((s, b) => s + b, 0) + (v.parked?.indexBytes ?? 0),
      indexItems: v.indexEntryBytes.length + parked,
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
    // reads, attempt-log writes: bench/billed/, docs/design.md §12) when the results have it; else the full-core figure.
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
