/**
 * What the harness reads back from the emulators to check a run: messages on queues,
 * a connection's attempt records and parked deliveries (straight from the tables, not through
 * the code under test).
 */
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { ATTEMPTS_TABLE, PARKED_TABLE } from '../../lambdas/adapters/dynamodb/tables';
import type { ParkedItem } from '../../lambdas/core/parking';
import type { AttemptRecord } from '../../lambdas/core/types';

/** Visible plus in-flight plus delayed messages, over all `queueUrls`. */
export async function messagesLeft(sqs: SQSClient, ...queueUrls: string[]): Promise<number> {
  const counts = await Promise.all(
    queueUrls.map(async (QueueUrl) => {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      );
      return (
        Number(Attributes.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
      );
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Takes the messages off a queue (received, then deleted) until `count` came or `timeoutMs`
 * passed, then looks once more without waiting, so one more than expected shows too: their
 * bodies, parsed.
 */
export async function takeMessages<T = unknown>(
  sqs: SQSClient,
  queueUrl: string,
  count: number,
  timeoutMs = 30_000,
): Promise<T[]> {
  const bodies: T[] = [];
  const deadline = Date.now() + timeoutMs;
  for (let done = false; !done; ) {
    const waiting = bodies.length < count && Date.now() < deadline;
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waiting ? 1 : 0,
      }),
    );
    for (const m of Messages) {
      bodies.push(JSON.parse(m.Body!) as T);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
    done = !waiting && Messages.length === 0;
  }
  return bodies;
}

/** Every item of one partition (all pages, strongly consistent). */
async function partition<T>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  partitionKey: string,
  value: string,
): Promise<T[]> {
  const items: T[] = [];
  const pages = paginateQuery(
    { client: doc },
    {
      TableName: tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': partitionKey },
      ExpressionAttributeValues: { ':pk': value },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...((page.Items ?? []) as T[]));
  return items;
}

/** A connection's attempt records, as the attempt log stored them. */
export const attemptsOf = (doc: DynamoDBDocumentClient, table: string, connectionId: string) =>
  partition<AttemptRecord>(doc, table, ATTEMPTS_TABLE.partitionKey, connectionId);

/** A connection's parked deliveries, bodies included (the table's items). */
export const parkedOf = (doc: DynamoDBDocumentClient, table: string, connectionId: string) =>
  partition<ParkedItem>(doc, table, PARKED_TABLE.partitionKey, connectionId);
