/**
 * The all-in cost of issue 26: at a stated traffic, each profile's (lib/profiles.ts) variable
 * lines of the cost model, plus the request bodies it keeps, one EMF metric document per
 * invocation, and every fixed monthly cost spread over the month's deliveries as a line of its
 * own. test/unit/all-in.test.ts holds the arithmetic to account.
 */

import { EmfMetrics } from '../lambdas/adapters/metrics/emf';
import type { KeepBodies } from '../lambdas/core/types';
import { type ProfileName, profileProps } from '../lib/profiles';
import type { SecretStoreName } from '../lib/secret-store';
import { type BodyStorageCase, measureBodyStorage } from './body-storage';
import {
  type Assumptions,
  DAYS_PER_MONTH,
  type Figures,
  type FixedInputs,
  fixedCost,
  forProfile,
  KINDS,
  MILLION,
  MONTH_S,
  type ObservabilityInputs,
  SCENARIOS,
  type Scenario,
  SQS_EVENT_SOURCE_POLLERS,
  scenarioCost,
  writeUnitPrice,
} from './cost-model';
import type { Prices } from './prices';

const GIB = 1024 ** 3;

/** The traffic issue 26 states the all-in figures at. */
export interface Traffic {
  eventsPerSecond: number;
  connections: number;
}
export const ALL_IN_TRAFFIC: Traffic = { eventsPerSecond: 100, connections: 1_000 };

/** A construct profile as the model sees it: its assumptions and the two choices they lack. */
export interface CostProfile {
  name: ProfileName;
  a: Assumptions;
  secretStore: SecretStoreName;
  keepBodies: KeepBodies;
  /** Writes a delivery of the measured (default) path makes that this profile does not: search's 2, claims' 2. */
  writesOff: number;
}

/** The model's assumptions for a profile of lib/profiles.ts, from the stack defaults' `base`. */
export function costProfile(name: ProfileName, base: Assumptions): CostProfile {
  const p = profileProps(name);
  return {
    name,
    a: {
      ...base,
      batchSize: p.batchSize ?? base.batchSize,
      batchingWindowS: p.maxBatchingWindow?.toSeconds() ?? base.batchingWindowS,
      memoryMb: p.memorySize ?? base.memoryMb,
      ttlDaysSuccess: p.deliveredAttemptTtl?.toDays() ?? base.ttlDaysSuccess,
    },
    secretStore: p.secretStore ?? 'secrets-manager',
    keepBodies: p.keepBodies ?? 'all',
    writesOff: (p.deliverySearch === false ? 2 : 0) + (p.dedupeEvents === false ? 2 : 0),
  };
}

/** What keeping one delivery's body adds to its first attempt's record: write units and bytes. */
export interface BodyCost {
  writeUnits: number;
  bytes: number;
}

/** The body of the spec's payload with the fixtures' metadata (the volume bench's), measured. */
export function bodyCostOf(c: BodyStorageCase = measureBodyStorage().cases.small): BodyCost {
  return {
    writeUnits: c.writeUnits.firstWithBody - c.writeUnits.firstWithoutBody,
    bytes: c.itemBytes.withBody - c.itemBytes.headersOnly,
  };
}

/**
 * Bytes of the metric documents one invocation of `n` delivered attempts writes to its log
 * (one EMF document: attempts, durations, deliveries, latencies), rendered by the dispatcher's
 * EMF adapter with a 20-character stack name.
 */
export function emfBytesPerInvocation(n: number): number {
  let bytes = 0;
  const metrics = new EmfMetrics({
    stack: 'webhooks-production1',
    clock: { now: () => 1_764_000_000_000 },
    write: (line) => {
      bytes += Buffer.byteLength(line, 'utf8') + 1;
    },
  });
  for (let i = 0; i < n; i++) {
    metrics.record(
      { kind: 'attempt', outcome: 'delivered', statusCode: 200, durationMs: 100 + i },
      { kind: 'final', result: 'delivered' },
      { kind: 'latency', ms: 150 + i },
    );
  }
  metrics.flush();
  return bytes;
}

export interface AllInInputs {
  figures: Figures;
  prices: Prices;
  traffic: Traffic;
  /** The fixed inputs but those the profile and the traffic set. */
  fixed: Omit<
    FixedInputs,
    'connections' | 'eventsPerSecond' | 'warmContainers' | 'secretStore' | 'observability'
  >;
  observability: ObservabilityInputs;
  body: BodyCost;
  /** {@link emfBytesPerInvocation}, by messages per invocation. */
  emfBytes: (fill: number) => number;
}

export interface AllInLine {
  item: string;
  perMillion: number;
  /** `variable`: per delivery; `fixed`: a monthly cost spread over the month's deliveries. */
  kind: 'variable' | 'fixed';
}

export interface AllInCost {
  perMillion: number;
  lines: AllInLine[];
  /** Deliveries a month at the traffic, over which the fixed lines are spread. */
  deliveriesPerMonth: number;
  /** Warm containers the scenario keeps (at least the event source's 5 concurrent batches). */
  warmContainers: number;
}

