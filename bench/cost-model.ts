/**
 * The cost model of docs/cost.md: pure arithmetic from measured figures (bench results), a
 * price table (bench/prices.ts) and the assumptions below. test/unit/cost.test.ts holds the
 * formulas to account.
 *
 * Counting follows the design (DESIGN.md §3-§5): upstream publishes one event per delivery
 * (one connection per event); the event source receives batches of up to 10 and deletes
 * each batch with one DeleteMessageBatch; a failed attempt schedules the next with one
 * SendMessage; the 4th failure sends one message to the DLQ. SQS bills every 64 KB of a
 * request's payload as one request.
 */

import { ATTEMPTS_PER_CHAIN } from '../lambdas/core/constants';
import type { Prices } from './prices';
import { ATTEMPT_TIMEOUT_MS, BATCH_SIZE, DEFAULT_MEMORY_MB } from './support/constants';

/** SQS bills each 64 KB chunk of a request's payload as one request. */
export const SQS_CHUNK_BYTES = 64 * 1024;
/** AWS Lambda: at 1,769 MB a function has the equivalent of one vCPU; CPU scales with memory. */
export const MB_PER_VCPU = 1_769;
const MILLION = 1_000_000;
const GIB = 1024 ** 3;

export type DeliveryKind = 'healthy' | 'failing' | 'hanging';

/** What the model takes from a bench run (see figuresFrom in bench/cost.ts). */
export interface Figures {
  /** CPU per delivery of the whole path (dispatcher, SDK calls): µs of one full core. */
  cpuMicrosPerDelivery: number;
  /** Write units of one delivery, indexes included, by kind. */
  writeUnits: Record<DeliveryKind, number>;
  /** Bytes the dispatcher logs for one delivery, by kind, at the default level (INFO: no line for a success)… */
  logBytes: Record<DeliveryKind, number>;
  /** …and at DEBUG, which adds one line per delivered attempt. */
  logBytesAtDebug: Record<DeliveryKind, number>;
  /** Bytes of the messages on the queues: the published event, a retry, a dead letter. */
  messageBytes: { event: number; retry: number; deadLetter: number };
}

/** What is assumed rather than measured; docs/cost.md prints every one of them. */
export interface Assumptions {
  /** Records per invocation (the stack's SQS event source). */
  batchSize: number;
  /** Memory of the dispatcher, MB. */
  memoryMb: number;
  /** Events per SendMessage(Batch) call of the upstream publisher (1 = one call per event). */
  publishBatchSize: number;
  /** Time for the slowest receiver of a batch to answer (all attempts of a batch run at once). */
  receiverLatencyMs: number;
  /** Time of the AWS calls an attempt waits for after the response (attempt-log PutItem, retry SendMessage). */
  awsCallMs: number;
  /** How long a hanging receiver holds an attempt: the attempt deadline. */
  attemptTimeoutMs: number;
  /** Lambda's own START/END/REPORT lines per invocation, bytes. */
  platformLogBytesPerInvocation: number;
  /** Log level of the dispatcher. */
  logLevel: 'INFO' | 'DEBUG';
}

/**
 * START (~72 B), END (~52 B) and REPORT (~140 B) lines of an invocation in Lambda's text log
 * format, with a 36-character request id: an estimate from their documented format.
 */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 264;

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  batchSize: BATCH_SIZE,
  memoryMb: DEFAULT_MEMORY_MB,
  publishBatchSize: 1,
  receiverLatencyMs: 100,
  awsCallMs: 10,
  attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
  platformLogBytesPerInvocation: PLATFORM_LOG_BYTES_PER_INVOCATION,
  logLevel: 'INFO',
};

/** Shares of deliveries by kind; they sum to 1. */
export interface Scenario {
  name: string;
  description: string;
  mix: Record<DeliveryKind, number>;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'all healthy',
    description: 'every receiver answers 2xx',
    mix: { healthy: 1, failing: 0, hanging: 0 },
  },
  {
    name: '10% failing',
    description: '10% of receivers answer 503 to every attempt',
    mix: { healthy: 0.9, failing: 0.1, hanging: 0 },
  },
  {
    name: '1% hanging',
    description: '1% of receivers never answer (each attempt runs into the 30 s deadline)',
    mix: { healthy: 0.99, failing: 0, hanging: 0.01 },
  },
];

/** Queue messages one delivery is handed to the dispatcher as: the event, then one per retry. */
export function messagesPerDelivery(kind: DeliveryKind): number {
  return kind === 'healthy' ? 1 : ATTEMPTS_PER_CHAIN;
}

const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / SQS_CHUNK_BYTES));

