/**
 * `webhooks stats` from the stack's own stores and queues (the port: stats-port.ts): the attempt
 * log (a Scan of the window's attempts), the parked table (a counting Scan) and SQS queue
 * attributes, with the oldest messages' ages when the caller can read them (local mode reads
 * the SQS emulator's inspection API). It reads every attempt item, so it is meant for local
 * mode and small stacks; a deployed stack's figures come from CloudWatch (cloudwatch-stats.ts).
 * The queue and parked readings are shared by both adapters.
 */

import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { OUTCOMES, type Outcome } from '../../core/types';
import type {
  OldestAges,
  OperatorStats,
  OperatorStatsSource,
  QueueDepth,
  QueueName,
  StatsQuery,
} from '../../management/stats-port';
import type { WebhookResources } from '../../management/types';

/** The SDK clients the stats adapters read with. */
export interface StatsClients {
  sqs: SQSClient;
  doc: DynamoDBDocumentClient;
}

const QUEUE_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesDelayed',
  'ApproximateNumberOfMessagesNotVisible',
] as const;

/** Depth (and, when `ages` can tell, the oldest message's age) of the stack's three queues. */
export async function queueDepths(
  resources: WebhookResources,
  sqs: SQSClient,
  ages?: OldestAges,
): Promise<OperatorStats['queues']> {
  const [ingress, retry, deadLetter, oldest] = await Promise.all([
    depthOf(sqs, resources.queueUrl),
    depthOf(sqs, resources.retryQueueUrl),
    depthOf(sqs, resources.dlqUrl),
    ages ? ages() : Promise.resolve(undefined),
  ]);
  const withAge = (name: QueueName, d: Omit<QueueDepth, 'oldestAgeSeconds'>): QueueDepth => ({
    ...d,
    oldestAgeSeconds: oldest?.[name] ?? null,
  });
  return {
    ingress: withAge('ingress', ingress),
    retry: withAge('retry', retry),
    deadLetter: withAge('deadLetter', deadLetter),
  };
}

/** Every message on the queue, whatever its state. */
export const messagesOn = (q: QueueDepth): number => q.visible + q.delayed + q.inFlight;

async function depthOf(sqs: SQSClient, queueUrl: string): Promise<Omit<QueueDepth, 'oldestAgeSeconds'>> {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...QUEUE_ATTRIBUTES] }),
  );
  const n = (key: (typeof QUEUE_ATTRIBUTES)[number]) => Number(a[key] ?? 0);
  return {
    visible: n('ApproximateNumberOfMessages'),
    delayed: n('ApproximateNumberOfMessagesDelayed'),
    inFlight: n('ApproximateNumberOfMessagesNotVisible'),
  };
}

/** Deliveries parked now: a counting Scan of the parked table (undefined without one). */
export async function parkedCount(
  resources: WebhookResources,
  doc: DynamoDBDocumentClient,
): Promise<number | undefined> {
  if (!resources.parkedTable) return undefined;
  let count = 0;
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: resources.parkedTable,
        Select: 'COUNT',
        ...(cursor ? { ExclusiveStartKey: cursor } : {}),
      }),
    );
    count += page.Count ?? 0;
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return count;
}

/** The adapter on the stack's stores and queues. */
export class StoreStats implements OperatorStatsSource {
  constructor(
    private readonly resources: WebhookResources,
    private readonly clients: StatsClients,
    /** Reads the oldest messages' ages (local mode: the SQS emulator); absent, they are null. */
    private readonly ages?: OldestAges,
  ) {}

  async read(query: StatsQuery): Promise<OperatorStats> {
    const [attempts, queues, parked] = await Promise.all([
      this.attempts(query),
      queueDepths(this.resources, this.clients.sqs, this.ages),
      parkedCount(this.resources, this.clients.doc),
    ]);
    return {
      source: 'stores',
      since: query.since.toISOString(),
      until: query.until.toISOString(),
      attempts: attempts.totals,
      topFailing: attempts.topFailing.slice(0, query.top ?? 5),
      queues,
      dlqDepth: messagesOn(queues.deadLetter),
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
}
