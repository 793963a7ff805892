/** The all-in cost of issue 26 (bench/all-in.ts): every line, the SQS floor, fixed costs spread. */

import {
  ALL_IN_TRAFFIC,
  type AllInInputs,
  allInCost,
  allInProfile,
  bodyCostOf,
  costProfile,
  defaultAssumptions,
  emfBytesPerInvocation,
  type Figures,
  fixedCost,
  forProfile,
  type KindFigures,
  MONTH_S,
  PRICES,
  SCENARIOS,
  scenarioCost,
  spread,
} from '../../bench/all-in';
import { LEAN_PROFILE } from '../../lib/profiles';
import { figuresWith, kindFigures } from '../support/cost-figures';

const kind = (over: Partial<KindFigures>): KindFigures => kindFigures(over);
const failing = kind({
  messages: 4,
  attempts: 4,
  sqsSends: 4,
  dynamoWrites: 5,
  writeUnits: 6,
  logBytes: 2_000,
});
const figures: Figures = figuresWith(failing);
const base = defaultAssumptions({
  batchSize: 10,
  memoryMb: 256,
  attemptTimeoutMs: 30_000,
  attemptTtlDays: 30,
});
const observability = {
  alarms: 8,
  alarmMetrics: 11,
  dashboards: 1,
  contributorInsightsRules: 1,
  contributorInsightsEventsPerMonth: 0,
  customMetrics: 44,
  eventSourceMappingMetrics: 10,
};
const inputs: AllInInputs = {
  figures,
  prices: PRICES,
  traffic: { eventsPerSecond: 100, connections: 1_000 },
  fixed: { secretCacheS: 86_400, containerLifetimeS: 7_200, otherSecrets: 1, idlePollers: 10 },
  observability,
  body: { writeUnits: 1, bytes: 200 },
  emfBytes: (n) => 500 + 10 * n,
};
const [healthy, healthyBatched, failing10] = SCENARIOS as [
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
];
const defaults = costProfile('defaults', base);
const lean = costProfile('lean', base);
const MONTH_DELIVERIES = 100 * MONTH_S;

const find = (c: ReturnType<typeof allInCost>, prefix: string) => {
  const found = c.lines.find((l) => l.item.startsWith(prefix));
  if (!found) throw new Error(`no line ${prefix}: ${c.lines.map((l) => l.item).join(' | ')}`);
  return found;
};

