/**
 * `webhooks stats` on a deployed stack: each figure from the CloudWatch (or SQS, DynamoDB) query
 * that holds it, by the catalogue's names and the stack's outputs. A query or field gone
 * missing changes a figure here.
 */

import {
  CloudWatchClient,
  GetInsightRuleReportCommand,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { CLOUDWATCH_METRICS, METRICS_NAMESPACE } from '../../../lambdas/adapters/metrics/catalogue';
import {
  CloudWatchStats,
  periodFor,
  queueNameOf,
  StatsUnavailableError,
} from '../../../lambdas/adapters/stats/cloudwatch';
import { OUTCOMES } from '../../../lambdas/core/types';
import type { WebhookResources } from '../../../lambdas/management/types';

const cw = mockClient(CloudWatchClient);
const sqs = mockClient(SQSClient);
const doc = mockClient(DynamoDBDocumentClient);

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Webhooks-Queue4A7E3555-abc';
const RETRY = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Webhooks-RetryQueue-def';
const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Webhooks-DeadLetterQueue-ghi';
const resources: WebhookResources = {
  queueUrl: QUEUE,
  retryQueueUrl: RETRY,
  dlqUrl: DLQ,
  connectionsTable: 'connections',
  attemptsTable: 'attempts',
  parkedTable: 'parked',
  secretPrefix: 'webhooks/Webhooks/',
  failingConnectionsRule: 'Webhooks-FailingConnections-1A2B3C',
  metricsStack: 'WebhooksProd',
};
const since = new Date('2026-11-25T18:00:00.000Z');
const until = new Date('2026-11-25T19:00:00.000Z');

function stats(r: WebhookResources = resources, stackName?: string) {
  return new CloudWatchStats(
    r,
    {
      sqs: new SQSClient({}),
      doc: DynamoDBDocumentClient.from(new DynamoDBClient({})),
      cloudwatch: new CloudWatchClient({}),
    },
    stackName,
    () => until,
  );
}

/** The window's query (Attempts) or the queue-age one, told apart by their ids. */
const isAttempts = (input: GetMetricDataCommandInput) =>
  input.MetricDataQueries?.some((q) => q.Id?.startsWith('attempts_')) ?? false;

beforeEach(() => {
  cw.reset();
  sqs.reset();
  doc.reset();
  // Two pages for the attempts, as CloudWatch pages a long answer: both must be summed.
  cw.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => {
    const queries = input.MetricDataQueries ?? [];
    if (isAttempts(input)) {
      const byLabel: Record<string, number[]> = input.NextToken
        ? { delivered: [3], http_error: [1] }
        : { delivered: [40, 7], http_error: [5], timeout: [2] };
      return {
        MetricDataResults: queries.map((q) => ({
          Id: q.Id,
          Label: q.Label,
          Values: byLabel[q.Label ?? ''] ?? [],
          Timestamps: (byLabel[q.Label ?? ''] ?? []).map(() => until),
        })),
        NextToken: input.NextToken ? undefined : 'page-2',
      };
    }
    const ages: Record<string, { Values: number[]; Timestamps: Date[] }> = {
      // Oldest first on purpose: the newest data point wins whatever the order.
      age_ingress: {
        Values: [30, 95],
        Timestamps: [new Date('2026-11-25T18:50:00Z'), new Date('2026-11-25T18:58:00Z')],
      },
      age_retry: { Values: [0], Timestamps: [new Date('2026-11-25T18:58:00Z')] },
      age_deadletter: { Values: [], Timestamps: [] },
    };
    return { MetricDataResults: queries.map((q) => ({ Id: q.Id, ...ages[q.Id ?? ''] })) };
  });
  cw.on(GetInsightRuleReportCommand).resolves({
    Contributors: [
      { Keys: ['con_b'], ApproximateAggregateValue: 4, Datapoints: [] },
      { Keys: ['con_a'], ApproximateAggregateValue: 9, Datapoints: [] },
    ],
  });
  sqs.on(GetQueueAttributesCommand).callsFake((input: { QueueUrl: string }) => ({
    Attributes: {
      ApproximateNumberOfMessages: input.QueueUrl === QUEUE ? '12' : '0',
      ApproximateNumberOfMessagesDelayed: input.QueueUrl === RETRY ? '3' : '0',
      ApproximateNumberOfMessagesNotVisible: input.QueueUrl === DLQ ? '2' : '1',
    },
  }));
  doc.on(ScanCommand, { TableName: 'parked', Select: 'COUNT' }).resolves({ Count: 6 });
});

