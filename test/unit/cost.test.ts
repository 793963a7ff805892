/** The cost model of docs/cost.md (bench/cost-model.ts): its arithmetic, on round numbers. */

import {
  alternatives,
  batchHitProbability,
  DEFAULT_ASSUMPTIONS,
  type Figures,
  lambdaUsage,
  messagesPerDelivery,
  SCENARIOS,
  scenarioCost,
  secretReadsPerMonth,
  secretsPerMonth,
  sqsRequestsPerDelivery,
} from '../../bench/cost-model';
import { PRICES, type Prices } from '../../bench/prices';

const figures: Figures = {
  cpuMicrosPerDelivery: 1_000,
  writeUnits: { healthy: 1, failing: 5, hanging: 5 },
  logBytes: { healthy: 0, failing: 2_000, hanging: 2_000 },
  logBytesAtDebug: { healthy: 400, failing: 2_000, hanging: 2_000 },
  messageBytes: { event: 600, retry: 900, deadLetter: 1_100 },
};
const prices: Prices = {
  ...PRICES,
  sqsPerMillionRequests: 0.4,
  lambdaPerMillionRequests: 0.2,
  lambdaArmPerGbSecond: 0.00001,
  dynamoDbPerMillionWriteUnits: 0.625,
  logsPerGbIngested: 0.5,
  eventBridgeCustomEventsPerMillion: 1,
  apiDestinationPerMillionInvocations: 0.2,
  pipesPerMillionRequests: 0.4,
  secretsManagerPerSecretMonth: 0.4,
};
const a = DEFAULT_ASSUMPTIONS;
const [healthy, failing, hanging] = SCENARIOS as [
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
  (typeof SCENARIOS)[number],
];

describe('SQS requests per delivery', () => {
  it('counts a healthy delivery as one publish and a tenth of a receive and of a delete', () => {
    const r = sqsRequestsPerDelivery('healthy', figures, a);
    expect(r).toMatchObject({ publish: 1, receive: 0.1, delete: 0.1, retry: 0, deadLetter: 0 });
    expect(r.total).toBeCloseTo(1.2);
  });

  it('counts a delivery failing every attempt as 4 receives and deletes, 3 retry sends and 1 dead letter', () => {
    const r = sqsRequestsPerDelivery('failing', figures, a);
    expect(r).toMatchObject({ publish: 1, retry: 3, deadLetter: 1 });
    expect(r.receive).toBeCloseTo(0.4);
    expect(r.delete).toBeCloseTo(0.4);
    expect(r.total).toBeCloseTo(5.8);
    expect(sqsRequestsPerDelivery('hanging', figures, a).total).toBeCloseTo(5.8);
  });

  it('shares one publish request among the events of a batch publish', () => {
    expect(sqsRequestsPerDelivery('healthy', figures, { ...a, publishBatchSize: 10 }).total).toBeCloseTo(0.3);
  });

  it('bills every 64 KB of a message as one more request', () => {
    const big = { ...figures, messageBytes: { event: 600, retry: 70 * 1024, deadLetter: 70 * 1024 } };
    const r = sqsRequestsPerDelivery('failing', big, a);
    expect(r.retry).toBe(6);
    expect(r.deadLetter).toBe(2);
  });
});

