/**
 * The cost model of docs/cost.md: per million deliveries, every line AWS bills (SQS, Lambda
 * requests and duration, DynamoDB writes, storage and PITR, CloudWatch Logs, data transfer),
 * from measured figures, the prices of bench/prices.ts, a receiver-latency distribution, a
 * batch-fill model and stated assumptions; fixed monthly costs apart, per 1,000 connections.
 * test/unit/cost-model.test.ts holds the formulas to account.
 */

import type { ProfileName } from '../lib/profiles';
import { MAX_BATCH_SIZE_WITHOUT_WINDOW } from '../lib/webhook-delivery-props';
import type { Prices } from './prices';

/** The published prices the model is run with (bench/prices.ts); its tests price with them too. */
export { PRICES } from './prices';

/** SQS bills each 64 KB chunk of a request's payload as one request. */
export const SQS_CHUNK_BYTES = 64 * 1024;
/** AWS Lambda: at 1,769 MB a function has the equivalent of one vCPU; CPU scales with memory. */
export const MB_PER_VCPU = 1_769;
/** DynamoDB bills 100 bytes of overhead per item stored (and per index entry). */
export const DYNAMODB_ITEM_OVERHEAD_BYTES = 100;
/** Lambda's SQS event source starts with five concurrent batches (AWS Lambda developer guide). */
export const SQS_EVENT_SOURCE_POLLERS = 5;
/** A 30-day month, s; and days per billing month for storage. */
export const MONTH_S = 30 * 86_400;
export const DAYS_PER_MONTH = 30;
export const MILLION = 1_000_000;
const GIB = 1024 ** 3;

export type DeliveryKind = 'healthy' | 'failing' | 'hanging';
export const KINDS: readonly DeliveryKind[] = ['healthy', 'failing', 'hanging'];

/** Per-delivery counts of one kind, from a measured run (bench/api-calls.ts) and bench/volume.ts. */
export interface KindFigures {
  /** Queue messages the dispatcher is handed for one delivery (event + retries). */
  messages: number;
  /** Attempts (HTTP requests to the receiver). */
  attempts: number;
  /** SQS SendMessage(Batch) calls the dispatcher makes per delivery (retries, dead letter). */
  sqsSends: number;
  /** DynamoDB write requests and the write units they cost (indexes included). */
  dynamoWrites: number;
  writeUnits: number;
  /** DynamoDB read request units per delivery beyond the caches (measured: warm container). */
  readUnits: number;
  /** Secrets Manager calls per delivery beyond the cache. */
  secretCalls: number;
  /** Bytes stored in the attempt log per delivery: items, and index entries (overhead added by the model). */
  itemBytes: number;
  items: number;
  indexBytes: number;
  indexItems: number;
  /** Bytes sent to the receiver per attempt, TLS included. */
  wireBytesPerAttempt: number;
  /** Dispatcher log bytes per delivery at INFO and at DEBUG. */
  logBytes: number;
  logBytesAtDebug: number;
}

export interface Figures {
  /** CPU per delivery of the whole path (dispatcher, SDK calls): µs of one full core. */
  cpuMicrosPerDelivery: number;
  /**
   * The same, measured per construct profile under Lambda's CPU share (bench/billed/): a profile
   * with batches of 100 spends less per delivery than one with batches of 10 (the batch's own
   * calls are shared). {@link forProfile} picks it.
   */
  cpuMicrosPerDeliveryByProfile?: Partial<Record<ProfileName, number>>;
  kinds: Record<DeliveryKind, KindFigures>;
  /** SQS requests per published event: one per SendMessage, a tenth per SendMessageBatch of 10. */
  publishRequests: { single: number; batched: number };
  /** ReceiveMessage and DeleteMessageBatch calls per batch handed to the function. */
  receivesPerBatch: number;
  deletesPerBatch: number;
  /** Largest queue message, bytes (to check that a batch fits one 64 KB request). */
  largestMessageBytes: number;
}

/** The figures a profile's deliveries run on: its own measured CPU per delivery when there is one. */
export function forProfile(figures: Figures, profile: ProfileName): Figures {
  const cpu = figures.cpuMicrosPerDeliveryByProfile?.[profile];
  return cpu === undefined ? figures : { ...figures, cpuMicrosPerDelivery: cpu };
}

/** Receiver latency: log-normal with this median and 99th percentile, cut at the attempt deadline. */
export interface LatencyDistribution {
  medianMs: number;
  p99Ms: number;
}
export const DEFAULT_LATENCY: LatencyDistribution = { medianMs: 100, p99Ms: 1_000 };
/** z of the 99th percentile of the standard normal distribution. */
const Z99 = 2.326_347_874;