export interface SqsRequests {
  publish: number;
  receive: number;
  delete: number;
  retry: number;
  deadLetter: number;
  total: number;
}

/** Billed SQS requests of one delivery of a kind. */
export function sqsRequestsPerDelivery(kind: DeliveryKind, figures: Figures, a: Assumptions): SqsRequests {
  const { event, retry: retryBytes, deadLetter: deadLetterBytes } = figures.messageBytes;
  const messages = messagesPerDelivery(kind);
  const retries = messages - 1;
  // A batch call is billed per 64 KB of its whole payload, shared by the messages in it.
  const publish = chunks(event * a.publishBatchSize) / a.publishBatchSize;
  const perReceivedMessage = (bytes: number) => chunks(bytes * a.batchSize) / a.batchSize;
  const receive = perReceivedMessage(event) + retries * perReceivedMessage(retryBytes);
  const deleted = messages / a.batchSize;
  const retry = retries * chunks(retryBytes);
  const deadLetter = kind === 'healthy' ? 0 : chunks(deadLetterBytes);
  return {
    publish,
    receive,
    delete: deleted,
    retry,
    deadLetter,
    total: publish + receive + deleted + retry + deadLetter,
  };
}

/** Probability that a batch of `batchSize` messages holds at least one of a share `p`. */
export function batchHitProbability(p: number, batchSize: number): number {
  return 1 - (1 - p) ** batchSize;
}

export interface LambdaUsage {
  invocations: number;
  /** Mean billed duration of an invocation, ms. */
  durationMs: number;
  gbSeconds: number;
  /** Share of invocations that wait for a hanging receiver. */
  hangingBatchShare: number;
}

/**
 * Invocations and GB-s for `deliveries` deliveries of a mix. An invocation's duration is its
 * CPU at the function's share of a vCPU, plus the wait for the slowest receiver of its batch
 * (the attempt deadline if one of them hangs), plus the AWS calls after it. CPU and waiting
 * are added, not overlapped: an upper bound.
 */
export function lambdaUsage(
  mix: Scenario['mix'],
  deliveries: number,
  figures: Figures,
  a: Assumptions,
): LambdaUsage {
  const messages = (Object.keys(mix) as DeliveryKind[]).reduce(
    (sum, kind) => sum + mix[kind] * messagesPerDelivery(kind),
    0,
  );
  const hangingShare = (mix.hanging * messagesPerDelivery('hanging')) / messages;
  const hangingBatchShare = batchHitProbability(hangingShare, a.batchSize);
  const cpuShare = a.memoryMb / MB_PER_VCPU;
  const cpuMs = (a.batchSize * figures.cpuMicrosPerDelivery) / 1000 / cpuShare;
  const waitMs = hangingBatchShare * a.attemptTimeoutMs + (1 - hangingBatchShare) * a.receiverLatencyMs;
  const durationMs = cpuMs + waitMs + a.awsCallMs;
  const invocations = (messages * deliveries) / a.batchSize;
  return {
    invocations,
    durationMs,
    gbSeconds: (invocations * durationMs * a.memoryMb) / 1024 / 1000,
    hangingBatchShare,
  };
}

export interface LineItem {
  service: string;
  quantity: number;
  unit: string;
  dollars: number;
}

export interface ScenarioCost {
  scenario: Scenario;
  deliveries: number;
  sqs: SqsRequests;
  lambda: LambdaUsage;
  lines: LineItem[];
  total: number;
}

const weighted = (mix: Scenario['mix'], values: Record<DeliveryKind, number>) =>
  (Object.keys(mix) as DeliveryKind[]).reduce((sum, kind) => sum + mix[kind] * values[kind], 0);

