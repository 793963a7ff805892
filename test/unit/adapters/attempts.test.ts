import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { itemSize, shardPartition } from '../../../lambdas/adapters/dynamodb/attempt-item';
import { DynamoAttempts } from '../../../lambdas/adapters/dynamodb/attempts';
import { documentClient } from '../../../lambdas/adapters/dynamodb/client';
import { deliveryShard } from '../../../lambdas/core/ids';
import type { AttemptRecord } from '../../../lambdas/core/types';

const doc = mockClient(DynamoDBDocumentClient);
const log = () =>
  new DynamoAttempts({
    tableName: 'attempts',
    client: documentClient(new DynamoDBClient({})),
    shards: async () => [{ count: 1, from: '1970-01-01T00:00:00.000Z' }],
  });

const delivered: AttemptRecord = {
  deliveryId: 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  attempt: 1,
  eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  connectionId: 'con_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  applicationId: 'app_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  userId: 'usr_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
  event: 'user.identified',
  method: 'POST',
  target: 'https://crm.example.com/webhooks/identify',
  requestedAt: '2026-11-21T15:00:00.000Z',
  durationMs: 87,
  outcome: 'delivered',
  statusCode: 200,
  responseSnippet: 'x'.repeat(1024),
  final: true,
  expiresAt: 1_766_329_200,
};

beforeEach(() => doc.reset());

describe('DynamoAttempts.append', () => {
  it('writes a success with a 1 KiB response as one write unit, keeping most of the snippet', async () => {
    doc.on(PutCommand).resolves({});
    await log().append(delivered);
    const { TableName, Item } = doc.commandCalls(PutCommand)[0]!.args[0].input;
    expect(TableName).toBe('attempts');
    expect(itemSize(Item!)).toBeLessThanOrEqual(1024);
    expect((Item!.responseSnippet as string).length).toBeGreaterThan(100);
    expect(Item!.sk).toBe(`${delivered.deliveryId}#0001`);
  });

  it('places a record by the shard steps it is given, without looking the connection up', async () => {
    doc.on(PutCommand).resolves({});
    const lookups: string[] = [];
    const attempts = new DynamoAttempts({
      tableName: 'attempts',
      client: documentClient(new DynamoDBClient({})),
      shards: async (id) => {
        lookups.push(id);
        return [{ count: 1, from: '1970-01-01T00:00:00.000Z' }];
      },
    });
    const many = [{ count: 64, from: '1970-01-01T00:00:00.000Z' }];
    await attempts.append(delivered, many);
    await attempts.append(delivered);
    const [given, looked] = doc.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    expect(given!.sk).toBe(looked!.sk);
    expect(given!.connectionId).toBe(
      shardPartition(delivered.connectionId, deliveryShard(delivered.deliveryId, 64)),
    );
    expect(looked!.connectionId).toBe(shardPartition(delivered.connectionId, 0));
    expect(given!.connectionId).not.toBe(looked!.connectionId);
    expect(lookups).toEqual([delivered.connectionId]);
  });

  it('writes a failed attempt whole, with its final-failure index keys', async () => {
    doc.on(PutCommand).resolves({});
    const failed = { ...delivered, outcome: 'http_error' as const, statusCode: 500 };
    await log().append(failed);
    const { Item } = doc.commandCalls(PutCommand)[0]!.args[0].input;
    expect(Item!.responseSnippet).toBe(failed.responseSnippet);
    expect(Item).toMatchObject({ failedOn: '2026-11-21#7', connectionId: delivered.connectionId });
  });
});