/** Standard normal CDF (Abramowitz and Stegun 7.1.26 erf, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.327_591_1 * x);
  const y =
    1 -
    ((((1.061_405_429 * t - 1.453_152_027) * t + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

export function latencyCdf(d: LatencyDistribution, ms: number): number {
  if (ms <= 0) return 0;
  const sigma = Math.log(d.p99Ms / d.medianMs) / Z99;
  return normalCdf(Math.log(ms / d.medianMs) / sigma);
}

/** Inverse of the distribution, for sampling (bench) with a uniform `u` in (0, 1). */
export function latencyQuantile(d: LatencyDistribution, u: number): number {
  // Bisection on the CDF: exact enough and dependency-free.
  let lo = 0;
  let hi = d.p99Ms * 1_000;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (latencyCdf(d, mid) < u) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** E[the slowest of `n` attempts at once, cut at `capMs`] = ∫₀^cap (1 − F(x)ⁿ) dx, trapezoids on a log grid. */
export function expectedSlowestMs(d: LatencyDistribution, n: number, capMs: number): number {
  if (n <= 0) return 0;
  const steps = 4_000;
  const lo = Math.log(0.01);
  const hi = Math.log(capMs);
  let sum = 0;
  let prevX = 0;
  let prevY = 1;
  for (let i = 0; i <= steps; i++) {
    const x = Math.exp(lo + ((hi - lo) * i) / steps);
    const y = 1 - latencyCdf(d, x) ** n;
    sum += ((prevY + y) / 2) * (x - prevX);
    prevX = x;
    prevY = y;
  }
  return sum;
}

/** What is assumed rather than measured; docs/cost.md prints every one of them. */
export interface Assumptions {
  /** Records per invocation at most (the stack's SQS event source). */
  batchSize: number;
  /** The event source's batching window, s (0: invoke as soon as a receive returns). */
  batchingWindowS: number;
  /** Steady traffic of the scenarios, events per second. */
  eventsPerSecond: number;
  memoryMb: number;
  /** Events per SendMessage(Batch) call of the upstream publisher (1 or 10). */
  publishBatchSize: 1 | 10;
  latency: LatencyDistribution;
  /** The AWS calls an invocation waits for after its responses (attempt-log writes, retries), ms. */
  awsCallMs: number;
  /** How long a hanging receiver holds an attempt: the attempt deadline, ms. */
  attemptTimeoutMs: number;
  /** Lambda's own START/END/REPORT lines per invocation, bytes. */
  platformLogBytesPerInvocation: number;
  logLevel: 'INFO' | 'DEBUG';
  /** Days an attempt record lives (the stack's attemptTtlDays), for successes and for failures. */
  ttlDaysSuccess: number;
  ttlDaysFailure: number;
  /** Days an expired item waits for DynamoDB's TTL deletion, billed as stored (typically within 2). */
  ttlDeletionLagDays: number;
  /** Point-in-time recovery on the attempt log (the stack enables it today). */
  pitr: boolean;
  /** On-demand writes, or provisioned capacity used at this share (0 < u ≤ 1): {@link writeUnitPrice}. */
  writeCapacity: WriteCapacity;
  /** Active X-Ray tracing (the `tracing` prop): {@link xrayTracesPerSecond}. */
  tracing: boolean;
  /** Connections the traffic is spread over evenly, and how long a container caches one, s. */
  connections: number;
  connectionCacheS: number;
  /** Read units of one connection cache miss (a Query of the application's connections, ≤ 4 KB). */
  readUnitsPerCacheMiss: number;
}

/**
 * Connection reads per delivery: a container reads a connection once per cache period in which it
 * delivers to it; with `x` such deliveries per container and period (Poisson), (1 − e^−x) / x.
 */
export function connectionReadsPerDelivery(
  eventsPerSecond: number,
  connections: number,
  containers: number,
  cacheS: number,
): number {
  const x = ((eventsPerSecond / connections) * cacheS) / Math.max(1, containers);
  return x < 1e-9 ? 1 : (1 - Math.exp(-x)) / x;
}

export type WriteCapacity = { mode: 'on-demand' } | { mode: 'provisioned'; utilisation: number };

/** Dollars per million write units: on demand, or the WCU-hour over the share of it used. */
export const writeUnitPrice = (prices: Prices, c: WriteCapacity) =>
  c.mode === 'on-demand'
    ? prices.dynamoDbPerMillionWriteUnits
    : ((prices.dynamoDbProvisionedWcuHour / 3600) * MILLION) / c.utilisation;

/** The use of provisioned write capacity above which it costs less than on-demand. */
export const breakEvenUtilisation = (prices: Prices) =>
  writeUnitPrice(prices, { mode: 'provisioned', utilisation: 1 }) / prices.dynamoDbPerMillionWriteUnits;

/** DynamoDB auto-scaling as modelled: use held at `target`; a throttled write consumes nothing, so a step out
 * (`stepMin`: two 1-minute alarm points, the update) adds at most 1/target; a step in follows `inLagMin` min low. */
export const AUTO_SCALING = { target: 0.7, stepMin: 5, inLagMin: 15 };

/** SQS requests of a write deferred to the retry queue (send, receive, delete): the record is written later. */
export const DEFERRAL_SQS_REQUESTS = 3;

/**
 * A day at `ratio` times the mean for `hours` (the rest below the mean), minute by minute:
 * the share of provisioned capacity used (every write, deferred ones written later in what is
 * left), of writes deferred, and the minutes throttled. `'peak'`: the floor covers the peak all
 * day. `'follow'`: it covers the rest of the day and auto-scaling follows the peak.
 */
export function provisionedDay(
  peak: { ratio: number; hours: number },
  floor: 'peak' | 'follow',
  s = AUTO_SCALING,
) {
  if (floor === 'peak') return { utilisation: s.target / peak.ratio, deferredShare: 0, throttledMin: 0 };
  const rest = (24 - peak.ratio * peak.hours) / (24 - peak.hours);
  let capacity = rest / s.target;
  let [provisioned, deferred, throttledMin, high, low] = [0, 0, 0, 0, 0];
  for (let minute = 0; minute < 1440; minute++) {
    const demand = minute < peak.hours * 60 ? peak.ratio : rest;
    const used = Math.min(demand, capacity);
    provisioned += capacity;
    deferred += demand - used;
    if (demand > used) throttledMin++;
    high = used / capacity > s.target + 1e-9 ? high + 1 : 0;
    low = used / capacity < s.target - 0.2 ? low + 1 : 0;
    if (high >= s.stepMin || low >= s.inLagMin) [capacity, high, low] = [used / s.target, 0, 0];
  }
  return { utilisation: 1440 / provisioned, deferredShare: deferred / 1440, throttledMin };
}

/** Traces a second under X-Ray's default rule (the construct sets no other): 1 a second, 5 % of the rest. */
export const xrayTracesPerSecond = (invocationsPerSecond: number) =>
  Math.min(1, invocationsPerSecond) + 0.05 * Math.max(0, invocationsPerSecond - 1);

/** Lambda's START (~72 B), END (~52 B) and REPORT (~140 B) lines of an invocation: an estimate. */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 264;

export function defaultAssumptions(stack: {
  batchSize: number;
  memoryMb: number;
  attemptTimeoutMs: number;
  attemptTtlDays: number;
}): Assumptions {
  return {
    batchSize: stack.batchSize,
    batchingWindowS: 0,
    eventsPerSecond: 100,
    memoryMb: stack.memoryMb,
    publishBatchSize: 1,
    latency: DEFAULT_LATENCY,
    awsCallMs: 10,
    attemptTimeoutMs: stack.attemptTimeoutMs,
    platformLogBytesPerInvocation: PLATFORM_LOG_BYTES_PER_INVOCATION,
    logLevel: 'INFO',
    ttlDaysSuccess: stack.attemptTtlDays,
    ttlDaysFailure: stack.attemptTtlDays,
    ttlDeletionLagDays: 2,
    pitr: true,
    writeCapacity: { mode: 'on-demand' },
    tracing: false,
    connections: 1_000,
    connectionCacheS: 30,
    readUnitsPerCacheMiss: 0.5,
  };
}

/** Shares of deliveries by kind; they sum to 1. */
export type Mix = Record<DeliveryKind, number>;

export interface Scenario {
  key: 'healthy' | 'healthyBatched' | 'failing10' | 'hanging1';
  name: string;
  description: string;
  mix: Mix;
  publishBatchSize: 1 | 10;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    key: 'healthy',
    name: 'healthy',
    description: 'every receiver answers 2xx; upstream publishes one event per SendMessage',
    mix: { healthy: 1, failing: 0, hanging: 0 },
    publishBatchSize: 1,
  },
  {
    key: 'healthyBatched',
    name: 'healthy, batched publish',
    description: 'as healthy, upstream publishes ten events per SendMessageBatch',
    mix: { healthy: 1, failing: 0, hanging: 0 },
    publishBatchSize: 10,
  },
  {
    key: 'failing10',
    name: '10% failing',
    description: '10% of receivers answer 503 to every attempt; one event per SendMessage',
    mix: { healthy: 0.9, failing: 0.1, hanging: 0 },
    publishBatchSize: 1,
  },
  {
    key: 'hanging1',
    name: '1% hanging',
    description:
      '1% of receivers never answer (each attempt runs into the 30 s deadline); one event per SendMessage',
    mix: { healthy: 0.99, failing: 0, hanging: 0.01 },
    publishBatchSize: 1,
  },
];

