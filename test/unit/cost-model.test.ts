/** The cost model of docs/cost.md (bench/cost-model.ts): its arithmetic, on round numbers. */

import {
  AUTO_SCALING,
  alternatives,
  batchFill,
  batchHitProbability,
  breakEvenUtilisation,
  CONTAINER_LIFETIME_S,
  catalogueMetricCount,
  connectionReadsPerDelivery,
  DEFAULT_LATENCY,
  DYNAMODB_ITEM_OVERHEAD_BYTES,
  defaultAssumptions,
  expectedSlowestMs,
  type Figures,
  fixedCost,
  type KindFigures,
  lambdaUsage,
  latencyCdf,
  latencyQuantile,
  observabilityLines,
  PRICES,
  provisionedDay,
  SCENARIOS,
  SERIAL_SHARE,
  scenarioCost,
  secretReadsPerMonth,
  sqsRequestsPerDelivery,
  writeUnitPrice,
  xrayTracesPerSecond,
} from '../../bench/cost-model';
import { figuresWith, kindFigures } from '../support/cost-figures';

const GIB = 1024 ** 3;
const kind = (over: Partial<KindFigures>): KindFigures => kindFigures(over);
const failingKind = kind({
  messages: 4,
  attempts: 4,
  sqsSends: 4,
  dynamoWrites: 4,
  writeUnits: 5,
  itemBytes: 4 * 924,
  items: 4,
  indexBytes: 924,
  indexItems: 1,
  logBytes: 2_000,
});
const figures: Figures = figuresWith(failingKind);
const a = {
  ...defaultAssumptions({ batchSize: 10, memoryMb: 256, attemptTimeoutMs: 30_000, attemptTtlDays: 30 }),
  // Traffic high enough for full batches, and connections read once per delivery at most.
  eventsPerSecond: 10_000,
  connections: 1,
};
const [healthy, healthyBatched, failing10, hanging1] = SCENARIOS as [
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
];
const line = (cost: ReturnType<typeof scenarioCost>, prefix: string) => {
  const found = cost.lines.find((l) => l.item.startsWith(prefix));
  if (!found) throw new Error(`no line ${prefix}`);
  return found.perMillion;
};

describe('receiver latency distribution', () => {
  it('has the documented median and 99th percentile', () => {
    expect(latencyCdf(DEFAULT_LATENCY, 100)).toBeCloseTo(0.5, 5);
    expect(latencyCdf(DEFAULT_LATENCY, 1_000)).toBeCloseTo(0.99, 4);
    expect(latencyQuantile(DEFAULT_LATENCY, 0.5)).toBeCloseTo(100, 3);
  });

  it('gives the log-normal mean for one attempt and a longer wait for the slowest of ten', () => {
    const sigma = Math.log(10) / 2.326_347_874;
    const mean = 100 * Math.exp((sigma * sigma) / 2);
    expect(expectedSlowestMs(DEFAULT_LATENCY, 1, 30_000) / mean).toBeCloseTo(1, 2);
    const ten = expectedSlowestMs(DEFAULT_LATENCY, 10, 30_000);
    expect(ten).toBeGreaterThan(3 * 100);
    expect(ten).toBeLessThan(1_000);
    // Cut at the deadline: never more than the cap.
    expect(expectedSlowestMs(DEFAULT_LATENCY, 1_000, 500)).toBeCloseTo(500, 6);
  });
});

describe('batch fill and connection reads', () => {
  it('fills between one message and the batch size with traffic', () => {
    expect(batchFill(0.1, 0.5, 10)).toBe(1);
    expect(batchFill(40, 0.5, 10)).toBe(4);
    expect(batchFill(10_000, 0.5, 10)).toBe(10);
  });

  it('reads a connection once per delivery when sparse and once per cache period when dense', () => {
    expect(connectionReadsPerDelivery(0.0001, 1_000, 10, 30)).toBeCloseTo(1, 5);
    const x = (100 / 10) * 30;
    expect(connectionReadsPerDelivery(100, 10, 1, 30)).toBeCloseTo((1 - Math.exp(-x)) / x, 9);
  });

  it('counts a batch as hanging when any of its messages hangs', () => {
    expect(batchHitProbability(0.1, 10)).toBeCloseTo(1 - 0.9 ** 10, 12);
  });
});

