/**
 * `webhooks --local stats` reads the queues' oldest ages from the SQS emulator (SQS's own API
 * has no such attribute): a message left on a queue nobody polls ages; an empty queue is 0.
 * Real fauxqs, real SDK clients, the StoreStats adapter the CLI builds in local mode.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StoreStats } from '../../lambdas/adapters/stats/stores';
import { fauxqsOldestAges } from '../../local/fauxqs-queues';
import { createQueue, uniqueName } from '../support/emulators';
import { resourcesFromEnv } from '../support/resources';

let sqs: SQSClient;
let dynamodb: DynamoDBClient;

beforeAll(() => {
  sqs = new SQSClient({});
  dynamodb = new DynamoDBClient({});
});

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
});

it("gives each queue's depth and its oldest message's age, from the emulator's inspection API", async () => {
  const name = uniqueName('stats');
  const [ingress, retry, dlq] = await Promise.all([
    createQueue(sqs, name),
    createQueue(sqs, `${name}-retry`),
    createQueue(sqs, `${name}-dlq`),
  ]);
  const resources = resourcesFromEnv({ queueUrl: ingress.url, retryQueueUrl: retry.url, dlqUrl: dlq.url });
  await sqs.send(new SendMessageCommand({ QueueUrl: ingress.url, MessageBody: '{"old":true}' }));
  await sqs.send(
    new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: '{"dead":true}', DelaySeconds: 0 }),
  );
  const sentAt = Date.now();
  // Read as if 90 s had passed since the sends: the age is the clock's, not a sleep's.
  const later = () => sentAt + 90_000;
  const stats = new StoreStats(
    resources,
    { sqs, doc: DynamoDBDocumentClient.from(dynamodb) },
    fauxqsOldestAges(process.env.AWS_ENDPOINT_URL_SQS!, resources, later),
  );
  const s = await stats.read({ since: new Date(sentAt - 60_000), until: new Date(sentAt) });
  expect(s.source).toBe('stores');
  expect(s.queues.ingress.visible).toBe(1);
  expect(s.queues.ingress.oldestAgeSeconds).toBeGreaterThanOrEqual(89);
  expect(s.queues.ingress.oldestAgeSeconds).toBeLessThan(120);
  expect(s.queues.retry).toEqual({ visible: 0, delayed: 0, inFlight: 0, oldestAgeSeconds: 0 });
  expect(s.queues.deadLetter.oldestAgeSeconds).toBeGreaterThanOrEqual(89);
  expect(s.dlqDepth).toBe(1);
});