describe('all-in cost at a stated traffic', () => {
  const c = allInCost(healthy, defaults, inputs);

  it('states the traffic of issue 26 and spreads a monthly cost over the month of deliveries', () => {
    expect(ALL_IN_TRAFFIC).toEqual({ eventsPerSecond: 100, connections: 1_000 });
    expect(c.deliveriesPerMonth).toBe(259_200_000);
    expect(spread(259.2, inputs.traffic)).toBeCloseTo(1, 12);
  });

  it('keeps every variable line of the marginal model, at the same figure', () => {
    const marginal = scenarioCost(healthy, figures, PRICES, {
      ...base,
      eventsPerSecond: 100,
      connections: 1_000,
    });
    for (const l of marginal.lines) {
      const line = find(c, l.item);
      expect(line.kind).toBe('variable');
      expect(line.perMillion).toBeCloseTo(l.perMillion, 12);
    }
  });

  it('spreads each fixed line on its own: secrets per connection, the console key, alarms, dashboard, metrics, the rule', () => {
    const perMillion = (perMonth: number) => (perMonth * 1_000_000) / MONTH_DELIVERIES;
    expect(find(c, 'Secrets Manager: one secret per connection').perMillion).toBeCloseTo(perMillion(400), 9);
    expect(find(c, "Secrets Manager: the stack's other secrets").perMillion).toBeCloseTo(perMillion(0.4), 9);
    expect(find(c, 'CloudWatch alarms').perMillion).toBeCloseTo(perMillion(11 * 0.1), 9);
    expect(find(c, 'CloudWatch dashboard').perMillion).toBeCloseTo(perMillion(3), 9);
    expect(find(c, 'Custom metrics').perMillion).toBeCloseTo(perMillion(44 * 0.3), 9);
    expect(find(c, 'Contributor Insights rule').perMillion).toBeCloseTo(perMillion(0.5), 9);
    expect(find(c, 'Event source mapping metrics').perMillion).toBeCloseTo(perMillion(10 * 0.3), 9);
    expect(find(c, 'Idle long polling').perMillion).toBeGreaterThan(0);
    // Every fixed line of the month is there, spread.
    const fixed = c.lines.filter((l) => l.kind === 'fixed');
    const monthly = fixedCost(
      {
        ...inputs.fixed,
        connections: 1_000,
        eventsPerSecond: 100,
        warmContainers: c.warmContainers,
        secretStore: 'secrets-manager',
        observability,
      },
      PRICES,
    );
    expect(fixed).toHaveLength(monthly.lines.length);
    expect(fixed.reduce((s, l) => s + l.perMillion, 0)).toBeCloseTo(perMillion(monthly.perMonth), 9);
  });

  it('reads each secret again in each container every 2 hours (KMS decrypts behind the reads)', () => {
    const x = ((100 / 1_000) * 7_200) / c.warmContainers;
    const reads = c.warmContainers * 1_000 * (1 - Math.exp(-x)) * (MONTH_S / 7_200);
    const perMillion = (perMonth: number) => (perMonth * 1_000_000) / MONTH_DELIVERIES;
    expect(find(c, 'GetSecretValue').perMillion).toBeCloseTo(perMillion((reads / 10_000) * 0.05), 9);
    expect(find(c, 'KMS decrypts behind').perMillion).toBeCloseTo(perMillion((reads / 10_000) * 0.03), 9);
    expect(c.warmContainers).toBeGreaterThanOrEqual(5);
  });

  it('adds the bodies kept and the metric documents written, and totals every line', () => {
    const wcu = 0.625;
    // Kept 30 days and up to 2 more until DynamoDB deletes the expired item.
    const gbMonths = ((1_000_000 * 200) / 1024 ** 3) * (32 / 30);
    expect(find(c, 'Request bodies').perMillion).toBeCloseTo(wcu + gbMonths * (0.25 + 0.2), 9);
    const invocations = scenarioCost(healthy, figures, PRICES, {
      ...base,
      eventsPerSecond: 100,
      connections: 1_000,
    }).lambda.invocations;
    expect(find(c, 'CloudWatch Logs ingestion: metric documents').perMillion).toBeCloseTo(
      ((invocations * (500 + 10 * 10)) / 1024 ** 3) * 0.5,
      9,
    );
    expect(c.perMillion).toBeCloseTo(
      c.lines.reduce((s, l) => s + l.perMillion, 0),
      12,
    );
  });

  it('matches one Contributor Insights event per failed attempt of the month', () => {
    const f = allInCost(failing10, defaults, inputs);
    const events = 0.1 * 4 * MONTH_DELIVERIES;
    expect(find(f, 'Contributor Insights: failed-attempt').perMillion).toBeCloseTo(
      ((events / 1_000_000) * 0.02 * 1_000_000) / MONTH_DELIVERIES,
      9,
    );
    expect(find(c, 'Contributor Insights: failed-attempt').perMillion).toBe(0);
  });

  it("asks KMS for the parked table's key too when deliveries fail", () => {
    const f = allInCost(failing10, defaults, inputs);
    const keys = (x: typeof f) => find(x, 'DynamoDB table keys');
    expect(keys(c).item).toMatch(/× 2 tables/);
    expect(keys(f).item).toMatch(/× 3 tables/);
    const perContainer = (x: typeof f) => keys(x).perMillion / x.warmContainers;
    expect(perContainer(f) / perContainer(c)).toBeCloseTo(3 / 2, 9);
  });

  it('costs receive and delete no less than 0.2 requests a message with batches of 100', () => {
    const big = allInCost(healthy, lean, inputs);
    expect(find(big, 'SQS receive + delete').perMillion).toBeCloseTo(0.2 * 0.4, 9);
  });
});