/** This pipeline's variable cost of `deliveries` deliveries (default one million) of a scenario. */
export function scenarioCost(
  scenario: Scenario,
  figures: Figures,
  prices: Prices,
  a: Assumptions = DEFAULT_ASSUMPTIONS,
  deliveries = MILLION,
): ScenarioCost {
  const kinds = Object.keys(scenario.mix) as DeliveryKind[];
  const sqsByKind = Object.fromEntries(
    kinds.map((k) => [k, sqsRequestsPerDelivery(k, figures, a)]),
  ) as Record<DeliveryKind, SqsRequests>;
  const sqs = Object.fromEntries(
    (['publish', 'receive', 'delete', 'retry', 'deadLetter', 'total'] as const).map((field) => [
      field,
      weighted(
        scenario.mix,
        Object.fromEntries(kinds.map((k) => [k, sqsByKind[k][field]])) as Record<DeliveryKind, number>,
      ),
    ]),
  ) as unknown as SqsRequests;
  const lambda = lambdaUsage(scenario.mix, deliveries, figures, a);
  const writeUnits = weighted(scenario.mix, figures.writeUnits) * deliveries;
  const logBytes =
    weighted(scenario.mix, a.logLevel === 'INFO' ? figures.logBytes : figures.logBytesAtDebug) * deliveries +
    lambda.invocations * a.platformLogBytesPerInvocation;
  const logGb = logBytes / GIB;
  const lines: LineItem[] = [
    {
      service: 'SQS requests',
      quantity: sqs.total * deliveries,
      unit: 'requests',
      dollars: (sqs.total * deliveries * prices.sqsPerMillionRequests) / MILLION,
    },
    {
      service: 'Lambda requests',
      quantity: lambda.invocations,
      unit: 'invocations',
      dollars: (lambda.invocations * prices.lambdaPerMillionRequests) / MILLION,
    },
    {
      service: 'Lambda duration (arm64)',
      quantity: lambda.gbSeconds,
      unit: 'GB-s',
      dollars: lambda.gbSeconds * prices.lambdaArmPerGbSecond,
    },
    {
      service: 'DynamoDB writes (on-demand)',
      quantity: writeUnits,
      unit: 'write units',
      dollars: (writeUnits * prices.dynamoDbPerMillionWriteUnits) / MILLION,
    },
    {
      service: 'CloudWatch Logs ingestion',
      quantity: logGb,
      unit: 'GB',
      dollars: logGb * prices.logsPerGbIngested,
    },
  ];
  return { scenario, deliveries, sqs, lambda, lines, total: lines.reduce((sum, l) => sum + l.dollars, 0) };
}

export interface Alternative {
  name: string;
  /** Dollars per `deliveries` deliveries of a mix, variable part only. */
  cost(mix: Scenario['mix'], deliveries: number): number;
  /** Line of the breakdown, for the doc. */
  formula: string;
}

/**
 * The alternatives of the comparison, priced the same way: per delivery, each attempt counted
 * where the product bills attempts (a failing or hanging receiver gets 4 attempts, as here).
 */
export function alternatives(prices: Prices): Alternative[] {
  const attempts = (mix: Scenario['mix']) =>
    weighted(mix, { healthy: 1, failing: ATTEMPTS_PER_CHAIN, hanging: ATTEMPTS_PER_CHAIN });
  const failed = (mix: Scenario['mix']) => mix.failing + mix.hanging;
  const perMillion = (n: number, price: number) => (n * price) / MILLION;
  return [
    {
      name: 'EventBridge bus + API destination',
      formula:
        'PutEvents 1 event + 1 invocation per attempt (retry policy: 3 retries) + 1 SQS DLQ message per failed delivery',
      cost: (mix, n) =>
        perMillion(n, prices.eventBridgeCustomEventsPerMillion) +
        perMillion(n * attempts(mix), prices.apiDestinationPerMillionInvocations) +
        perMillion(n * failed(mix), prices.sqsPerMillionRequests),
    },
    {
      name: 'EventBridge Pipes (SQS → API destination)',
      formula:
        'SQS publish + batched receive/delete per attempt, 1 pipe request + 1 invocation per attempt; retries by SQS redrive (4 receives)',
      cost: (mix, n) =>
        perMillion(n * (1 + attempts(mix) * 0.1 + 0.1 * (1 - failed(mix))), prices.sqsPerMillionRequests) +
        perMillion(n * attempts(mix), prices.pipesPerMillionRequests) +
        perMillion(n * attempts(mix), prices.apiDestinationPerMillionInvocations),
    },
    {
      name: 'Hookdeck (list price per event)',
      formula: '1 event per delivery at the metered rate; the plan fee is in the fixed costs',
      cost: (_mix, n) => perMillion(n, prices.hookdeckPerMillionEvents),
    },
    {
      name: 'Svix Professional (list price per message)',
      formula: '1 message per delivery (retries are not billed); the plan fee is in the fixed costs',
      cost: (_mix, n) => perMillion(n, prices.svixPerMillionMessages),
    },
  ];
}

/** Fixed monthly cost of connection secrets: one Secrets Manager secret per connection. */
export function secretsPerMonth(connections: number, prices: Prices): number {
  return connections * prices.secretsManagerPerSecretMonth;
}

/**
 * Upper bound of GetSecretValue calls a month: a version is cached for 24 h by each warm
 * container, so at most one read per connection, container and day.
 */
export function secretReadsPerMonth(connections: number, warmContainers: number, days = 30): number {
  return connections * warmContainers * days;
}