describe('Lambda usage', () => {
  it('runs full batches at high traffic: a tenth of an invocation per message', () => {
    const u = lambdaUsage(healthy.mix, 1_000_000, figures, a);
    expect(u.fill).toBeCloseTo(10, 9);
    expect(u.invocations).toBeCloseTo(100_000, 3);
    // CPU of 10 deliveries at 256/1769 of a vCPU, half of it overlapping the slowest of ten
    // (the longer), + AWS calls.
    const expected =
      expectedSlowestMs(DEFAULT_LATENCY, 10, 30_000) +
      SERIAL_SHARE * ((10 * 1_000) / 1000 / (256 / 1_769)) +
      10;
    expect(u.durationMs).toBeCloseTo(expected, 6);
    expect(u.gbSeconds).toBeCloseTo((100_000 * expected * 256) / 1024 / 1000, 3);
  });

  it('holds a batch for the deadline when one of its messages hangs; retries batch on their own queue', () => {
    const u = lambdaUsage(hanging1.mix, 1_000_000, figures, a);
    // Ingress: every delivery's first attempt, 1 % hanging, full batches of 10. Retry queue: only
    // the hanging deliveries' 3 retries (3 a second at 100 events/s), full batches after 30 s.
    const ingressInvocations = 1_000_000 / 10;
    const retryInvocations = (0.01 * 3 * 1_000_000) / 10;
    const expected =
      (ingressInvocations * batchHitProbability(0.01, 10) + retryInvocations) /
      (ingressInvocations + retryInvocations);
    expect(u.invocations).toBeCloseTo(ingressInvocations + retryInvocations, 3);
    expect(u.hangingBatchShare).toBeCloseTo(expected, 9);
  });

  it('batches retries at most 10 at a time and with no window, whatever the ingress batching', () => {
    const big = { ...a, batchSize: 100, batchingWindowS: 1 };
    const u = lambdaUsage(hanging1.mix, 1_000_000, figures, big);
    // First attempts in batches of 100; the hanging deliveries' 30,000 retries arrive 3 a second
    // and fill batches during each 30 s hang, but never past 10 (11,658 invocations without the cap).
    expect(u.invocations).toBeCloseTo(1_000_000 / 100 + 30_000 / 10, 3);
  });
});