/** Deliveries a month at `eventsPerSecond` (one event, one connection: no fan-out). */
export const deliveriesPerMonth = (t: Traffic) => t.eventsPerSecond * MONTH_S;

/** A monthly cost as dollars per million deliveries at the traffic. */
export const spread = (perMonth: number, t: Traffic) => (perMonth * MILLION) / deliveriesPerMonth(t);

/** The all-in cost of one scenario under one profile. */
export function allInCost(scenario: Scenario, profile: CostProfile, x: AllInInputs): AllInCost {
  const a: Assumptions = {
    ...profile.a,
    eventsPerSecond: x.traffic.eventsPerSecond,
    connections: x.traffic.connections,
  };
  const measured = forProfile(x.figures, profile.name);
  const kinds = structuredClone(measured.kinds);
  for (const f of Object.values(kinds)) {
    f.dynamoWrites -= profile.writesOff;
    f.writeUnits -= profile.writesOff;
  }
  const c = scenarioCost(scenario, { ...measured, kinds }, x.prices, a);
  const mix = scenario.mix;
  const lines: AllInLine[] = c.lines.map(({ item, perMillion }) => ({ item, perMillion, kind: 'variable' }));

  // Bodies: the figures keep them for deliveries that failed a first attempt (as 'failures'
  // does); 'all' adds the body of each delivery delivered at once, kept for the successes' TTL and until deleted.
  const keptAtOnce = profile.keepBodies === 'all' ? mix.healthy : 0;
  const days = a.ttlDaysSuccess + a.ttlDeletionLagDays;
  const bodyGbMonths = (keptAtOnce * MILLION * x.body.bytes * (days / DAYS_PER_MONTH)) / GIB;
  lines.push({
    item: `Request bodies of deliveries delivered at their first attempt (keepBodies: '${profile.keepBodies}'; +${x.body.writeUnits} write unit and ${x.body.bytes} B each when kept, for ${days} d until deleted)`,
    perMillion:
      keptAtOnce * x.body.writeUnits * writeUnitPrice(x.prices, a.writeCapacity) +
      bodyGbMonths * (x.prices.dynamoDbStoragePerGbMonth + (a.pitr ? x.prices.dynamoDbPitrPerGbMonth : 0)),
    kind: 'variable',
  });

  // One EMF document per invocation, sized for its mean fill of delivered attempts.
  const fill = Math.max(1, Math.round(c.lambda.fill));
  const emfBytes = x.emfBytes(fill);
  lines.push({
    item: `CloudWatch Logs ingestion: metric documents (EMF, ${emfBytes} B per invocation of ${fill})`,
    perMillion: ((c.lambda.invocations * emfBytes) / GIB) * x.prices.logsPerGbIngested,
    kind: 'variable',
  });

  // Fixed costs at this traffic, for this scenario's containers and failed attempts.
  const monthly = deliveriesPerMonth(x.traffic);
  const failedAttempts = KINDS.reduce(
    (s, k) => s + (k === 'healthy' ? 0 : mix[k] * x.figures.kinds[k].attempts),
    0,
  );
  const warmContainers = Math.max(SQS_EVENT_SOURCE_POLLERS, c.lambda.containers);
  const fixed = fixedCost(
    {
      ...x.fixed,
      connections: x.traffic.connections,
      eventsPerSecond: x.traffic.eventsPerSecond,
      warmContainers,
      tablesPerContainer: mix.healthy < 1 ? 3 : 2,
      secretStore: profile.secretStore,
      observability: { ...x.observability, contributorInsightsEventsPerMonth: failedAttempts * monthly },
    },
    x.prices,
  );
  for (const l of fixed.lines)
    lines.push({
      item: `${l.item}: ${money2(l.perMonth)} a month`,
      perMillion: spread(l.perMonth, x.traffic),
      kind: 'fixed',
    });
  return {
    perMillion: lines.reduce((s, l) => s + l.perMillion, 0),
    lines,
    deliveriesPerMonth: monthly,
    warmContainers,
  };
}

const money2 = (x: number) => `$${x.toFixed(2)}`;

export type ScenarioKey = Scenario['key'];

/** Every scenario of the model under one profile. */
export function allInProfile(profile: CostProfile, x: AllInInputs): Record<ScenarioKey, AllInCost> {
  return Object.fromEntries(SCENARIOS.map((s) => [s.key, allInCost(s, profile, x)])) as Record<
    ScenarioKey,
    AllInCost
  >;
}

/** What a reader of the all-in figures needs of the model, from one module (test/unit/bench-imports.test.ts). */
export {
  defaultAssumptions,
  type Figures,
  fixedCost,
  forProfile,
  type KindFigures,
  MONTH_S,
  PRICES,
  SCENARIOS,
  scenarioCost,
} from './cost-model';