const weighted = (mix: Mix, value: (k: DeliveryKind) => number) =>
  KINDS.reduce((sum, k) => sum + mix[k] * value(k), 0);

/** Probability that a batch of `n` messages holds at least one of a share `p`. */
export function batchHitProbability(p: number, n: number): number {
  return 1 - (1 - p) ** n;
}

/**
 * Messages per invocation: each of the event source's pollers takes what arrived during its last
 * cycle (invocation plus batching window), at least one message, at most the batch size.
 */
export function batchFill(messagesPerSecond: number, cycleS: number, batchSize: number): number {
  return Math.min(batchSize, Math.max(1, (messagesPerSecond * cycleS) / SQS_EVENT_SOURCE_POLLERS));
}

export interface LambdaUsage {
  /** Messages per invocation (mean). */
  fill: number;
  invocations: number;
  /** Mean billed duration of an invocation, ms. */
  durationMs: number;
  gbSeconds: number;
  /** Share of invocations that wait for a hanging receiver. */
  hangingBatchShare: number;
  /** Warm containers the traffic keeps busy (Little's law: invocations/s × duration). */
  containers: number;
}

/** Duration of one invocation of `fill` messages, `hangShare` of them hanging. */
function invocationMs(fill: number, hangShare: number, figures: Figures, a: Assumptions) {
  const cpuShare = Math.min(1, a.memoryMb / MB_PER_VCPU);
  const cpuMs = (fill * figures.cpuMicrosPerDelivery) / 1000 / cpuShare;
  const hanging = batchHitProbability(hangShare, Math.max(1, Math.round(fill)));
  const wait = expectedSlowestMs(a.latency, Math.max(1, Math.round(fill)), a.attemptTimeoutMs);
  return {
    ms: invocationWallMs(cpuMs, hanging * a.attemptTimeoutMs + (1 - hanging) * wait) + a.awsCallMs,
    hanging,
  };
}

