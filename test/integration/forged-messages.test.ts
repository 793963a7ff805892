/**
 * Forged messages on a running local pipeline (issue 11): a publisher holding only
 * `sqs:SendMessage` on the ingress queue writes every kind of forged or hostile message
 * straight onto it, in one batch with valid events. Nothing is sent for the forged ones,
 * each lands in the DLQ with its reason on its first receipt, and the valid batch-mates are
 * delivered. Then, as an insider who could write the retry queue: a cross-tenant delivery is
 * still refused and an attempt record is still never replaced (real DynamoDB conditional write).
 */

import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { recordOf } from '../../lambdas/adapters/dynamodb/attempt-item';
import { MAX_ATTEMPT } from '../../lambdas/core/constants';
import { deliveryIdFor } from '../../lambdas/core/ids';
import { buildPayload, serialiseBody } from '../../lambdas/core/payload';
import type { Log } from '../../lambdas/core/ports';
import type { AttemptRecord } from '../../lambdas/core/types';
import { WebhookManagement } from '../../lambdas/management';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { type Receiver, startReceiver } from '../support/receivers';

let receiverA: Receiver;
let receiverB: Receiver;
let harness: Harness;
const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
const quiet: Log = {
  debug: () => {},
  info: () => {},
  warn: (message, fields) => warnings.push({ message, fields }),
  error: (message, fields) => warnings.push({ message, fields }),
};

beforeAll(async () => {
  receiverA = await startReceiver();
  receiverB = await startReceiver();
  harness = await startHarness({
    ports: [receiverA.port, receiverB.port],
    attemptTimeoutMs: 1_000,
    log: quiet,
  });
});

afterAll(async () => {
  await harness?.stop();
  await receiverA?.close();
  await receiverB?.close();
});

/** A delivery message as the dispatcher writes it: `body` is application `app`'s. */
function deliveryFor(connectionId: string, app: { id: string; name: string }, attempt = 2) {
  const eventId = id('evt');
  const occurredAt = new Date().toISOString();
  return {
    v: 1,
    type: 'delivery',
    deliveryId: deliveryIdFor(eventId, connectionId, Date.parse(occurredAt)),
    eventId,
    connectionId,
    attempt,
    chainStart: 1,
    body: serialiseBody(
      buildPayload({ timestamp: occurredAt, user: { id: 'usr_victim' }, application: app }),
    ),
    firstAttemptAt: occurredAt,
  };
}