describe('scenario cost', () => {
  const c = scenarioCost(healthy, figures, PRICES, a);

  it('prices each line from its quantity', () => {
    expect(line(c, 'SQS publish')).toBeCloseTo(0.4, 9);
    expect(line(c, 'SQS receive + delete')).toBeCloseTo(0.2 * 0.4, 9);
    expect(line(c, 'Lambda requests')).toBeCloseTo(0.1 * 0.2, 9);
    expect(line(c, 'DynamoDB writes')).toBeCloseTo(0.625, 9);
    const gbMonths = ((412 + DYNAMODB_ITEM_OVERHEAD_BYTES) * 1_000_000) / GIB;
    expect(line(c, 'DynamoDB storage')).toBeCloseTo(gbMonths * 0.25, 9);
    expect(line(c, 'DynamoDB point-in-time')).toBeCloseTo(gbMonths * 0.2, 9);
    expect(line(c, 'Data transfer out')).toBeCloseTo(((1000 * 1_000_000) / GIB) * 0.09, 9);
    expect(line(c, 'DynamoDB connection reads')).toBeCloseTo(
      (connectionReadsPerDelivery(10_000, 1, c.lambda.containers, 30) * 0.5 * 0.125) / 1,
      6,
    );
    expect(c.perMillion).toBeCloseTo(
      c.lines.reduce((s, l) => s + l.perMillion, 0),
      12,
    );
  });

  it('publishes ten events per request in the batched scenario', () => {
    expect(line(scenarioCost(healthyBatched, figures, PRICES, a), 'SQS publish')).toBeCloseTo(0.04, 9);
  });

  it('prices receive and delete at no less than a tenth of a request each per message, whatever the batch', () => {
    const big = { ...a, batchSize: 100, batchingWindowS: 1 };
    const c100 = scenarioCost(healthy, figures, PRICES, big);
    expect(c100.lambda.fill).toBeGreaterThan(10);
    const r = sqsRequestsPerDelivery('healthy', figures, big, c100.lambda.fill);
    expect(r.receive).toBeCloseTo(0.1, 12);
    expect(r.delete).toBeCloseTo(0.1, 12);
    expect(line(c100, 'SQS receive + delete')).toBeCloseTo(0.2 * 0.4, 9);
    // Below 10 a batch, one receive and one delete per batch: more than the floor.
    const small = sqsRequestsPerDelivery('healthy', figures, a, 4);
    expect(small.receive).toBeCloseTo(0.25, 12);
    expect(small.delete).toBeCloseTo(0.25, 12);
  });

  it('costs the failing chain its sends, writes, index storage and four attempts of transfer', () => {
    const f = scenarioCost(failing10, figures, PRICES, a);
    expect(line(f, 'SQS retries and dead letters')).toBeCloseTo(0.1 * 4 * 0.4, 9);
    expect(line(f, 'DynamoDB writes')).toBeCloseTo((0.9 * 1 + 0.1 * 5) * 0.625, 9);
    expect(line(f, 'Data transfer out')).toBeCloseTo(((0.9 + 0.4) * 1000 * 1_000_000 * 0.09) / GIB, 9);
  });

  it('stores successes for a shorter TTL and drops PITR when told to', () => {
    const short = scenarioCost(healthy, figures, PRICES, { ...a, ttlDaysSuccess: 3, pitr: false });
    expect(line(short, 'DynamoDB storage')).toBeCloseTo(line(c, 'DynamoDB storage') / 10, 9);
    expect(line(short, 'DynamoDB point-in-time')).toBe(0);
  });

  it('prices provisioned writes by the WCU-hour at the given use', () => {
    const p = scenarioCost(healthy, figures, PRICES, {
      ...a,
      writeCapacity: { mode: 'provisioned', utilisation: 0.5 },
    });
    expect(line(p, 'DynamoDB writes')).toBeCloseTo((0.00065 / 3600 / 0.5) * 1_000_000, 9);
  });

  it('stores and backs up expired items until DynamoDB deletes them, 2 days past the TTL', () => {
    // 412 B + 100 B of overhead per healthy item, 2 of 30 days, storage and PITR.
    const lag = ((512 * 2) / 30) * (1_000_000 / GIB) * (0.25 + 0.2);
    expect(line(c, 'DynamoDB storage past the TTL')).toBeCloseTo(lag, 12);
    const noPitr = scenarioCost(healthy, figures, PRICES, { ...a, pitr: false, ttlDeletionLagDays: 1 });
    expect(line(noPitr, 'DynamoDB storage past the TTL')).toBeCloseTo(((lag / 2) * 0.25) / 0.45, 12);
  });

  it('prices X-Ray traces only with tracing on: one invocation a second and 5 % of the rest', () => {
    expect(line(c, 'X-Ray traces')).toBe(0);
    expect(xrayTracesPerSecond(0.5)).toBe(0.5);
    expect(xrayTracesPerSecond(21)).toBeCloseTo(2, 12);
    const traced = scenarioCost(healthy, figures, PRICES, { ...a, tracing: true });
    // 10,000 events/s in full batches of 10: 1,000 invocations a second, 1 + 0.05 × 999 traced.
    const traces = ((1 + 0.05 * 999) / 10_000) * 1_000_000;
    expect(line(traced, 'X-Ray traces')).toBeCloseTo((traces * (5 + 0.5)) / 1_000_000, 6);
  });
});