describe('CloudWatchStats', () => {
  it('reads every figure: attempts by outcome, top failing connections, queue depths and ages, DLQ, parked', async () => {
    const s = await stats().read({ since, until, top: 5 });
    expect(s.source).toBe('cloudwatch');
    expect(s.since).toBe(since.toISOString());
    expect(s.until).toBe(until.toISOString());
    // Both pages, every data point of each outcome.
    expect(s.attempts.byOutcome.delivered).toBe(50);
    expect(s.attempts.byOutcome.http_error).toBe(6);
    expect(s.attempts.byOutcome.timeout).toBe(2);
    expect(s.attempts.byOutcome.network_error).toBe(0);
    expect(Object.keys(s.attempts.byOutcome).sort()).toEqual([...OUTCOMES].sort());
    expect(s.attempts.total).toBe(58);
    // Most failed first; the rule counts failures only, so no total per connection.
    expect(s.topFailing).toEqual([
      { connectionId: 'con_a', failed: 9 },
      { connectionId: 'con_b', failed: 4 },
    ]);
    expect(s.queues).toEqual({
      ingress: { visible: 12, delayed: 0, inFlight: 1, oldestAgeSeconds: 95 },
      retry: { visible: 0, delayed: 3, inFlight: 1, oldestAgeSeconds: 0 },
      deadLetter: { visible: 0, delayed: 0, inFlight: 2, oldestAgeSeconds: null },
    });
    expect(s.dlqDepth).toBe(2);
    expect(s.parked).toBe(6);
  });

  it("asks for the catalogue's Attempts metric, one [Stack, Outcome] series per outcome, summed over the window", async () => {
    await stats().read({ since, until });
    const calls = cw.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
    const window = calls.filter(isAttempts);
    expect(window).toHaveLength(2); // the first page and the next
    expect(window[1]!.NextToken).toBe('page-2');
    const input = window[0]!;
    expect(input.StartTime).toEqual(since);
    expect(input.EndTime).toEqual(until);
    const series = input.MetricDataQueries!.map((q) => q.MetricStat);
    expect(series.map((m) => m?.Metric?.Dimensions)).toEqual(
      OUTCOMES.map((o) => [
        { Name: 'Stack', Value: 'WebhooksProd' },
        { Name: 'Outcome', Value: o },
      ]),
    );
    for (const m of series) {
      expect(m?.Metric?.Namespace).toBe(METRICS_NAMESPACE);
      expect(m?.Metric?.MetricName).toBe(CLOUDWATCH_METRICS.attempts.name);
      expect(m?.Stat).toBe('Sum');
      expect(m?.Period).toBe(3_600);
    }
  });

  it("asks the stack's Contributor Insights rule for the window's top contributors", async () => {
    await stats().read({ since, until, top: 3 });
    const [call] = cw.commandCalls(GetInsightRuleReportCommand);
    expect(call!.args[0].input).toEqual({
      RuleName: 'Webhooks-FailingConnections-1A2B3C',
      StartTime: since,
      EndTime: until,
      Period: 3_600,
      MaxContributorCount: 3,
      OrderBy: 'Sum',
    });
  });

  it('lists at most --top connections, even when the rule answers more', async () => {
    const s = await stats().read({ since, until, top: 1 });
    expect(s.topFailing).toEqual([{ connectionId: 'con_a', failed: 9 }]);
  });

  it("asks AWS/SQS for each queue's ApproximateAgeOfOldestMessage over the last 15 minutes", async () => {
    await stats().read({ since, until });
    const ages = cw
      .commandCalls(GetMetricDataCommand)
      .map((c) => c.args[0].input)
      .filter((i) => !isAttempts(i));
    expect(ages).toHaveLength(1);
    expect(ages[0]!.StartTime).toEqual(new Date('2026-11-25T18:45:00.000Z'));
    expect(ages[0]!.EndTime).toEqual(until);
    expect(
      ages[0]!.MetricDataQueries!.map((q) => ({
        ns: q.MetricStat?.Metric?.Namespace,
        name: q.MetricStat?.Metric?.MetricName,
        queue: q.MetricStat?.Metric?.Dimensions,
        stat: q.MetricStat?.Stat,
      })),
    ).toEqual(
      ['Webhooks-Queue4A7E3555-abc', 'Webhooks-RetryQueue-def', 'Webhooks-DeadLetterQueue-ghi'].map((q) => ({
        ns: 'AWS/SQS',
        name: 'ApproximateAgeOfOldestMessage',
        queue: [{ Name: 'QueueName', Value: q }],
        stat: 'Maximum',
      })),
    );
  });

  it("takes the Stack dimension from the stack's name when its outputs predate MetricsStackName", async () => {
    const { metricsStack: _, ...older } = resources;
    await stats(older, 'Webhooks').read({ since, until });
    const input = cw
      .commandCalls(GetMetricDataCommand)
      .map((c) => c.args[0].input)
      .find(isAttempts)!;
    expect(input.MetricDataQueries![0]!.MetricStat!.Metric!.Dimensions![0]).toEqual({
      Name: 'Stack',
      Value: 'Webhooks',
    });
  });

  it('says which output is missing on a stack deployed before the rule was an output, and asks nothing', async () => {
    const { failingConnectionsRule: _, ...older } = resources;
    const failed = await stats(older, 'Webhooks')
      .read({ since, until })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StatsUnavailableError);
    expect((failed as Error).message).toMatch(/no output FailingConnectionsRuleName/);
    expect(cw.calls()).toHaveLength(0);
  });

  it('leaves the parked count out on a stack without the parked table', async () => {
    const { parkedTable: _, ...older } = resources;
    expect((await stats(older).read({ since, until })).parked).toBeUndefined();
  });
});

describe('periodFor', () => {
  const now = new Date('2026-11-25T19:00:00Z');
  it('covers the window in one period, a multiple of 60 s (of 300 s past 15 days, 3,600 s past 63)', () => {
    expect(periodFor(new Date('2026-11-25T18:00:00Z'), now, now)).toBe(3_600);
    expect(periodFor(new Date('2026-11-25T18:59:30Z'), now, now)).toBe(60);
    expect(periodFor(new Date('2026-11-25T18:29:01Z'), now, now)).toBe(1_860);
    expect(periodFor(new Date('2026-11-05T18:59:00Z'), now, now) % 300).toBe(0);
    expect(periodFor(new Date('2026-09-01T18:59:00Z'), now, now) % 3_600).toBe(0);
  });
});

describe('queueNameOf', () => {
  it('is the last segment of the queue URL, as the QueueName dimension has it', () => {
    expect(queueNameOf(QUEUE)).toBe('Webhooks-Queue4A7E3555-abc');
    expect(queueNameOf('http://127.0.0.1:4566/000000000000/local-dlq')).toBe('local-dlq');
  });
});
