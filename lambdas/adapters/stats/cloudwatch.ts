/**
 * `webhooks stats` for a deployed stack, from CloudWatch (the port: stats-port.ts). Scanning a
 * deployed attempt log would cost read units in proportion to the table, so the window's
 * figures come from what the dispatcher already publishes:
 * - attempts by outcome: `GetMetricData` on the `Webhooks` namespace, one query per outcome of
 *   the catalogue's `Attempts` metric with the `[Stack, Outcome]` dimensions, summed over the
 *   window (test sends made by the management library are not in it: they are not the
 *   dispatcher's);
 * - the top failing connections: `GetInsightRuleReport` on the stack's Contributor Insights
 *   rule over failed-attempt log lines (stack output `FailingConnectionsRuleName`); it counts
 *   failed attempts only, so `attempts` per connection is absent;
 * - queue ages: `ApproximateAgeOfOldestMessage` (AWS/SQS, the latest minute of the last 15);
 * - queue depths and the parked count, read as local mode reads them (operator-stats.ts).
 * IAM actions it needs: docs/operations.md#webhooks-stats.
 */

import {
  type CloudWatchClient,
  GetInsightRuleReportCommand,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { ConfigurationError } from '../../core/errors';
import { OUTCOMES, type Outcome } from '../../core/types';
import type { OperatorStats, OperatorStatsSource, QueueName, StatsQuery } from '../../management/stats-port';
import type { WebhookResources } from '../../management/types';
import { CLOUDWATCH_METRICS, METRICS_NAMESPACE, STACK_DIMENSION } from '../metrics/catalogue';
import { messagesOn, parkedCount, queueDepths, type StatsClients } from './stores';

/** The SQS metric of the oldest message's age, and how far back its latest data point is looked for. */
export const QUEUE_AGE_METRIC = { namespace: 'AWS/SQS', name: 'ApproximateAgeOfOldestMessage' } as const;
export const QUEUE_AGE_LOOKBACK_MS = 15 * 60_000;

/** The stack lacks what the CloudWatch figures need (a stack deployed before `webhooks stats` could read it). */
export class StatsUnavailableError extends ConfigurationError {
  constructor(detail: string) {
    super('stats_unavailable', detail);
    this.name = 'StatsUnavailableError';
  }
}

/**
 * A period CloudWatch accepts for a window starting `since` (a multiple of 60 s; of 300 s for
 * data older than 15 days, 3,600 s past 63 days, as CloudWatch keeps it), covering the window in
 * as few data points as it can.
 */
export function periodFor(since: Date, until: Date, now: Date): number {
  const age = now.getTime() - since.getTime();
  const day = 86_400_000;
  const step = age > 63 * day ? 3_600 : age > 15 * day ? 300 : 60;
  const seconds = Math.max(1, Math.ceil((until.getTime() - since.getTime()) / 1000));
  return Math.ceil(seconds / step) * step;
}

const sum = (r: MetricDataResult | undefined) => (r?.Values ?? []).reduce((a, b) => a + b, 0);

export class CloudWatchStats implements OperatorStatsSource {
  constructor(
    private readonly resources: WebhookResources,
    private readonly clients: StatsClients & { cloudwatch: CloudWatchClient },
    /** The stack's name, when its outputs do not carry the metrics' `Stack` value (older stacks). */
    private readonly stackName?: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async read(query: StatsQuery): Promise<OperatorStats> {
    // Checked here, not when built: every other command still works on an older stack.
    const stack = this.resources.metricsStack ?? this.stackName;
    const rule = this.resources.failingConnectionsRule;
    if (!stack || !rule) {
      throw new StatsUnavailableError(
        `the stack has no output ${stack ? 'FailingConnectionsRuleName' : 'MetricsStackName'}: deploy this version of the stack to read its stats`,
      );
    }
    const [byOutcome, topFailing, ages, parked] = await Promise.all([
      this.attemptsByOutcome(query, stack),
      this.topFailing(query, rule),
      this.oldestAges(query.until),
      parkedCount(this.resources, this.clients.doc),
    ]);
    const queues = await queueDepths(this.resources, this.clients.sqs, async () => ages);
    return {
      source: 'cloudwatch',
      since: query.since.toISOString(),
      until: query.until.toISOString(),
      attempts: { total: OUTCOMES.reduce((n, o) => n + byOutcome[o], 0), byOutcome },
      topFailing,
      queues,
      dlqDepth: messagesOn(queues.deadLetter),
      ...(parked === undefined ? {} : { parked }),
    };
  }

  /** The catalogue's `Attempts`, one `[Stack, Outcome]` series per outcome, summed over the window. */
  private async attemptsByOutcome(query: StatsQuery, stack: string): Promise<Record<Outcome, number>> {
    const period = periodFor(query.since, query.until, this.now());
    const queries: MetricDataQuery[] = OUTCOMES.map((outcome, i) => ({
      Id: `attempts_${i}`,
      Label: outcome,
      ReturnData: true,
      MetricStat: {
        Metric: {
          Namespace: METRICS_NAMESPACE,
          MetricName: CLOUDWATCH_METRICS.attempts.name,
          Dimensions: [
            { Name: STACK_DIMENSION, Value: stack },
            { Name: 'Outcome', Value: outcome },
          ],
        },
        Period: period,
        Stat: 'Sum',
        Unit: CLOUDWATCH_METRICS.attempts.unit,
      },
    }));
    const results = await this.metricData(queries, query.since, query.until);
    return Object.fromEntries(OUTCOMES.map((o, i) => [o, sum(results.get(`attempts_${i}`))])) as Record<
      Outcome,
      number
    >;
  }

  /** The rule's top contributors over the window: failed attempts per connection, most first. */
  private async topFailing(query: StatsQuery, rule: string): Promise<OperatorStats['topFailing']> {
    const out = await this.clients.cloudwatch.send(
      new GetInsightRuleReportCommand({
        RuleName: rule,
        StartTime: query.since,
        EndTime: query.until,
        Period: periodFor(query.since, query.until, this.now()),
        MaxContributorCount: query.top ?? 5,
        OrderBy: 'Sum',
      }),
    );
    return (out.Contributors ?? [])
      .map((c) => ({ connectionId: c.Keys?.[0] ?? '', failed: Math.round(c.ApproximateAggregateValue ?? 0) }))
      .filter((c) => c.connectionId !== '' && c.failed > 0)
      .sort((a, b) => b.failed - a.failed || a.connectionId.localeCompare(b.connectionId))
      .slice(0, query.top ?? 5);
  }

  /** The latest `ApproximateAgeOfOldestMessage` of each queue in the last 15 minutes (null: none). */
  private async oldestAges(until: Date): Promise<Record<QueueName, number | null>> {
    const queues: Record<QueueName, string> = {
      ingress: this.resources.queueUrl,
      retry: this.resources.retryQueueUrl,
      deadLetter: this.resources.dlqUrl,
    };
    const names = Object.keys(queues) as QueueName[];
    const queries: MetricDataQuery[] = names.map((name) => ({
      Id: `age_${name.toLowerCase()}`,
      ReturnData: true,
      MetricStat: {
        Metric: {
          Namespace: QUEUE_AGE_METRIC.namespace,
          MetricName: QUEUE_AGE_METRIC.name,
          Dimensions: [{ Name: 'QueueName', Value: queueNameOf(queues[name]) }],
        },
        Period: 60,
        Stat: 'Maximum',
      },
    }));
    const results = await this.metricData(queries, new Date(until.getTime() - QUEUE_AGE_LOOKBACK_MS), until);
    const latest = (r: MetricDataResult | undefined): number | null => {
      if (!r?.Values?.length) return null;
      // Newest first is asked for; pick by timestamp anyway, whatever order came back.
      let best = 0;
      r.Timestamps?.forEach((t, i) => {
        if (t.getTime() > (r.Timestamps?.[best]?.getTime() ?? 0)) best = i;
      });
      return r.Values[best] ?? null;
    };
    return Object.fromEntries(names.map((n) => [n, latest(results.get(`age_${n.toLowerCase()}`))])) as Record<
      QueueName,
      number | null
    >;
  }

  /** Every page of one GetMetricData call, values joined by query id. */
  private async metricData(queries: MetricDataQuery[], start: Date, end: Date) {
    const results = new Map<string, MetricDataResult>();
    let next: string | undefined;
    do {
      const page = await this.clients.cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: queries,
          StartTime: start,
          EndTime: end,
          ScanBy: 'TimestampDescending',
          ...(next ? { NextToken: next } : {}),
        }),
      );
      for (const r of page.MetricDataResults ?? []) {
        if (!r.Id) continue;
        const seen = results.get(r.Id);
        results.set(r.Id, {
          ...r,
          Values: [...(seen?.Values ?? []), ...(r.Values ?? [])],
          Timestamps: [...(seen?.Timestamps ?? []), ...(r.Timestamps ?? [])],
        });
      }
      next = page.NextToken;
    } while (next);
    return results;
  }
}

/** The queue's name, as the AWS/SQS `QueueName` dimension has it: the URL's last path segment. */
export function queueNameOf(queueUrl: string): string {
  return new URL(queueUrl).pathname.split('/').filter(Boolean).pop() ?? queueUrl;
}