/**
 * The share of the shorter of an invocation's CPU and wait that is serial with the longer,
 * fitted to the runs under Lambda's CPU share (bench/billed/, docs/design.md §12): 0.17 to 0.5 measured.
 */
export const SERIAL_SHARE = 0.3;

/**
 * Wall time of an invocation needing `cpuMs` of CPU and waiting `waitMs` for its slowest receiver:
 * the longer plus {@link SERIAL_SHARE} of the shorter. They overlap, but the CPU before the slowest
 * request leaves and after its answer is serial (adding both over-estimated the bill by 17-27 %).
 */
export function invocationWallMs(cpuMs: number, waitMs: number): number {
  return Math.max(cpuMs, waitMs) + SERIAL_SHARE * Math.min(cpuMs, waitMs);
}

/**
 * One event source at the assumed traffic: invocations per delivery and their length. The fill
 * depends on the invocation's length, which depends on the fill: a fixed point.
 */
function sourceUsage(
  messagesPerDelivery: number,
  hangShare: number,
  batchSize: number,
  windowS: number,
  figures: Figures,
  a: Assumptions,
) {
  if (messagesPerDelivery <= 0) return { invocationsPerDelivery: 0, ms: 0, hanging: 0 };
  const rate = a.eventsPerSecond * messagesPerDelivery;
  let fill = 1;
  let inv = invocationMs(fill, hangShare, figures, a);
  for (let i = 0; i < 30; i++) {
    fill = batchFill(rate, windowS + inv.ms / 1000, batchSize);
    inv = invocationMs(fill, hangShare, figures, a);
  }
  return { invocationsPerDelivery: messagesPerDelivery / fill, ms: inv.ms, hanging: inv.hanging };
}

/**
 * Invocations and GB-s for `deliveries` deliveries of a mix at the assumed traffic. The two
 * event sources batch on their own: the ingress queue's first attempts with the stack's batch
 * size and window, the retry queue's retries in batches of at most 10 with no window (so 1, 2
 * and 4 s stay 1, 2 and 4 s).
 */
export function lambdaUsage(mix: Mix, deliveries: number, figures: Figures, a: Assumptions): LambdaUsage {
  const messages = weighted(mix, (k) => figures.kinds[k].messages);
  const hangingMessages = mix.hanging * figures.kinds.hanging.messages;
  // Every delivery's first attempt comes from the ingress queue (one event, one connection).
  const ingress = sourceUsage(1, mix.hanging, a.batchSize, a.batchingWindowS, figures, a);
  const retryMessages = messages - 1;
  const retry = sourceUsage(
    retryMessages,
    retryMessages > 0 ? (hangingMessages - mix.hanging) / retryMessages : 0,
    Math.min(a.batchSize, MAX_BATCH_SIZE_WITHOUT_WINDOW),
    0,
    figures,
    a,
  );
  const ingressInvocations = ingress.invocationsPerDelivery * deliveries;
  const retryInvocations = retry.invocationsPerDelivery * deliveries;
  const invocations = ingressInvocations + retryInvocations;
  const totalMs = ingressInvocations * ingress.ms + retryInvocations * retry.ms;
  return {
    fill: (messages * deliveries) / invocations,
    invocations,
    durationMs: totalMs / invocations,
    gbSeconds: (totalMs / 1000) * (a.memoryMb / 1024),
    hangingBatchShare:
      (ingressInvocations * ingress.hanging + retryInvocations * retry.hanging) / invocations,
    containers: Math.max(1, (a.eventsPerSecond * (invocations / deliveries) * totalMs) / invocations / 1000),
  };
}

export interface Line {
  item: string;
  perMillion: number;
}

export interface ScenarioCost {
  scenario: Scenario;
  lambda: LambdaUsage;
  sqsRequests: number;
  lines: Line[];
  perMillion: number;
}

const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / SQS_CHUNK_BYTES));

/**
 * ReceiveMessage returns at most 10 messages and DeleteMessageBatch deletes at most 10 (SQS API
 * reference): an event source handing the function 100 records made 10 receives and 10 deletes
 * for them. Whatever the batch size, receive and delete cost each at least a tenth of a request
 * per message: 0.2 together.
 */
export const SQS_MESSAGES_PER_REQUEST = 10;

/**
 * Receive or delete requests per message: the counted requests per batch over its fill, never
 * below {@link SQS_MESSAGES_PER_REQUEST}'s floor.
 */
export function sqsRequestsPerMessage(perBatch: number, fill: number): number {
  return Math.max(perBatch / Math.max(1, fill), 1 / SQS_MESSAGES_PER_REQUEST);
}