describe('Lambda usage', () => {
  it('invokes once per batch of 10 queue messages, 4 of them per failed delivery', () => {
    expect(messagesPerDelivery('healthy')).toBe(1);
    expect(messagesPerDelivery('failing')).toBe(4);
    expect(lambdaUsage(healthy.mix, 1_000_000, figures, a).invocations).toBe(100_000);
    expect(lambdaUsage(failing.mix, 1_000_000, figures, a).invocations).toBeCloseTo(130_000);
  });

  it("adds the batch CPU at the function's vCPU share, the slowest receiver and the AWS calls", () => {
    const oneVcpu = { ...a, memoryMb: 1_769 };
    const usage = lambdaUsage(healthy.mix, 1_000_000, figures, oneVcpu);
    // 10 deliveries × 1 ms of CPU at a whole vCPU, + 100 ms receiver + 10 ms AWS calls.
    expect(usage.durationMs).toBeCloseTo(120);
    expect(usage.gbSeconds).toBeCloseTo((100_000 * 0.12 * 1_769) / 1024);
    // At 256 MB the same CPU takes 1769/256 times as long.
    expect(lambdaUsage(healthy.mix, 1_000_000, figures, a).durationMs).toBeCloseTo((10 * 1_769) / 256 + 110);
  });

  it('holds a whole batch for the deadline when one of its attempts hangs', () => {
    expect(batchHitProbability(0.01, 10)).toBeCloseTo(1 - 0.99 ** 10);
    const usage = lambdaUsage(hanging.mix, 1_000_000, figures, a);
    const share = (0.01 * 4) / (0.99 + 0.01 * 4);
    expect(usage.hangingBatchShare).toBeCloseTo(1 - (1 - share) ** 10);
    const cpuMs = (10 * 1_769) / 256;
    expect(usage.durationMs).toBeCloseTo(
      cpuMs + usage.hangingBatchShare * 30_000 + (1 - usage.hangingBatchShare) * 100 + 10,
    );
  });
});

describe('cost of a million deliveries', () => {
  it('prices each line of the healthy scenario from its quantity', () => {
    const cost = scenarioCost(healthy, figures, prices, a);
    const line = (service: string) => cost.lines.find((l) => l.service.startsWith(service))!;
    expect(line('SQS requests').quantity).toBeCloseTo(1_200_000);
    expect(line('SQS requests').dollars).toBeCloseTo(0.48);
    expect(line('Lambda requests').dollars).toBeCloseTo(0.02);
    expect(line('DynamoDB').dollars).toBeCloseTo(0.625);
    const logBytes = 100_000 * a.platformLogBytesPerInvocation;
    expect(line('CloudWatch Logs').dollars).toBeCloseTo((logBytes / 1024 ** 3) * 0.5);
    expect(cost.total).toBeCloseTo(cost.lines.reduce((sum, l) => sum + l.dollars, 0));
  });

  it("writes the failed deliveries' extra units, and success lines only at DEBUG", () => {
    const cost = scenarioCost(failing, figures, prices, a);
    expect(cost.lines.find((l) => l.service.startsWith('DynamoDB'))!.quantity).toBeCloseTo(1_400_000);
    const quiet = scenarioCost(healthy, figures, prices, a);
    expect(quiet.lines.find((l) => l.service.startsWith('CloudWatch'))!.quantity).toBeCloseTo(
      (100_000 * a.platformLogBytesPerInvocation) / 1024 ** 3,
    );
    const verbose = scenarioCost(healthy, figures, prices, { ...a, logLevel: 'DEBUG' });
    expect(verbose.lines.find((l) => l.service.startsWith('CloudWatch'))!.quantity).toBeCloseTo(
      (400 * 1_000_000 + 100_000 * a.platformLogBytesPerInvocation) / 1024 ** 3,
    );
  });

  it('prices EventBridge per event and per attempt, and Pipes per attempt', () => {
    const [bus, pipes] = alternatives(prices);
    expect(bus!.cost(healthy.mix, 1_000_000)).toBeCloseTo(1.2);
    // 10% failing: 1.3 attempts per delivery, 0.1 dead letters.
    expect(bus!.cost(failing.mix, 1_000_000)).toBeCloseTo(1 + 0.2 * 1.3 + 0.4 * 0.1);
    // Publish 1, receive 0.1 per attempt, delete 0.1 per success; a pipe request and an invocation per attempt.
    expect(pipes!.cost(healthy.mix, 1_000_000)).toBeCloseTo(0.4 * 1.2 + 0.4 + 0.2);
  });

  it('charges one secret per connection a month, and at most one read per connection, container and day', () => {
    expect(secretsPerMonth(1_000, prices)).toBeCloseTo(400);
    expect(secretReadsPerMonth(1_000, 10)).toBe(300_000);
  });
});