it('drops every forged message of a batch into the DLQ with its reason and delivers the valid ones', async () => {
  const appA = { id: id('app'), name: 'Tenant A' };
  const appB = { id: id('app'), name: 'Tenant B' };
  const conA = await harness.createConnection({ applicationId: appA.id, url: receiverA.url });
  const conB = await harness.createConnection({ applicationId: appB.id, url: receiverB.url });

  const forged: Array<[string, string]> = [
    ['cross-tenant delivery', JSON.stringify(deliveryFor(conB.connectionId, appA))],
    ['endless attempt number', JSON.stringify(deliveryFor(conA.connectionId, appA, 2 ** 53 + 2))],
    [
      'attempt-log rewrite',
      JSON.stringify({ v: 1, type: 'attempt-log', record: { deliveryId: 'dlv_x', attempt: 1 } }),
    ],
    ['deep nesting', `{"v":1,"type":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
  ];
  const valid1 = userIdentified(appA.id, { application: appA });
  const valid2 = userIdentified(appB.id, { application: appB });
  await harness.publishBatch([valid1, ...forged.map(([, text]) => text), valid2]);
  // Near SQS's 1 MiB limit: 150 000 control characters, each quoted as 6 bytes.
  const huge = `{"v":1,"type":"event","junk":"${'\\u0001'.repeat(150_000)}"}`;
  await harness.publishBatch([huge]);

  const letters = await harness.deadLetters(forged.length + 1, 30_000);
  await receiverA.waitFor(1);
  await receiverB.waitFor(1);
  // A moment for anything a forged message might still cause.
  await new Promise((r) => setTimeout(r, 2_500));

  // Only the two valid events reached a receiver, each its own tenant's.
  expect(receiverA.requests).toHaveLength(1);
  expect(receiverB.requests).toHaveLength(1);
  expect(JSON.parse(receiverA.requests[0]!.body).application.id).toBe(appA.id);
  expect(JSON.parse(receiverB.requests[0]!.body).application.id).toBe(appB.id);
  expect(JSON.parse(receiverB.requests[0]!.body).user.id).not.toBe('usr_victim');

  const errors = letters.map((l) => l.error).sort();
  expect(letters.every((l) => l.reason === 'invalid_message' && l.sourceQueue === 'ingress')).toBe(true);
  expect(letters.every((l) => l.error.length <= 512)).toBe(true);
  const wrongQueue = (type: string) =>
    `message type "${type}" is not accepted on the ingress queue (it carries "event" messages only)`;
  expect(errors).toEqual(
    [
      'invalid event message: eventId: is required and must look like evt_<id>',
      'message nests deeper than 16 levels',
      wrongQueue('attempt-log'),
      wrongQueue('delivery'),
      wrongQueue('delivery'),
    ].sort(),
  );
  const big = letters.find((l) => l.sourceBytes !== undefined);
  expect(big?.sourceBytes).toBe(Buffer.byteLength(huge));
  // Nothing came back for redelivery: every forged message was decided on its first receipt.
  expect(warnings.filter((w) => /SQS will redeliver/.test(w.message))).toEqual([]);
});

it('refuses a cross-tenant delivery and an attempt-record rewrite even on the internal retry queue', async () => {
  const appA = { id: id('app'), name: 'Tenant A' };
  const appB = { id: id('app'), name: 'Tenant B' };
  const conA = await harness.createConnection({ applicationId: appA.id, url: receiverA.url });
  const conB = await harness.createConnection({ applicationId: appB.id, url: receiverB.url });
  const toRetry = (message: unknown) =>
    harness.sqs.send(
      new SendMessageCommand({
        QueueUrl: harness.resources.retryQueueUrl,
        MessageBody: JSON.stringify(message),
      }),
    );
  const beforeA = receiverA.requests.length;
  const beforeB = receiverB.requests.length;

  // A genuine retry, to get a genuine attempt record.
  const genuine = deliveryFor(conA.connectionId, appA);
  await toRetry(genuine);
  await receiverA.waitFor(beforeA + 1);
  let records: AttemptRecord[] = [];
  for (let i = 0; i < 50 && records.length === 0; i++) {
    records = await harness.attemptsOf(conA.connectionId);
    if (records.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  const [record] = records;
  expect(record).toMatchObject({ outcome: 'delivered', attempt: 2 });

  // The same record again is a no-op; a different one for the same attempt is refused.
  // The record as the adapter reads it back (its headers and body decoded from their stored form).
  const plain = recordOf(record as unknown as Record<string, unknown>);
  await toRetry({ v: 1, type: 'attempt-log', record: plain });
  await toRetry({
    v: 1,
    type: 'attempt-log',
    record: { ...plain, outcome: 'http_error', statusCode: 500, error: 'receiver answered HTTP 500' },
  });
  await toRetry(deliveryFor(conB.connectionId, appA));
  await toRetry(deliveryFor(conA.connectionId, appA, MAX_ATTEMPT + 1));

  const letters = await harness.deadLetters(2, 30_000);
  expect(letters.map((l) => l.reason).sort()).toEqual(['connection_invalid', 'invalid_message']);
  await new Promise((r) => setTimeout(r, 2_000));
  expect(receiverB.requests).toHaveLength(beforeB);
  expect(receiverA.requests).toHaveLength(beforeA + 1);
  const after = await harness.attemptsOf(conA.connectionId);
  expect(after).toEqual([record]);
  // Tenant A's mistake leaves no record in tenant B's attempt log (nor its stats, read from it).
  expect(await harness.attemptsOf(conB.connectionId)).toEqual([]);
  expect(warnings.filter((w) => /never replaced/.test(w.message))).toHaveLength(1);
});

it('a DLQ redrive returns each message to the queue it belongs to, and a poison letter stays', async () => {
  const app = { id: id('app'), name: 'Tenant A' };
  const con = await harness.createConnection({ applicationId: app.id, url: receiverA.url });
  const management = new WebhookManagement({ resources: harness.resources });
  const toDlq = (body: unknown) =>
    harness.sqs.send(
      new SendMessageCommand({ QueueUrl: harness.resources.dlqUrl, MessageBody: JSON.stringify(body) }),
    );
  const exhausted = deliveryFor(con.connectionId, app, 4);
  const event = userIdentified(app.id, { application: app });
  const movedDelivery = deliveryFor(con.connectionId, app, 3);
  const before = receiverA.requests.length;
  await toDlq({
    v: 1,
    type: 'dead-letter',
    reason: 'exhausted',
    error: 'receiver answered HTTP 500',
    failedAt: new Date().toISOString(),
    delivery: exhausted,
  });
  await toDlq(event);
  await toDlq(movedDelivery);
  await toDlq({
    v: 1,
    type: 'dead-letter',
    reason: 'invalid_message',
    error: 'message type "delivery" is not accepted on the ingress queue',
    failedAt: new Date().toISOString(),
    sourceQueue: 'ingress',
    source: JSON.stringify(deliveryFor(con.connectionId, app)),
  });

  const listed = await management.deadLetters.list();
  expect(listed.map((e) => e.queue ?? 'none').sort()).toEqual(['ingress', 'none', 'retry', 'retry']);
  const result = await management.deadLetters.redrive({ all: true });
  expect(result.redriven).toHaveLength(3);
  expect(result.skipped.map((e) => e.reason)).toEqual(['invalid_message']);

  const reqs = (await receiverA.waitFor(before + 3)).slice(before);
  const attempts = reqs.map((r) => Number(r.headers['x-service-attempt'])).sort();
  // The exhausted delivery starts a new chain at attempt 5; the moved delivery is sent as it
  // was (attempt 3); the moved event fans out afresh (attempt 1). None was refused as poison.
  expect(attempts).toEqual([1, 3, 5]);
  const left = await management.deadLetters.list();
  expect(left.map((e) => e.reason)).toEqual(['invalid_message']);
  await harness.deadLetters(1);
});