/** SQS requests per delivery of a kind, for the doc's table. */
export function sqsRequestsPerDelivery(kind: DeliveryKind, figures: Figures, a: Assumptions, fill: number) {
  const k = figures.kinds[kind];
  // Each receive carries at most 10 messages: its payload, in 64 KB chunks, is at most 10 of the largest.
  const perReceiveChunks = chunks(
    figures.largestMessageBytes * Math.min(a.batchSize, SQS_MESSAGES_PER_REQUEST),
  );
  const publish =
    a.publishBatchSize === 10 ? figures.publishRequests.batched : figures.publishRequests.single;
  const receive = k.messages * sqsRequestsPerMessage(figures.receivesPerBatch, fill) * perReceiveChunks;
  const del = k.messages * sqsRequestsPerMessage(figures.deletesPerBatch, fill);
  return { publish, receive, delete: del, sends: k.sqsSends, total: publish + receive + del + k.sqsSends };
}

/** This pipeline's variable cost per million deliveries of a scenario. */
export function scenarioCost(
  scenario: Scenario,
  figures: Figures,
  prices: Prices,
  base: Assumptions,
): ScenarioCost {
  const a: Assumptions = { ...base, publishBatchSize: scenario.publishBatchSize };
  const n = MILLION;
  const mix = scenario.mix;
  const lambda = lambdaUsage(mix, n, figures, a);
  const sqs = (part: 'publish' | 'receive' | 'delete' | 'sends') =>
    weighted(mix, (k) => sqsRequestsPerDelivery(k, figures, a, lambda.fill)[part]) * n;
  const perM = (q: number, pricePerMillion: number) => (q * pricePerMillion) / MILLION;
  const writeUnits = weighted(mix, (k) => figures.kinds[k].writeUnits) * n;
  const cacheReads = connectionReadsPerDelivery(
    a.eventsPerSecond,
    a.connections,
    lambda.containers,
    a.connectionCacheS,
  );
  const readUnits =
    (weighted(mix, (k) => figures.kinds[k].readUnits) + cacheReads * a.readUnitsPerCacheMiss) * n;
  const secretCalls = weighted(mix, (k) => figures.kinds[k].secretCalls) * n;
  // Storage: bytes (with per-item overhead) kept for the TTL and until deleted; index entries too.
  const gbMonths = (bytes: (f: KindFigures) => number, days: (k: DeliveryKind) => number) =>
    weighted(mix, (k) => (bytes(figures.kinds[k]) * days(k)) / DAYS_PER_MONTH) * (n / GIB);
  const table = (f: KindFigures) => f.itemBytes + f.items * DYNAMODB_ITEM_OVERHEAD_BYTES;
  const index = (f: KindFigures) => f.indexBytes + f.indexItems * DYNAMODB_ITEM_OVERHEAD_BYTES;
  const ttl = (k: DeliveryKind) => (k === 'healthy' ? a.ttlDaysSuccess : a.ttlDaysFailure);
  // PITR bills the table's size, which holds expired items until they are deleted.
  const stored = (days: (k: DeliveryKind) => number) =>
    (gbMonths(table, days) + gbMonths(index, days)) * prices.dynamoDbStoragePerGbMonth +
    (a.pitr ? gbMonths(table, days) * prices.dynamoDbPitrPerGbMonth : 0);
  const invocationsPerSecond = (a.eventsPerSecond * lambda.invocations) / n;
  const traces = a.tracing ? (xrayTracesPerSecond(invocationsPerSecond) / a.eventsPerSecond) * n : 0;
  const logGb =
    (weighted(mix, (k) =>
      a.logLevel === 'INFO' ? figures.kinds[k].logBytes : figures.kinds[k].logBytesAtDebug,
    ) *
      n +
      lambda.invocations * a.platformLogBytesPerInvocation) /
    GIB;
  const wireGb =
    (weighted(mix, (k) => figures.kinds[k].attempts * figures.kinds[k].wireBytesPerAttempt) * n) / GIB;
  const lines: Line[] = (
    [
      [
        `SQS publish (${a.publishBatchSize === 10 ? 'SendMessageBatch of 10' : 'SendMessage per event'})`,
        perM(sqs('publish'), prices.sqsPerMillionRequests),
      ],
      [
        `SQS receive + delete by the event source (${lambda.fill.toFixed(1)} messages per batch)`,
        perM(sqs('receive') + sqs('delete'), prices.sqsPerMillionRequests),
      ],
      [
        'SQS retries and dead letters sent by the dispatcher',
        perM(sqs('sends'), prices.sqsPerMillionRequests),
      ],
      ['Lambda requests', perM(lambda.invocations, prices.lambdaPerMillionRequests)],
      [
        `Lambda duration, arm64 ${a.memoryMb} MB (${Math.round(lambda.durationMs)} ms per invocation)`,
        lambda.gbSeconds * prices.lambdaArmPerGbSecond,
      ],
      [
        `DynamoDB writes (${a.writeCapacity.mode === 'on-demand' ? 'on-demand' : `provisioned at ${Math.round(a.writeCapacity.utilisation * 100)}% use`})`,
        perM(writeUnits, writeUnitPrice(prices, a.writeCapacity)),
      ],
      [
        `DynamoDB connection reads (${a.connections} connections, ${a.connectionCacheS} s cache, ${lambda.containers.toFixed(1)} warm containers)`,
        perM(readUnits, prices.dynamoDbPerMillionReadUnits),
      ],
      ['Secrets Manager calls past the cache', (secretCalls / 10_000) * prices.secretsManagerPer10kCalls],
      [
        `DynamoDB storage of the attempt log and its indexes (TTL ${a.ttlDaysSuccess === a.ttlDaysFailure ? `${a.ttlDaysSuccess} d` : `${a.ttlDaysSuccess} d successes, ${a.ttlDaysFailure} d failures`})`,
        (gbMonths(table, ttl) + gbMonths(index, ttl)) * prices.dynamoDbStoragePerGbMonth,
      ],
      [
        'DynamoDB point-in-time recovery of the attempt log',
        a.pitr ? gbMonths(table, ttl) * prices.dynamoDbPitrPerGbMonth : 0,
      ],
      [
        `DynamoDB storage past the TTL (expired items wait up to ${a.ttlDeletionLagDays} d for deletion${a.pitr ? ', PITR too' : ''})`,
        stored(() => a.ttlDeletionLagDays),
      ],
      [`CloudWatch Logs ingestion (${a.logLevel})`, logGb * prices.logsPerGbIngested],
      ['Data transfer out to receivers', wireGb * prices.dataTransferOutPerGb],
      [
        `X-Ray traces (tracing ${a.tracing ? 'on' : 'off'}; 1 invocation a second and 5% of the rest, each retrieved once)`,
        perM(traces, prices.xrayPerMillionTracesRecorded + prices.xrayPerMillionTracesRetrieved),
      ],
    ] as const
  ).map(([item, perMillion]) => ({ item, perMillion }));
  const sqsRequests = sqs('publish') + sqs('receive') + sqs('delete') + sqs('sends');
  return {
    scenario,
    lambda,
    sqsRequests,
    lines,
    perMillion: lines.reduce((sum, l) => sum + l.perMillion, 0),
  };
}

