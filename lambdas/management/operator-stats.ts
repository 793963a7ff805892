/**
 * What `webhooks stats` shows operators (docs/operations.md#webhooks-stats): attempts by outcome
 * over a window, the connections with the most failed attempts in it, the queues' depth, the
 * DLQ's depth and how many deliveries are parked. A port with one adapter so far, which reads
 * the stack's own stores and queues: the attempt log (a Scan of the window's attempts), the
 * parked table (a counting Scan) and SQS queue attributes. It reads every attempt item, so it
 * is meant for local mode and small stacks; a deployed stack's figures belong to CloudWatch.
 */

import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { OUTCOMES, type Outcome } from '../core/types';
import type { WebhookResources } from './types';

/** Messages on one queue, as SQS counts them (approximate). */
export interface QueueDepth {
  /** Ready to be received. */
  visible: number;
  /** Sent with a delay that has not passed yet (retries waiting for their backoff). */
  delayed: number;
  /** Received and being processed. */
  inFlight: number;
}

export interface OperatorStats {
  since: string;
  until: string;
  attempts: { total: number; byOutcome: Record<Outcome, number> };
  /** Connections by failed attempts in the window (any outcome but delivered), most first. */
  topFailing: Array<{ connectionId: string; failed: number; attempts: number }>;
  queues: { ingress: QueueDepth; retry: QueueDepth };
  /** Messages in the dead-letter queue. */
  dlqDepth: number;
  /** Deliveries parked now (undefined on a stack without the parked table). */
  parked?: number;
}

export interface StatsQuery {
  since: Date;
  until: Date;
  /** How many connections `topFailing` lists. @default 5 */
  top?: number;
}

/** Port: where the figures come from. */
export interface OperatorStatsSource {
  read(query: StatsQuery): Promise<OperatorStats>;
}

const QUEUE_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesDelayed',
  'ApproximateNumberOfMessagesNotVisible',
] as const;

/** The adapter on the stack's stores and queues. */
export class StoreStats implements OperatorStatsSource {
  constructor(
    private readonly resources: WebhookResources,
    private readonly clients: { sqs: SQSClient; doc: DynamoDBDocumentClient },
  ) {}

  async read(query: StatsQuery): Promise<OperatorStats> {
    const [attempts, ingress, retry, dlq, parked] = await Promise.all([
      this.attempts(query),
      this.depth(this.resources.queueUrl),
      this.depth(this.resources.retryQueueUrl),
      this.depth(this.resources.dlqUrl),
      this.resources.parkedTable ? this.count(this.resources.parkedTable) : Promise.resolve(undefined),
    ]);
    return {
      since: query.since.toISOString(),
      until: query.until.toISOString(),
      attempts: attempts.totals,
      topFailing: attempts.topFailing.slice(0, query.top ?? 5),
      queues: { ingress, retry },
      dlqDepth: dlq.visible + dlq.delayed + dlq.inFlight,
      ...(parked === undefined ? {} : { parked }),
    };
  }

  private async attempts(query: StatsQuery) {
    const byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
    const byConnection = new Map<string, { failed: number; attempts: number }>();
    let total = 0;
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await this.clients.doc.send(
        new ScanCommand({
          TableName: this.resources.attemptsTable,
          FilterExpression: 'requestedAt >= :since AND requestedAt < :until',
          ProjectionExpression: 'connectionId, outcome',
          ExpressionAttributeValues: {
            ':since': query.since.toISOString(),
            ':until': query.until.toISOString(),
          },
          ...(cursor ? { ExclusiveStartKey: cursor } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const outcome = item.outcome as Outcome;
        if (!(outcome in byOutcome)) continue; // not an attempt record
        total++;
        byOutcome[outcome]++;
        const id = String(item.connectionId);
        const entry = byConnection.get(id) ?? { failed: 0, attempts: 0 };
        entry.attempts++;
        if (outcome !== 'delivered') entry.failed++;
        byConnection.set(id, entry);
      }
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    const topFailing = [...byConnection]
      .filter(([, e]) => e.failed > 0)
      .map(([connectionId, e]) => ({ connectionId, ...e }))
      .sort((a, b) => b.failed - a.failed || a.connectionId.localeCompare(b.connectionId));
    return { totals: { total, byOutcome }, topFailing };
  }

  private async depth(queueUrl: string): Promise<QueueDepth> {
    const { Attributes: a = {} } = await this.clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...QUEUE_ATTRIBUTES] }),
    );
    const n = (key: (typeof QUEUE_ATTRIBUTES)[number]) => Number(a[key] ?? 0);
    return {
      visible: n('ApproximateNumberOfMessages'),
      delayed: n('ApproximateNumberOfMessagesDelayed'),
      inFlight: n('ApproximateNumberOfMessagesNotVisible'),
    };
  }

  private async count(tableName: string): Promise<number> {
    let count = 0;
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await this.clients.doc.send(
        new ScanCommand({
          TableName: tableName,
          Select: 'COUNT',
          ...(cursor ? { ExclusiveStartKey: cursor } : {}),
        }),
      );
      count += page.Count ?? 0;
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return count;
  }
}
