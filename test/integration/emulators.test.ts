/**
 * The local emulators speak the AWS protocols: every call here goes through the real SDK v3
 * clients, configured only by the environment global-setup exported (no endpoint in code).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type TableDescription,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  InvalidParameterException,
  ListSecretsCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { Agent, request } from 'undici';
import { ATTEMPTS_TABLE, CONNECTIONS_TABLE } from '../../lambdas/adapters/dynamodb/tables';
import { ENV, loadConfig } from '../../lambdas/config';
import { bootstrapResources, DEFAULT_RESOURCE_NAMES, type RebuildEvent } from '../../local/bootstrap';
import { type BatchReport, startRunner } from '../../local/runner';
import { rebuildCopyOf } from '../../local/table-upgrade';
import { createLocalPki } from '../../local/tls';
import { createQueue, uniqueName } from '../support/emulators';
import { messagesLeft } from '../support/queries';
import { waitFor, withTimeout } from '../support/wait';

const silent = { info() {}, warn() {}, error() {} };

let sqs: SQSClient;
let dynamodb: DynamoDBClient;
let secrets: SecretsManagerClient;

beforeAll(() => {
  // No endpoint, region or credentials here: AWS_ENDPOINT_URL_<SERVICE> and friends do it.
  sqs = new SQSClient({});
  dynamodb = new DynamoDBClient({});
  secrets = new SecretsManagerClient({});
});

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
  secrets.destroy();
});

describe('environment exported by global setup', () => {
  it('points unchanged SDK clients at the emulators through AWS_ENDPOINT_URL_<SERVICE>', async () => {
    for (const key of [
      'AWS_ENDPOINT_URL_SQS',
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_ENDPOINT_URL_SECRETS_MANAGER',
    ]) {
      expect(process.env[key]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    // Clients built with no endpoint reach the emulators (real AWS would refuse the dummy keys).
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: process.env[ENV.queueUrl], AttributeNames: ['QueueArn'] }),
    );
    expect(Attributes?.QueueArn).toMatch(/^arn:aws:sqs:[a-z0-9-]+:000000000000:webhooks-deliveries$/);
    const table = await dynamodb.send(
      new DescribeTableCommand({ TableName: process.env[ENV.connectionsTable] }),
    );
    expect(table.Table?.TableStatus).toBe('ACTIVE');
    await expect(
      secrets.send(new GetSecretValueCommand({ SecretId: `${process.env[ENV.secretPrefix]}none` })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('satisfies the dispatcher config loader', () => {
    const config = loadConfig(process.env);
    expect(config).toMatchObject({
      retryQueueUrl: expect.stringMatching(/\/webhooks-deliveries-retry$/),
      dlqUrl: expect.stringMatching(/\/webhooks-deliveries-dlq$/),
      connectionsTable: 'webhooks-connections',
      attemptsTable: 'webhooks-attempts',
      secretPrefix: 'webhooks/local/',
    });
  });
});

describe('local Secrets Manager', () => {
  const name = (label: string) => `${process.env[ENV.secretPrefix]}${uniqueName(label)}`;

  it('creates a secret and returns its value by name and by ARN', async () => {
    const secretName = name('create');
    const created = await secrets.send(
      new CreateSecretCommand({
        Name: secretName,
        SecretString: 'whsec_one',
        Description: 'test',
        Tags: [{ Key: 'k', Value: 'v' }],
      }),
    );
    expect(created.ARN).toMatch(
      new RegExp(`^arn:aws:secretsmanager:[a-z0-9-]+:000000000000:secret:${secretName}-[A-Za-z0-9]{6}$`),
    );
    expect(created.Name).toBe(secretName);
    expect(created.VersionId).toEqual(expect.any(String));

    for (const secretId of [secretName, created.ARN!]) {
      const value = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
      expect(value).toMatchObject({
        ARN: created.ARN,
        Name: secretName,
        SecretString: 'whsec_one',
        VersionId: created.VersionId,
        VersionStages: ['AWSCURRENT'],
      });
      expect(value.CreatedDate).toBeInstanceOf(Date);
    }
  });

  it('rotates: the new version becomes AWSCURRENT and the old one stays readable as AWSPREVIOUS', async () => {
    const secretName = name('rotate');
    const first = await secrets.send(
      new CreateSecretCommand({ Name: secretName, SecretString: 'whsec_old' }),
    );
    const second = await secrets.send(
      new PutSecretValueCommand({ SecretId: first.ARN, SecretString: 'whsec_new' }),
    );
    expect(second.VersionId).not.toBe(first.VersionId);
    expect(second.VersionStages).toEqual(['AWSCURRENT']);

    const current = await secrets.send(new GetSecretValueCommand({ SecretId: secretName }));
    expect(current).toMatchObject({ SecretString: 'whsec_new', VersionId: second.VersionId });
    const previous = await secrets.send(
      new GetSecretValueCommand({ SecretId: secretName, VersionStage: 'AWSPREVIOUS' }),
    );
    expect(previous).toMatchObject({ SecretString: 'whsec_old', VersionId: first.VersionId });
    const byVersion = await secrets.send(
      new GetSecretValueCommand({ SecretId: secretName, VersionId: first.VersionId }),
    );
    expect(byVersion).toMatchObject({ SecretString: 'whsec_old', VersionStages: ['AWSPREVIOUS'] });

    const third = await secrets.send(
      new PutSecretValueCommand({ SecretId: secretName, SecretString: 'whsec_newer' }),
    );
    const stagesOf = async (versionId: string | undefined) =>
      (await secrets.send(new GetSecretValueCommand({ SecretId: secretName, VersionId: versionId })))
        .VersionStages;
    expect(await stagesOf(third.VersionId)).toEqual(['AWSCURRENT']);
    expect(await stagesOf(second.VersionId)).toEqual(['AWSPREVIOUS']);
    // A version that lost its labels is still readable by id, as on AWS.
    const deprecated = await secrets.send(
      new GetSecretValueCommand({ SecretId: secretName, VersionId: first.VersionId }),
    );
    expect(deprecated).toMatchObject({ SecretString: 'whsec_old', VersionStages: [] });
  });

  it('treats a PutSecretValue retried with the same ClientRequestToken as one version', async () => {
    const secretName = name('idempotent');
    await secrets.send(new CreateSecretCommand({ Name: secretName, SecretString: 'a' }));
    const token = 'retry-token-0123456789abcdef0123456789';
    const once1 = await secrets.send(
      new PutSecretValueCommand({ SecretId: secretName, SecretString: 'b', ClientRequestToken: token }),
    );
    const once2 = await secrets.send(
      new PutSecretValueCommand({ SecretId: secretName, SecretString: 'b', ClientRequestToken: token }),
    );
    expect(once2.VersionId).toBe(once1.VersionId);
    await expect(
      secrets.send(
        new PutSecretValueCommand({ SecretId: secretName, SecretString: 'c', ClientRequestToken: token }),
      ),
    ).rejects.toBeInstanceOf(ResourceExistsException);
  });

  it('refuses a second secret with the same name with ResourceExistsException', async () => {
    const secretName = name('dup');
    await secrets.send(new CreateSecretCommand({ Name: secretName, SecretString: 'a' }));
    await expect(
      secrets.send(new CreateSecretCommand({ Name: secretName, SecretString: 'b' })),
    ).rejects.toBeInstanceOf(ResourceExistsException);
  });

  it('answers ResourceNotFoundException for a secret that does not exist', async () => {
    const missing = secrets.send(new GetSecretValueCommand({ SecretId: name('missing') }));
    await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(missing).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: "Secrets Manager can't find the specified secret.",
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('forgets a secret on a forced delete and refuses a delete with a recovery window', async () => {
    const secretName = name('delete');
    await secrets.send(new CreateSecretCommand({ Name: secretName, SecretString: 'a' }));
    await expect(
      secrets.send(new DeleteSecretCommand({ SecretId: secretName, RecoveryWindowInDays: 7 })),
    ).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(secrets.send(new GetSecretValueCommand({ SecretId: secretName }))).resolves.toMatchObject({
      SecretString: 'a',
    });
    await secrets.send(new DeleteSecretCommand({ SecretId: secretName, ForceDeleteWithoutRecovery: true }));
    await expect(secrets.send(new GetSecretValueCommand({ SecretId: secretName }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('serves only the calls the product makes, and names them when asked for another', async () => {
    await expect(secrets.send(new ListSecretsCommand({}))).rejects.toMatchObject({
      name: 'UnknownOperationException',
      message: expect.stringContaining('CreateSecret, GetSecretValue, PutSecretValue and DeleteSecret'),
    });
  });
});

describe('delivery queues', () => {
  it('are created with a redrive policy to the DLQ, maxReceiveCount 5 and 1 MiB messages', async () => {
    const dlq = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: process.env[ENV.dlqUrl], AttributeNames: ['QueueArn'] }),
    );
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: process.env[ENV.queueUrl], AttributeNames: ['All'] }),
    );
    expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({
      deadLetterTargetArn: dlq.Attributes!.QueueArn,
      maxReceiveCount: 5,
    });
    expect(Attributes).toMatchObject({ MaximumMessageSize: '1048576', VisibilityTimeout: '30' });
  });

  it('move a message to the DLQ once it has been received maxReceiveCount times', async () => {
    const dlq = await createQueue(sqs, uniqueName('dlq'));
    const queue = await createQueue(sqs, uniqueName('redrive'), {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 3 }),
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'poison' }));

    const counts: string[] = [];
    for (let i = 0; i < 4; i++) {
      // VisibilityTimeout 0: the message is visible again at once, as if every attempt failed.
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          VisibilityTimeout: 0,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      counts.push(...Messages.map((m) => m.Attributes!.ApproximateReceiveCount!));
    }
    expect(counts).toEqual(['1', '2', '3']);
    const moved = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.url, WaitTimeSeconds: 1 }));
    expect(moved.Messages?.map((m) => m.Body)).toEqual(['poison']);
    expect(await messagesLeft(sqs, queue.url)).toBe(0);
  });

  it('hold a message back for its DelaySeconds (how retries are scheduled)', async () => {
    const queue = await createQueue(sqs, uniqueName('delay'));
    const sentAt = Date.now();
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'later', DelaySeconds: 1 }));
    const early = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 0 }));
    expect(early.Messages).toBeUndefined();
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 5 }),
    );
    expect(Messages?.map((m) => m.Body)).toEqual(['later']);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(950);
  });

  it('accept a message larger than 256 KiB', async () => {
    const body = 'x'.repeat(300 * 1024);
    const sent = await sqs.send(
      new SendMessageCommand({ QueueUrl: process.env[ENV.dlqUrl], MessageBody: body }),
    );
    expect(sent.MD5OfMessageBody).toBe(createHash('md5').update(body).digest('hex'));
  });
});

describe('tables', () => {
  const describe_ = async (name: string | undefined): Promise<TableDescription> =>
    (await dynamodb.send(new DescribeTableCommand({ TableName: name }))).Table!;
  const keys = (schema: TableDescription['KeySchema']) => schema?.map((k) => [k.AttributeName, k.KeyType]);

  it('has the connections table with the keys and byApplication index of lambdas/tables.ts', async () => {
    const table = await describe_(process.env[ENV.connectionsTable]);
    expect(table.TableStatus).toBe('ACTIVE');
    expect(table.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(keys(table.KeySchema)).toEqual([[CONNECTIONS_TABLE.partitionKey, 'HASH']]);
    const index = CONNECTIONS_TABLE.byApplicationIndex;
    expect(table.GlobalSecondaryIndexes).toHaveLength(1);
    const gsi = table.GlobalSecondaryIndexes![0]!;
    expect(gsi.IndexName).toBe(index.name);
    expect(keys(gsi.KeySchema)).toEqual([
      [index.partitionKey, 'HASH'],
      [index.sortKey, 'RANGE'],
    ]);
    expect(gsi.Projection?.ProjectionType).toBe('ALL');
    expect(gsi.IndexStatus).toBe('ACTIVE');
  });

  it('has the attempts table with the keys, the sparse finalFailures and the byAttemptTime index of lambdas/tables.ts', async () => {
    const table = await describe_(process.env[ENV.attemptsTable]);
    expect(table.TableStatus).toBe('ACTIVE');
    expect(table.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(keys(table.KeySchema)).toEqual([
      [ATTEMPTS_TABLE.partitionKey, 'HASH'],
      [ATTEMPTS_TABLE.sortKey, 'RANGE'],
    ]);
    const index = ATTEMPTS_TABLE.finalFailuresIndex;
    const byTime = ATTEMPTS_TABLE.byTimeIndex;
    const gsis = table.GlobalSecondaryIndexes!.map((g) => [g.IndexName, keys(g.KeySchema), g.Projection]);
    expect(gsis.sort()).toEqual(
      [
        [
          index.name,
          [
            [index.partitionKey, 'HASH'],
            [index.sortKey, 'RANGE'],
          ],
          { ProjectionType: 'ALL' },
        ],
        [
          byTime.name,
          [
            [byTime.partitionKey, 'HASH'],
            [byTime.sortKey, 'RANGE'],
          ],
          { ProjectionType: 'INCLUDE', NonKeyAttributes: [...byTime.projected] },
        ],
      ].sort(),
    );
  });

  const failures = ATTEMPTS_TABLE.finalFailuresIndex;
  const key = (hash: string, range: string) => [
    { AttributeName: hash, KeyType: 'HASH' as const },
    { AttributeName: range, KeyType: 'RANGE' as const },
  ];
  const oldItems = Array.from({ length: 30 }, (_, i) => ({
    connectionId: { S: 'con_old' },
    sk: { S: `dlv_${String(i).padStart(3, '0')}#0001` },
    requestedAt: { S: new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString() },
  }));
  /** An attempts table as an older version made it (no by-time index), holding `items`. */
  async function olderTable(name: string, items: typeof oldItems, withIndex = true): Promise<void> {
    const attributes = withIndex
      ? [ATTEMPTS_TABLE.partitionKey, ATTEMPTS_TABLE.sortKey, failures.partitionKey, failures.sortKey]
      : [ATTEMPTS_TABLE.partitionKey, ATTEMPTS_TABLE.sortKey];
    await dynamodb.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: key(ATTEMPTS_TABLE.partitionKey, ATTEMPTS_TABLE.sortKey),
        AttributeDefinitions: attributes.map((AttributeName) => ({
          AttributeName,
          AttributeType: 'S' as const,
        })),
        ...(withIndex
          ? {
              GlobalSecondaryIndexes: [
                {
                  IndexName: failures.name,
                  KeySchema: key(failures.partitionKey, failures.sortKey),
                  Projection: { ProjectionType: 'ALL' },
                },
              ],
            }
          : {}),
      }),
    );
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 30, minDelay: 1 }, { TableName: name });
    for (const Item of items) await dynamodb.send(new PutItemCommand({ TableName: name, Item }));
  }
  /** Starts local mode's bootstrap over `name` as the attempts table; returns what it told. */
  async function bootstrapOver(name: string): Promise<RebuildEvent[]> {
    const target = {
      region: process.env.AWS_REGION!,
      endpoints: { sqs: process.env.AWS_ENDPOINT_URL_SQS!, dynamodb: process.env.AWS_ENDPOINT_URL_DYNAMODB! },
    };
    const told: RebuildEvent[] = [];
    await bootstrapResources(target as Parameters<typeof bootstrapResources>[0], {
      names: { ...DEFAULT_RESOURCE_NAMES, attemptsTable: name },
      onRebuild: (e) => told.push(e),
    });
    return told;
  }
  /** The table has the new indexes, every item, newest first by time, and no copy is left. */
  async function expectRebuilt(name: string): Promise<void> {
    const table = await describe_(name);
    expect(table.GlobalSecondaryIndexes!.map((g) => g.IndexName).sort()).toEqual(
      [failures.name, ATTEMPTS_TABLE.byTimeIndex.name].sort(),
    );
    const newest = await dynamodb.send(
      new QueryCommand({
        TableName: name,
        IndexName: ATTEMPTS_TABLE.byTimeIndex.name,
        KeyConditionExpression: 'connectionId = :c',
        ExpressionAttributeValues: { ':c': { S: 'con_old' } },
        ScanIndexForward: false,
      }),
    );
    expect(newest.Items!.map((i) => i.sk!.S)).toEqual(oldItems.map((i) => i.sk.S).reverse());
    await expect(describe_(rebuildCopyOf(name))).rejects.toThrow();
  }

  it('rebuilds a persisted attempts table of an older version with the new index, keeping its items', async () => {
    const name = uniqueName('attempts-old');
    await olderTable(name, oldItems);
    // The user is told before the rebuild and after it, with the items kept; only this table.
    expect(await bootstrapOver(name)).toEqual([
      { table: name, step: 'started' },
      { table: name, step: 'done', items: 30 },
    ]);
    await expectRebuilt(name);
    await dynamodb.send(new DeleteTableCommand({ TableName: name }));
  });

  it('finishes a rebuild cut short after the table was deleted, from the copy it kept', async () => {
    const name = uniqueName('attempts-cut');
    // As a start left it when stopped between deleting the table and writing it back.
    await olderTable(rebuildCopyOf(name), oldItems, false);
    expect(await bootstrapOver(name)).toEqual([{ table: name, step: 'finished-interrupted', items: 30 }]);
    await expectRebuilt(name);
    await dynamodb.send(new DeleteTableCommand({ TableName: name }));
  });

  it('finishes a rebuild cut short while copying, then rebuilds the table it left intact', async () => {
    const name = uniqueName('attempts-copying');
    await olderTable(name, oldItems);
    await olderTable(rebuildCopyOf(name), oldItems.slice(0, 10), false);
    expect(await bootstrapOver(name)).toEqual([
      { table: name, step: 'finished-interrupted', items: 10 },
      { table: name, step: 'started' },
      { table: name, step: 'done', items: 30 },
    ]);
    await expectRebuilt(name);
    await dynamodb.send(new DeleteTableCommand({ TableName: name }));
  });
});