export interface FixedInputs {
  connections: number;
  /** Events per second over all connections: how many connections a container delivers to in its life. */
  eventsPerSecond: number;
  /** Warm containers (execution environments) the traffic keeps busy at once. */
  warmContainers: number;
  /** How long a container keeps a secret it read (the stores cache each for 24 h). */
  secretCacheS: number;
  /**
   * How long a warm container lives before Lambda replaces it (and its caches start empty):
   * {@link CONTAINER_LIFETIME_S}.
   */
  containerLifetimeS: number;
  /** Secrets Manager secrets the stack makes besides the connections' (the console's session key). */
  otherSecrets: number;
  /** The stack's alarms, dashboard, Contributor Insights rule and metrics: {@link observabilityLines}. */
  observability: ObservabilityInputs;
  /** Secrets in Secrets Manager (default) or encrypted with one stack KMS key in the connection item. */
  secretStore: 'secrets-manager' | 'kms';
  /**
   * KMS Decrypt calls the kms store makes per secret read (a container's first delivery to a
   * connection, or to a new version), counted by the bench (`apiCallsKms`). @default 1
   */
  kmsDecryptsPerSecretRead?: number;
  /** Pollers of the idle event sources (5 per source, each a 20 s long poll when nothing arrives). */
  idlePollers: number;
  /** Tables a warm container uses (attempts, connections; parked on failures): {@link TABLE_KEY_CACHE_S}. @default 2 */
  tablesPerContainer?: number;
}

/** The tables use the AWS managed key aws/dynamodb (requests billed; an AWS owned key bills none). DynamoDB caches a
 * table key per connection up to 5 min: one request per table and container each 5 min (one SDK connection each). */
export const TABLE_KEY_CACHE_S = 300;

/**
 * How long a busy Lambda container lives: 2 hours, as observed
 * (https://xebia.com/blog/til-that-aws-lambda-terminates-instances-preemptively/); Lambda replaces
 * environments periodically even under continuous invocation. A new one reads every secret again.
 */
export const CONTAINER_LIFETIME_S = 2 * 3600;

/**
 * Secret reads a month: a container reads a connection's secret when it first delivers to it,
 * and again when its cache expires or the container is replaced; with `x` deliveries of a
 * connection per container in that period, it reads 1 − e^−x of the connections each period.
 */
export function secretReadsPerMonth(
  f: Pick<
    FixedInputs,
    'connections' | 'eventsPerSecond' | 'warmContainers' | 'secretCacheS' | 'containerLifetimeS'
  >,
): number {
  const periodS = Math.min(f.secretCacheS, f.containerLifetimeS);
  const containers = Math.max(1, f.warmContainers);
  const x = ((f.eventsPerSecond / f.connections) * periodS) / containers;
  const touched = f.connections * (1 - Math.exp(-x));
  return containers * touched * (MONTH_S / periodS);
}

/** A key with yearly rotation: its own month, and one for each of its first two rotations (KMS pricing). */
export const KMS_KEY_MONTHS_WITH_ROTATION = 3;

export interface FixedCost {
  perMonth: number;
  lines: Array<{ item: string; perMonth: number }>;
}