describe('provisioned or on-demand writes', () => {
  const t = AUTO_SCALING.target;

  it('breaks even with on-demand at 29 % use of what is provisioned', () => {
    expect(breakEvenUtilisation(PRICES)).toBeCloseTo(((0.00065 / 3600) * 1_000_000) / 0.625, 12);
    const at = (u: number) => writeUnitPrice(PRICES, { mode: 'provisioned', utilisation: u });
    expect(at(breakEvenUtilisation(PRICES))).toBeCloseTo(writeUnitPrice(PRICES, { mode: 'on-demand' }), 12);
    expect(at(0.7)).toBeCloseTo(0.2579, 4);
  });

  it('uses the target when traffic is steady, and target ÷ peak ratio with the floor at the peak', () => {
    expect(provisionedDay({ ratio: 1, hours: 1 }, 'follow')).toEqual({
      utilisation: expect.closeTo(t, 9),
      deferredShare: 0,
      throttledMin: 0,
    });
    expect(provisionedDay({ ratio: 10, hours: 1 }, 'peak')).toEqual({
      utilisation: expect.closeTo(t / 10, 12),
      deferredShare: 0,
      throttledMin: 0,
    });
  });

  it('throttles the first minutes of a sudden peak while auto-scaling steps up by 1/target', () => {
    const day = provisionedDay({ ratio: 10, hours: 1 }, 'follow');
    // The other 23 hours carry 14 of the day's 24 mean-hours; capacity starts at that ÷ target
    // and grows by 1/target every 5 minutes while throttled: 7 steps to pass the peak's 10.
    const rest = 14 / 23;
    const steps = [0, 1, 2, 3, 4, 5, 6].map((k) => rest / t ** (k + 1));
    expect(day.throttledMin).toBe(35);
    expect(day.deferredShare).toBeCloseTo(steps.reduce((s, c) => s + 5 * (10 - c), 0) / 1440, 12);
    // Then 5 min at the 8th step, the peak's last 20 min and 15 min after it at 10 ÷ target, the rest at rest ÷ target.
    const provisioned =
      5 * steps.reduce((s, c) => s + c, 0) + 5 * (rest / t ** 8) + 35 * (10 / t) + 1365 * (rest / t);
    expect(day.utilisation).toBeCloseTo(1440 / provisioned, 9);
  });
});