describe('profiles', () => {
  it('model the lean props of lib/profiles.ts', () => {
    expect(lean.a.batchSize).toBe(LEAN_PROFILE.batchSize);
    expect(lean.a.batchingWindowS).toBe(LEAN_PROFILE.maxBatchingWindow!.toSeconds());
    expect(lean.a.ttlDaysSuccess).toBe(LEAN_PROFILE.deliveredAttemptTtl!.toDays());
    expect(lean.keepBodies).toBe('failures');
    expect(lean.secretStore).toBe('kms');
    // Kept from the defaults: PITR, on-demand writes, failures kept 30 days.
    expect(lean.a.pitr).toBe(true);
    expect(lean.a.writeCapacity).toEqual({ mode: 'on-demand' });
    expect(lean.a.ttlDaysFailure).toBe(30);
    expect(defaults).toEqual({
      name: 'defaults',
      a: base,
      secretStore: 'secrets-manager',
      keepBodies: 'all',
      writesOff: 0,
    });
    // The API-call run measures the defaults: lean makes neither search's two lookup items nor a
    // claim and its settlement, so it pays four writes a delivery less.
    expect(lean.writesOff).toBe(4);
    const writes = (p: typeof lean) => find(allInCost(healthy, p, inputs), 'DynamoDB writes').perMillion;
    expect(writes(defaults) - writes(lean)).toBeCloseTo(4 * 0.625, 6);
  });

  it('lean keeps no body of a delivery delivered at once and keeps secrets under one KMS key', () => {
    const l = allInCost(healthy, lean, inputs);
    expect(find(l, 'Request bodies').perMillion).toBe(0);
    expect(l.lines.some((x) => x.item.startsWith('Secrets Manager: one secret per connection'))).toBe(false);
    expect(find(l, 'KMS: one customer managed key').perMillion).toBeCloseTo(
      (3 * 1_000_000) / MONTH_DELIVERIES,
      9,
    );
    expect(find(l, 'KMS Decrypt').perMillion).toBeGreaterThan(0);
    expect(l.perMillion).toBeLessThan(allInCost(healthy, defaults, inputs).perMillion);
  });

  it('prices every scenario of a profile, batched publish cheaper by the publish requests saved', () => {
    const all = allInProfile(lean, inputs);
    expect(Object.keys(all)).toEqual(['healthy', 'healthyBatched', 'failing10', 'hanging1']);
    expect(all.healthy.perMillion - all.healthyBatched.perMillion).toBeCloseTo(0.9 * 0.4, 9);
    expect(allInCost(healthyBatched, lean, inputs).perMillion).toBeCloseTo(all.healthyBatched.perMillion, 12);
  });
  it("prices each profile's Lambda duration with its own measured CPU per delivery when the figures have it", () => {
    const duration = (c: ReturnType<typeof allInCost>) => find(c, 'Lambda duration').perMillion;
    const byProfile = { ...inputs, figures: { ...figures, cpuMicrosPerDeliveryByProfile: { lean: 100 } } };
    // Lean's own figure moves lean's line only; the defaults keep the shared figure.
    expect(duration(allInCost(healthy, lean, byProfile))).toBeLessThan(
      duration(allInCost(healthy, lean, inputs)),
    );
    expect(duration(allInCost(healthy, defaults, byProfile))).toBe(
      duration(allInCost(healthy, defaults, inputs)),
    );
    expect(forProfile(byProfile.figures, 'lean').cpuMicrosPerDelivery).toBe(100);
    expect(forProfile(byProfile.figures, 'defaults').cpuMicrosPerDelivery).toBe(figures.cpuMicrosPerDelivery);
  });
});

describe('measured inputs', () => {
  it('sizes a body as the attempt log stores it, and a metric document per invocation', () => {
    const body = bodyCostOf();
    expect(body.writeUnits).toBe(1);
    expect(body.bytes).toBeGreaterThan(100);
    const one = emfBytesPerInvocation(1);
    expect(one).toBeGreaterThan(300);
    // Durations and latencies are arrays: each delivery adds its two values, not a document.
    expect(emfBytesPerInvocation(10)).toBeLessThan(2 * one);
    expect(emfBytesPerInvocation(10)).toBeGreaterThan(one);
  });
});