/** Fixed monthly cost, for `connections` connections and one stack. */
export function fixedCost(f: FixedInputs, prices: Prices): FixedCost {
  const secretReads = secretReadsPerMonth(f);
  const idleReceives = f.idlePollers * (MONTH_S / 20);
  const period = `${Math.min(f.secretCacheS, f.containerLifetimeS) / 3600} h`;
  const readers = `${f.warmContainers.toFixed(1)} warm containers each read a secret once per ${period} (a container lives ${f.containerLifetimeS / 3600} h, the cache keeps ${f.secretCacheS / 3600} h)`;
  const otherSecrets = {
    item: `Secrets Manager: the stack's other secrets (${f.otherSecrets}: the console's session key)`,
    perMonth: f.otherSecrets * prices.secretsManagerPerSecretMonth,
  };
  const lines =
    f.secretStore === 'secrets-manager'
      ? [
          {
            item: `Secrets Manager: one secret per connection (${f.connections})`,
            perMonth: f.connections * prices.secretsManagerPerSecretMonth,
          },
          otherSecrets,
          {
            item: `GetSecretValue: ${readers}`,
            perMonth: (secretReads / 10_000) * prices.secretsManagerPer10kCalls,
          },
          {
            item: 'KMS decrypts behind those reads (aws/secretsmanager key: requests only)',
            perMonth: (secretReads / 10_000) * prices.kmsPer10kRequests,
          },
        ]
      : [
          {
            // KMS bills each of the first two rotations of a key's material $1 a month more (none after).
            item: `KMS: one customer managed key for the stack, rotated yearly ($${prices.kmsPerKeyMonth} a month, +$${prices.kmsPerKeyMonth} for each of its first two rotations)`,
            perMonth: KMS_KEY_MONTHS_WITH_ROTATION * prices.kmsPerKeyMonth,
          },
          otherSecrets,
          {
            item: `KMS Decrypt: ${readers} (${f.kmsDecryptsPerSecretRead ?? 1} Decrypt per secret read, counted; none per delivery)`,
            perMonth: ((secretReads * (f.kmsDecryptsPerSecretRead ?? 1)) / 10_000) * prices.kmsPer10kRequests,
          },
        ];
  const tables = f.tablesPerContainer ?? 2;
  const keyRequests = (f.warmContainers * tables * MONTH_S) / TABLE_KEY_CACHE_S;
  lines.push(
    {
      item: `DynamoDB table keys (aws/dynamodb), KMS requests: ${f.warmContainers.toFixed(1)} warm containers × ${tables} tables, one every ${TABLE_KEY_CACHE_S / 60} min`,
      perMonth: (keyRequests / 10_000) * prices.kmsPer10kRequests,
    },
    ...observabilityLines(f.observability, prices),
    {
      item: `Idle long polling of the ingress and retry queues (${f.idlePollers} pollers, 20 s polls)`,
      perMonth: (idleReceives / MILLION) * prices.sqsPerMillionRequests,
    },
  );
  return { perMonth: lines.reduce((s, l) => s + l.perMonth, 0), lines };
}

/**
 * What watching the stack costs: its CloudWatch alarms, dashboard, Contributor Insights rule and
 * metrics, counted in the synthesised stack (test/infra/cost.test.ts holds the counts).
 */
export interface ObservabilityInputs {
  alarms: number;
  /** Metrics the alarms name: an alarm on metric math is billed for each metric in it. */
  alarmMetrics: number;
  /** Composite alarms (the burn-rate alerts), billed each on its own. @default 0 */
  compositeAlarms?: number;
  dashboards: number;
  contributorInsightsRules: number;
  /** Log events the rules match a month: one per failed attempt. */
  contributorInsightsEventsPerMonth: number;
  /** Custom metrics: each name with each dimension set it is emitted with ({@link catalogueMetricCount}). */
  customMetrics: number;
  /** Lambda's per-event-source-mapping counts the stack turns on (`EventCount`), per mapping times mappings. */
  eventSourceMappingMetrics: number;
}

/**
 * Custom metrics the catalogue allows: each metric with `[Stack]` alone, and with `[Stack, X]`
 * for each value of each second dimension it is emitted by (the metric's own `values` of X
 * when it names them: a delivery is parked for 3 of the 7 dead-letter reasons). An upper bound: CloudWatch bills a
 * combination only in the months it is emitted (a dead-letter reason that never happens costs nothing).
 */
export function catalogueMetricCount(
  metrics: Record<string, { by: readonly string[]; values?: Readonly<Record<string, readonly string[]>> }>,
  dimensions: Record<string, readonly string[]>,
): number {
  return Object.values(metrics).reduce(
    (sum, m) => sum + 1 + m.by.reduce((n, d) => n + ((m.values?.[d] ?? dimensions[d])?.length ?? 0), 0),
    0,
  );
}

/** One named line per item, so that each fixed cost can be spread per delivery on its own. */
export function observabilityLines(
  o: ObservabilityInputs,
  prices: Prices,
): Array<{ item: string; perMonth: number }> {
  const insightMillions = o.contributorInsightsEventsPerMonth / MILLION;
  return [
    {
      item: `CloudWatch alarms (${o.alarms} alarms naming ${o.alarmMetrics} metrics: metric math bills each metric)`,
      perMonth: o.alarmMetrics * prices.cloudWatchAlarmPerMonth,
    },
    ...(o.compositeAlarms
      ? [
          {
            item: `CloudWatch composite alarms (${o.compositeAlarms}: the delivery objectives' burn rates)`,
            perMonth: o.compositeAlarms * prices.cloudWatchCompositeAlarmPerMonth,
          },
        ]
      : []),
    {
      item: `CloudWatch dashboard (${o.dashboards}; an account's first 3 are free)`,
      perMonth: o.dashboards * prices.cloudWatchDashboardPerMonth,
    },
    {
      item: `Contributor Insights rule, failing connections (${o.contributorInsightsRules})`,
      perMonth: o.contributorInsightsRules * prices.contributorInsightsRulePerMonth,
    },
    {
      item: `Contributor Insights: failed-attempt log lines matched (${Number(insightMillions.toPrecision(3))} million a month)`,
      perMonth: insightMillions * prices.contributorInsightsPerMillionEvents,
    },
    {
      item: `Custom metrics (${o.customMetrics}: the catalogue's metric and dimension-set combinations, billed in months each is emitted)`,
      perMonth: o.customMetrics * prices.cloudWatchCustomMetricPerMonth,
    },
    {
      item: `Event source mapping metrics (${o.eventSourceMappingMetrics}: EventCount on both mappings, priced as custom metrics)`,
      perMonth: o.eventSourceMappingMetrics * prices.cloudWatchCustomMetricPerMonth,
    },
  ];
}