describe('local event source mapping (runner)', () => {
  /** A queue whose failed records come back after 1 s. */
  const fastQueue = (label: string) => createQueue(sqs, uniqueName(label), { VisibilityTimeout: '1' });
  const sendAll = (url: string, bodies: string[]) =>
    sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: bodies.map((body, i) => ({
          Id: `m${i}`,
          MessageBody: body,
          MessageAttributes: {
            kind: { DataType: 'String', StringValue: 'test' },
            raw: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]) },
          },
        })),
      }),
    );

  it('hands Lambda-shaped records and a counting-down context to the handler', async () => {
    const queue = await fastQueue('shape');
    await sendAll(queue.url, ['{"hello":"world"}']);
    const seen: { record: SQSRecord; remaining: number; context: Context }[] = [];
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 5_000,
      waitTimeSeconds: 1,
      logger: silent,
      handler: async (event: SQSEvent, context: Context) => {
        seen.push(
          ...event.Records.map((record) => ({
            record,
            remaining: context.getRemainingTimeInMillis(),
            context,
          })),
        );
      },
    });
    try {
      await waitFor('the record', () => seen.length > 0);
    } finally {
      await runner.stop();
    }
    const { record, remaining, context } = seen[0]!;
    expect(record).toMatchObject({
      body: '{"hello":"world"}',
      md5OfBody: createHash('md5').update('{"hello":"world"}').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: process.env.AWS_REGION,
      messageAttributes: {
        kind: { stringValue: 'test', stringListValues: [], binaryListValues: [], dataType: 'String' },
        raw: { binaryValue: Buffer.from([1, 2, 3]).toString('base64'), dataType: 'Binary' },
      },
    });
    expect(record.messageId).toEqual(expect.any(String));
    expect(record.receiptHandle).toEqual(expect.any(String));
    expect(record.attributes).toMatchObject({
      ApproximateReceiveCount: '1',
      SentTimestamp: expect.stringMatching(/^\d+$/),
      SenderId: expect.any(String),
      ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
    });
    expect(remaining).toBeGreaterThan(4_000);
    expect(remaining).toBeLessThanOrEqual(5_000);
    expect(context.invokedFunctionArn).toMatch(/^arn:aws:lambda:/);
  });

  it('deletes the records that succeeded and redelivers the one in batchItemFailures after the visibility timeout', async () => {
    const queue = await fastQueue('partial');
    await sendAll(queue.url, ['a', 'b', 'c']);
    const deliveries: { body: string; receiveCount: string }[] = [];
    const reports: BatchReport[] = [];
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      functionTimeoutMs: 1_000,
      waitTimeSeconds: 1,
      logger: silent,
      onBatch: (report) => reports.push(report),
      handler: async (event): Promise<SQSBatchResponse> => {
        const failures = [];
        for (const record of event.Records) {
          deliveries.push({ body: record.body, receiveCount: record.attributes.ApproximateReceiveCount });
          if (record.body === 'b' && record.attributes.ApproximateReceiveCount === '1') {
            failures.push({ itemIdentifier: record.messageId });
          }
        }
        return { batchItemFailures: failures };
      },
    });
    try {
      await waitFor('the failed record to come back', () =>
        deliveries.some((d) => d.body === 'b' && d.receiveCount === '2'),
      );
      await waitFor('the queue to drain', async () => (await messagesLeft(sqs, queue.url)) === 0);
    } finally {
      await runner.stop();
    }
    expect(reports[0]).toMatchObject({ outcome: 'partial', failed: [expect.any(String)] });
    expect(reports[0]!.messageIds).toHaveLength(3);
    expect(deliveries.map((d) => `${d.body}${d.receiveCount}`).sort()).toEqual(['a1', 'b1', 'b2', 'c1']);
  });

  it('leaves the whole batch on the queue when the handler throws', async () => {
    const queue = await fastQueue('throws');
    await sendAll(queue.url, ['x', 'y']);
    const deliveries: string[] = [];
    const reports: BatchReport[] = [];
    let calls = 0;
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 1_000,
      waitTimeSeconds: 1,
      logger: silent,
      onBatch: (report) => reports.push(report),
      handler: async (event) => {
        calls++;
        deliveries.push(...event.Records.map((r) => `${r.body}${r.attributes.ApproximateReceiveCount}`));
        if (calls === 1) throw new Error('DynamoDB unavailable');
      },
    });
    try {
      await waitFor('both records to come back', () => deliveries.length >= 4);
      await waitFor('the queue to drain', async () => (await messagesLeft(sqs, queue.url)) === 0);
    } finally {
      await runner.stop();
    }
    expect(reports[0]).toMatchObject({
      outcome: 'error',
      failed: expect.arrayContaining(reports[0]!.messageIds),
    });
    expect(deliveries.sort()).toEqual(['x1', 'x2', 'y1', 'y2']);
  });

  it('leaves the whole batch on the queue when the handler outlives the function timeout', async () => {
    const queue = await fastQueue('timeout');
    await sendAll(queue.url, ['slow']);
    const reports: BatchReport[] = [];
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 200,
      waitTimeSeconds: 1,
      logger: silent,
      onBatch: (report) => reports.push(report),
      handler: async (event) => {
        if (event.Records[0]!.attributes.ApproximateReceiveCount === '1') {
          await new Promise((resolve) => setTimeout(resolve, 600));
        }
      },
    });
    try {
      await waitFor('a successful second attempt', () => reports.some((r) => r.outcome === 'ok'));
    } finally {
      await runner.stop();
    }
    expect(reports.map((r) => r.outcome)).toEqual(['timeout', 'ok']);
    expect(await messagesLeft(sqs, queue.url)).toBe(0);
  });

  it('fails the whole batch when batchItemFailures names a record that is not in it', async () => {
    const queue = await fastQueue('unknown-id');
    await sendAll(queue.url, ['p', 'q']);
    const reports: BatchReport[] = [];
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 1_000,
      waitTimeSeconds: 1,
      logger: silent,
      onBatch: (report) => reports.push(report),
      handler: async (event) =>
        event.Records[0]!.attributes.ApproximateReceiveCount === '1'
          ? { batchItemFailures: [{ itemIdentifier: 'not-a-message-id' }] }
          : undefined,
    });
    try {
      await waitFor('a successful second attempt', () => reports.some((r) => r.outcome === 'ok'));
    } finally {
      await runner.stop();
    }
    expect(reports[0]).toMatchObject({ outcome: 'error' });
    expect(reports[0]!.failed).toHaveLength(2);
  });

  it('reports idle once every record is handled and the queue is empty', async () => {
    const queue = await fastQueue('idle');
    await sendAll(queue.url, ['1', '2', '3']);
    const handled: string[] = [];
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 1_000,
      batchSize: 2,
      concurrency: 2,
      waitTimeSeconds: 1,
      logger: silent,
      handler: async (event) => {
        handled.push(...event.Records.map((r) => r.body));
      },
    });
    try {
      await withTimeout('the runner to go idle', runner.idle());
    } finally {
      await runner.stop();
    }
    expect(handled.sort()).toEqual(['1', '2', '3']);
    expect(await messagesLeft(sqs, queue.url)).toBe(0);
  });

  it('gathers up to 100 records into one batch within a batching window, and refuses more than 10 without one', async () => {
    // Visible again only after the window: a record is never gathered twice.
    const queue = await createQueue(sqs, uniqueName('window'), { VisibilityTimeout: '30' });
    // 35 messages, sent as four SendMessageBatch calls: a window of 1 s takes them as one batch.
    for (let i = 0; i < 35; i += 10)
      await sendAll(
        queue.url,
        Array.from({ length: Math.min(10, 35 - i) }, (_, j) => `w${i + j}`),
      );
    const sizes: number[] = [];
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 5_000,
      batchSize: 100,
      maxBatchingWindowMs: 1_000,
      waitTimeSeconds: 1,
      logger: silent,
      handler: async (event) => {
        sizes.push(event.Records.length);
      },
    });
    try {
      await withTimeout('the runner to go idle', runner.idle());
    } finally {
      await runner.stop();
    }
    expect(sizes).toEqual([35]);
    expect(await messagesLeft(sqs, queue.url)).toBe(0);
    expect(() =>
      startRunner({
        sqs,
        queueUrl: queue.url,
        functionTimeoutMs: 1_000,
        batchSize: 100,
        handler: async () => {},
      }),
    ).toThrow(/batchSize must be 1 to 10 \(up to 100 with a batching window of at least 1 s\), got 100/);
  });

  it('finishes and settles the batch in flight before stop() resolves', async () => {
    const queue = await createQueue(sqs, uniqueName('stop'), { VisibilityTimeout: '30' });
    await sendAll(queue.url, ['one']);
    let started = false;
    let finished = false;
    const runner = startRunner({
      sqs,
      queueUrl: queue.url,
      functionTimeoutMs: 5_000,
      waitTimeSeconds: 1,
      logger: silent,
      handler: async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 300));
        finished = true;
      },
    });
    await waitFor('the handler to start', () => started);
    await runner.stop();
    expect(finished).toBe(true);
    // Deleted, not merely invisible for 30 s.
    expect(await messagesLeft(sqs, queue.url)).toBe(0);
  });
});