describe('fixed costs and alternatives', () => {
  const base = {
    connections: 1_000,
    // Dense traffic: every container delivers to every connection in each period.
    eventsPerSecond: 100_000,
    warmContainers: 10,
    secretCacheS: 86_400,
    containerLifetimeS: 86_400,
    otherSecrets: 1,
    observability: {
      alarms: 8,
      alarmMetrics: 11,
      dashboards: 1,
      contributorInsightsRules: 1,
      contributorInsightsEventsPerMonth: 2_000_000,
      customMetrics: 47,
      eventSourceMappingMetrics: 10,
    },
    idlePollers: 5,
  };

  it('prices a secret per connection and the console session key, or one KMS key with the secretStore lever', () => {
    const sm = fixedCost({ ...base, secretStore: 'secrets-manager' }, PRICES);
    const cost = (f: typeof sm, start: string) => f.lines.find((l) => l.item.startsWith(start))!.perMonth;
    expect(cost(sm, 'Secrets Manager: one secret per connection')).toBe(400);
    expect(cost(sm, "Secrets Manager: the stack's other secrets")).toBeCloseTo(0.4, 9);
    const reads = 1_000 * 10 * 30;
    expect(cost(sm, 'GetSecretValue')).toBeCloseTo((reads / 10_000) * 0.05, 6);
    expect(cost(sm, 'KMS decrypts behind')).toBeCloseTo((reads / 10_000) * 0.03, 6);
    const kms = fixedCost({ ...base, secretStore: 'kms' }, PRICES);
    // The key at its most (two paid rotations) and one Decrypt per secret read: under issue 15's $5.
    expect(cost(kms, 'KMS: one customer managed key')).toBe(3);
    expect(cost(kms, 'KMS Decrypt')).toBeCloseTo((reads / 10_000) * 0.03, 6);
    // The console's session key stays a Secrets Manager secret with either store.
    expect(cost(kms, "Secrets Manager: the stack's other secrets")).toBeCloseTo(0.4, 9);
    expect(cost(kms, 'KMS: one customer managed key') + cost(kms, 'KMS Decrypt')).toBeLessThanOrEqual(5);
    const twice = fixedCost({ ...base, secretStore: 'kms', kmsDecryptsPerSecretRead: 2 }, PRICES);
    expect(cost(twice, 'KMS Decrypt')).toBeCloseTo(2 * cost(kms, 'KMS Decrypt'), 9);
    expect(sm.perMonth).toBeCloseTo(
      sm.lines.reduce((s, l) => s + l.perMonth, 0),
      12,
    );
  });

  it('reads each secret once per container life when containers live shorter than the cache', () => {
    const day = secretReadsPerMonth(base);
    expect(day).toBeCloseTo(1_000 * 10 * 30, 0);
    // Containers replaced every 2 hours read every secret 12 times a day instead of once.
    expect(secretReadsPerMonth({ ...base, containerLifetimeS: CONTAINER_LIFETIME_S })).toBeCloseTo(
      12 * day,
      0,
    );
    // Sparse traffic: a container reads only the connections it delivers to (1 − e^−x of them).
    const sparse = { ...base, eventsPerSecond: 0.01, containerLifetimeS: 3_600, secretCacheS: 86_400 };
    const x = ((0.01 / 1_000) * 3_600) / 10;
    expect(secretReadsPerMonth(sparse)).toBeCloseTo(10 * 1_000 * (1 - Math.exp(-x)) * 24 * 30, 6);
  });

  it("prices the tables' KMS requests: each container asks for each table's key every 5 minutes", () => {
    const keys = (f: ReturnType<typeof fixedCost>) =>
      f.lines.find((l) => l.item.startsWith('DynamoDB table keys (aws/dynamodb)'))!.perMonth;
    const requests = (10 * 2 * 30 * 86_400) / 300;
    expect(keys(fixedCost({ ...base, secretStore: 'kms' }, PRICES))).toBeCloseTo(
      (requests / 10_000) * 0.03,
      9,
    );
    const parked = fixedCost({ ...base, secretStore: 'kms', tablesPerContainer: 3 }, PRICES);
    expect(keys(parked)).toBeCloseTo((1.5 * requests * 0.03) / 10_000, 9);
  });

  it('prices each part of watching the stack as its own line', () => {
    const lines = observabilityLines(base.observability, PRICES);
    const cost = (start: string) => lines.find((l) => l.item.startsWith(start))!.perMonth;
    expect(cost('CloudWatch alarms')).toBeCloseTo(11 * 0.1, 9);
    expect(lines.some((l) => l.item.startsWith('CloudWatch composite'))).toBe(false);
    const composites = observabilityLines({ ...base.observability, compositeAlarms: 6 }, PRICES);
    expect(composites.find((l) => l.item.startsWith('CloudWatch composite'))!.perMonth).toBeCloseTo(
      6 * 0.5,
      9,
    );
    expect(cost('CloudWatch dashboard')).toBe(3);
    expect(cost('Contributor Insights rule')).toBe(0.5);
    expect(cost('Contributor Insights: failed-attempt')).toBeCloseTo(2 * 0.02, 9);
    expect(cost('Custom metrics')).toBeCloseTo(47 * 0.3, 9);
    expect(cost('Event source mapping metrics')).toBeCloseTo(10 * 0.3, 9);
    const fixed = fixedCost({ ...base, secretStore: 'kms' }, PRICES);
    expect(fixed.lines.map((l) => l.item)).toEqual(expect.arrayContaining(lines.map((l) => l.item)));
  });

  it('counts each metric alone and with each value of each dimension it is emitted by', () => {
    const metrics = { a: { by: ['X', 'Y'] }, b: { by: [] }, c: { by: ['X'] } };
    expect(catalogueMetricCount(metrics, { X: ['1', '2', '3'], Y: ['1', '2'] })).toBe(1 + 3 + 2 + 1 + 1 + 3);
    // A metric emitted with only some values of a dimension counts those alone.
    const some = { ...metrics, c: { by: ['X'], values: { X: ['2'] } } };
    expect(catalogueMetricCount(some, { X: ['1', '2', '3'], Y: ['1', '2'] })).toBe(1 + 3 + 2 + 1 + 1 + 1);
  });

  it('prices EventBridge per event and per attempt', () => {
    const [bus] = alternatives(PRICES, 4);
    expect(bus!.perMillion(healthy.mix)).toBeCloseTo(1.2, 9);
    expect(bus!.perMillion(failing10.mix)).toBeCloseTo(1 + (0.9 + 0.4) * 0.2 + 0.1 * 0.4, 9);
  });
});