export interface Alternative {
  name: string;
  includes: string;
  /** Dollars per million deliveries of a mix, variable part only. */
  perMillion(mix: Mix): number;
}

/**
 * The alternatives of the comparison, priced the same way: per delivery, each attempt counted
 * where the product bills attempts (a failing or hanging receiver gets 4 attempts, as here).
 */
export function alternatives(prices: Prices, attemptsPerChain: number): Alternative[] {
  const attempts = (mix: Mix) => mix.healthy + (mix.failing + mix.hanging) * attemptsPerChain;
  const failed = (mix: Mix) => mix.failing + mix.hanging;
  const perM = (n: number, price: number) => n * price;
  return [
    {
      name: 'EventBridge bus + API destination',
      includes:
        'delivery and retries (up to 24 h); auth by Basic/API key/OAuth, no per-request signature; no attempt log; SQS DLQ',
      perMillion: (mix) =>
        perM(1, prices.eventBridgeCustomEventsPerMillion) +
        perM(attempts(mix), prices.apiDestinationPerMillionInvocations) +
        perM(failed(mix), prices.sqsPerMillionRequests),
    },
    {
      name: 'EventBridge Pipes (SQS → API destination)',
      includes: "delivery; retries by SQS redrive; no signature, no attempt log; the source queue's DLQ",
      // SQS: the publish, then batches of 10 received once per attempt (retries by redrive) and deleted once delivered.
      perMillion: (mix) =>
        perM(1 + attempts(mix) * 0.1 + 0.1 * (1 - failed(mix)), prices.sqsPerMillionRequests) +
        perM(attempts(mix), prices.pipesPerMillionRequests) +
        perM(attempts(mix), prices.apiDestinationPerMillionInvocations),
    },
    {
      name: 'Hookdeck (list price per event)',
      includes: 'hosted: signing, retries, event log (7 days on Team), replay; plan fee apart',
      perMillion: () => perM(1, prices.hookdeckPerMillionEvents),
    },
    {
      name: 'Svix Professional (list price per message)',
      includes: 'hosted: Standard Webhooks signing, retries, 90-day log, replay, portal; plan fee apart',
      perMillion: () => perM(1, prices.svixPerMillionMessages),
    },
  ];
}

/** The chance that n deliveries to connections drawn uniformly (each 1 in 1/q) send j or more to one. */
function atLeastOf(n: number, q: number, j: number): number {
  if (j > n) return 0;
  let below = 0;
  let ways = 1; // n choose i
  for (let i = 0; i < j; i++) {
    below += ways * q ** i * (1 - q) ** (n - i);
    ways *= (n - i) / (i + 1);
  }
  return Math.max(0, 1 - below);
}

/**
 * The share of attempts that open a new TLS connection. Each container takes a batch of
 * `meanFill` deliveries (a mix of the two whole sizes around it), sent at once to connections
 * drawn uniformly, every `containers × meanFill ÷ deliveriesPerSecond` seconds: the rate served,
 * below the published one while a backlog builds. The pool reuses the most recently freed socket
 * first, so the j-th request at once to an origin finds a socket open only if a batch within the
 * sender's idle time (`idle`: seconds, by share of receivers) sent j or more there.
 * bench/billed/ measures it (docs/performance.md §11).
 */
export function newConnectionShare(
  t: { deliveriesPerSecond: number; connections: number; containers: number; meanFill: number },
  idle: ReadonlyArray<{ seconds: number; share: number }>,
): number {
  if (t.meanFill > 1_000) throw new RangeError(`batches of ${t.meanFill} are past the model (1,000 at most)`);
  const fill = Math.max(1, t.meanFill);
  const q = 1 / Math.max(1, t.connections);
  const batchRate = t.deliveriesPerSecond / (Math.max(1, t.containers) * fill);
  const [a, b] = [Math.floor(fill), Math.ceil(fill)];
  // The chance that a batch (of a or b, in the mix that keeps the mean) sends j or more to one origin.
  const at = (j: number) => (1 - fill + a) * atLeastOf(a, q, j) + (fill - a) * atLeastOf(b, q, j);
  const atLeast = Array.from({ length: b }, (_, j) => at(j + 1));
  const opened = (s: number) => atLeast.reduce((n, p) => n + p * (1 - p) ** (batchRate * s), 0) / (fill * q);
  return idle.reduce((s, k) => s + k.share * opened(k.seconds), 0) / idle.reduce((s, k) => s + k.share, 0);
}