describe('local PKI', () => {
  /** Local mode's own set-up (default names: 127.0.0.1, localhost, ::1). */
  const testTls = () => {
    const pki = createLocalPki();
    return { ca: pki.caPem, cert: pki.certPem, key: pki.keyPem };
  };

  async function fetchWith(tls: { cert: string; key: string }, host: string, ca?: string) {
    const server = createServer({ cert: tls.cert, key: tls.key }, (_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const dispatcher = new Agent({ connect: ca ? { ca } : {} });
    try {
      const response = await request(`https://${host}:${port}/`, { dispatcher, headersTimeout: 5_000 });
      return { status: response.statusCode, body: await response.body.text() };
    } finally {
      await dispatcher.close();
      server.closeAllConnections();
      server.close();
    }
  }

  it('serves HTTPS that undici accepts when given the CA, for 127.0.0.1 and localhost', async () => {
    const tls = testTls();
    for (const host of ['127.0.0.1', 'localhost']) {
      await expect(fetchWith(tls, host, tls.ca)).resolves.toEqual({ status: 200, body: 'ok' });
    }
  });

  it('is refused by undici without the CA', async () => {
    const tls = testTls();
    const error = await fetchWith(tls, '127.0.0.1').then(
      () => undefined,
      (e: { code?: string; cause?: { code?: string } }) => e,
    );
    expect(error?.code ?? error?.cause?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('issues a one-day server certificate for the requested names and addresses, signed by its CA', () => {
    const pki = createLocalPki({ hosts: ['127.0.0.1', 'localhost', '::1', 'receiver.test'] });
    const ca = new X509Certificate(pki.caPem);
    const cert = new X509Certificate(pki.certPem);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('receiver.test')).toBe('receiver.test');
    expect(cert.checkHost('example.com')).toBeUndefined();
    const lifetime = Date.parse(cert.validTo) - Date.now();
    expect(lifetime).toBeGreaterThan(23 * 3_600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000);
  });
});
