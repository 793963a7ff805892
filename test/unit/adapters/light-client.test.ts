/**
 * The dispatcher's lighter DynamoDB calls (light-client.ts, wire-calls.ts) against a scripted
 * DynamoDB on loopback: signed as the SDK signs, the same outputs and named errors as the SDK's
 * document client for the same answers, and the SDK's retries (throttling and 5xx, never a
 * failed condition).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { documentClient } from '../../../lambdas/adapters/dynamodb/client';
import { lightDocumentClient } from '../../../lambdas/adapters/dynamodb/light-client';

type Answer = { status: number; body: Record<string, unknown> };
type Seen = { headers: IncomingHttpHeaders; body: Record<string, unknown> };

const credentials = { accessKeyId: 'AKIDLIGHTTEST', secretAccessKey: 'secret' };
const DDB = 'com.amazonaws.dynamodb.v20120810#';
let server: Server;
let endpoint: string;
let answers: Answer[] = [];
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') });
      const answer = answers.shift() ?? { status: 200, body: {} };
      res.writeHead(answer.status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': 'req-1',
      });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  answers = [];
  seen = [];
});

/** A DynamoDB client like the dispatcher's, its retries without waiting (3 attempts). */
const sdkClient = (config: { endpoint?: string } = { endpoint }) =>
  new DynamoDBClient({
    ...config,
    region: 'eu-west-1',
    credentials,
    retryStrategy: new ConfiguredRetryStrategy(3, () => 0),
  });
const light = () => lightDocumentClient(sdkClient());
const sdk = () => documentClient(sdkClient());

const conditionFailed: Answer = {
  status: 400,
  body: {
    __type: `${DDB}ConditionalCheckFailedException`,
    message: 'The conditional request failed',
    Item: { pk: { S: 'k' }, sendId: { S: 'snd_1' } },
  },
};
const put = new PutCommand({
  TableName: 'attempts',
  Item: { pk: 'k', sk: 's', n: 7, gone: undefined, tags: { a: true } },
  ConditionExpression: 'attribute_not_exists(#sk)',
  ExpressionAttributeNames: { '#sk': 'sk' },
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
});

async function failure(client: DynamoDBDocumentClient, command: PutCommand) {
  return client.send(command).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as Error & { Item?: unknown; $metadata: { attempts?: number } },
  );
}

describe('lightDocumentClient', () => {
  it('signs each call with SigV4 for the client region and sends the marshalled item', async () => {
    await light().send(put);
    const [{ headers, body }] = seen as [Seen];
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDLIGHTTEST\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=.*host.*x-amz-date.*x-amz-target/,
    );
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    // Not the SDK's command stack: that one adds its user agent.
    expect(headers['user-agent']).toBeUndefined();
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.PutItem');
    expect(headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(body.Item).toEqual({
      pk: { S: 'k' },
      sk: { S: 's' },
      n: { N: '7' },
      tags: { M: { a: { BOOL: true } } },
    });
    expect(body.ConditionExpression).toBe('attribute_not_exists(#sk)');
  });

  it('returns what the SDK document client returns for the same answer', async () => {
    const update = new UpdateCommand({
      TableName: 'windows',
      Key: { pk: 'w' },
      UpdateExpression: 'ADD #c :one',
      ExpressionAttributeNames: { '#c': 'count' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    });
    const answer = { status: 200, body: { Attributes: { pk: { S: 'w' }, count: { N: '3' } } } };
    answers = [answer, answer];
    const { $metadata: _l, ...lightOut } = await light().send(update);
    const { $metadata: _s, ...sdkOut } = await sdk().send(update);
    expect(lightOut).toEqual({ Attributes: { pk: 'w', count: 3 } });
    expect(lightOut).toEqual(sdkOut);
    expect(seen[0]!.body).toEqual(seen[1]!.body);
  });

  it('gets an item unmarshalled', async () => {
    answers = [{ status: 200, body: { Item: { pk: { S: 'k' }, n: { N: '2' } } } }];
    const out = await light().send(new GetCommand({ TableName: 'attempts', Key: { pk: 'k' } }));
    expect(out.Item).toEqual({ pk: 'k', n: 2 });
    expect(seen[0]!.body.Key).toEqual({ pk: { S: 'k' } });
  });

  it('carries binary values as base64 and returns them as bytes, as the SDK does', async () => {
    const bytes = new Uint8Array([1, 2, 250]);
    const answer = {
      status: 200,
      body: { Item: { pk: { S: 'k' }, body: { B: 'AQL6' }, l: { L: [{ B: 'AQL6' }] } } },
    };
    answers = [{ status: 200, body: {} }, answer, answer];
    const client = light();
    await client.send(new PutCommand({ TableName: 'attempts', Item: { pk: 'k', body: bytes } }));
    expect(seen[0]!.body.Item).toEqual({ pk: { S: 'k' }, body: { B: 'AQL6' } });
    const get = new GetCommand({ TableName: 'attempts', Key: { pk: 'k' } });
    const out = await client.send(get);
    expect(out.Item).toEqual({ pk: 'k', body: bytes, l: [bytes] });
    expect(out.Item).toEqual((await sdk().send(get)).Item);
  });

  it('marshalls the same after a command the SDK sent (its options are not shared)', async () => {
    const client = light();
    answers = [{ status: 200, body: { Items: [], Count: 0 } }];
    await client.send(
      new QueryCommand({
        TableName: 'attempts',
        KeyConditionExpression: 'pk = :k',
        ExpressionAttributeValues: { ':k': 'k' },
      }),
    );
    await client.send(put);
    expect(seen[1]!.body.Item).toEqual(expect.objectContaining({ pk: { S: 'k' } }));
  });

  it('throws the named ConditionalCheckFailedException with the old item, as the SDK does, without retrying', async () => {
    answers = [conditionFailed];
    const lightError = await failure(light(), put);
    expect(seen).toHaveLength(1);
    answers = [conditionFailed];
    const sdkError = await failure(sdk(), put);
    expect(lightError).toBeInstanceOf(ConditionalCheckFailedException);
    expect(lightError.name).toBe('ConditionalCheckFailedException');
    expect(lightError.message).toBe('The conditional request failed');
    expect(lightError.Item).toEqual({ pk: { S: 'k' }, sendId: { S: 'snd_1' } });
    expect(lightError.Item).toEqual(sdkError.Item);
    expect(lightError.$metadata.attempts).toBe(1);
  });

  it.each([
    ['ThrottlingException', 400],
    ['ProvisionedThroughputExceededException', 400],
    ['InternalServerError', 500],
    ['ServiceUnavailable', 503],
  ])('retries %s (HTTP %i) with the client retry strategy', async (name, status) => {
    answers = [{ status, body: { __type: `${DDB}${name}`, message: 'try again' } }];
    const out = await light().send(put);
    expect(seen).toHaveLength(2);
    expect(out.$metadata.attempts).toBe(2);
  });

  it('retries a 502 whose body is not JSON (a proxy page), by its status', async () => {
    answers = [{ status: 502, body: '<html>Bad Gateway</html>' as never }];
    const out = await light().send(put);
    expect(seen).toHaveLength(2);
    expect(out.$metadata.attempts).toBe(2);
  });

  it('gives up after the strategy attempts with the named error', async () => {
    const throttled = { status: 400, body: { __type: `${DDB}ThrottlingException`, message: 'slow down' } };
    answers = [throttled, throttled, throttled];
    const error = await failure(light(), put);
    expect(seen).toHaveLength(3);
    expect(error.name).toBe('ThrottlingException');
    expect(error.$metadata.attempts).toBe(3);
  });

  it('does not retry a client error such as a validation failure', async () => {
    answers = [{ status: 400, body: { __type: `${DDB}ValidationException`, message: 'bad key' } }];
    const error = await failure(light(), put);
    expect(seen).toHaveLength(1);
    expect(error.name).toBe('ValidationException');
    expect(error.message).toBe('bad key');
  });

  it('sends to AWS_ENDPOINT_URL_DYNAMODB, as the SDK resolves it (local mode)', async () => {
    const before = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    try {
      await lightDocumentClient(sdkClient({})).send(put);
    } finally {
      if (before === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = before;
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['x-amz-target']).toBe('DynamoDB_20120810.PutItem');
  });

  it('queries with the values marshalled and the items and last key unmarshalled, as the SDK does', async () => {
    const query = new QueryCommand({
      TableName: 'parked',
      KeyConditionExpression: 'pk = :k',
      ExpressionAttributeValues: { ':k': 'k' },
      ExclusiveStartKey: { pk: 'k', sk: 'a' },
    });
    const answer = {
      status: 200,
      body: {
        Items: [{ pk: { S: 'k' }, n: { N: '1' } }],
        Count: 1,
        LastEvaluatedKey: { pk: { S: 'k' }, sk: { S: 'b' } },
      },
    };
    answers = [answer, answer];
    const { $metadata: _l, ...lightOut } = await light().send(query);
    const { $metadata: _s, ...sdkOut } = await sdk().send(query);
    expect(lightOut).toEqual({
      Items: [{ pk: 'k', n: 1 }],
      Count: 1,
      LastEvaluatedKey: { pk: 'k', sk: 'b' },
    });
    expect(lightOut).toEqual(sdkOut);
    expect(seen[0]!.body).toEqual(seen[1]!.body);
    expect(seen[0]!.headers['user-agent']).toBeUndefined();
  });

  it('writes a batch with its items marshalled and returns the unprocessed ones unmarshalled, as the SDK does', async () => {
    const batch = new BatchWriteCommand({
      RequestItems: {
        attempts: [{ PutRequest: { Item: { pk: 'a', n: 1 } } }, { DeleteRequest: { Key: { pk: 'b' } } }],
      },
    });
    const answer = {
      status: 200,
      body: { UnprocessedItems: { attempts: [{ PutRequest: { Item: { pk: { S: 'a' }, n: { N: '1' } } } }] } },
    };
    answers = [answer, answer];
    const { $metadata: _l, ...lightOut } = await light().send(batch);
    const { $metadata: _s, ...sdkOut } = await sdk().send(batch);
    expect(lightOut).toEqual({
      UnprocessedItems: { attempts: [{ PutRequest: { Item: { pk: 'a', n: 1 } } }] },
    });
    expect(lightOut).toEqual(sdkOut);
    expect(seen[0]!.body).toEqual(seen[1]!.body);
    expect(seen[0]!.headers['x-amz-target']).toBe('DynamoDB_20120810.BatchWriteItem');
    expect(seen[0]!.headers['user-agent']).toBeUndefined();
  });

  it('leaves other commands, and the legacy parameters, to the SDK', async () => {
    answers = [{ status: 200, body: { Items: [{ pk: { S: 'k' } }], Count: 1 } }];
    const out = await light().send(new ScanCommand({ TableName: 'attempts' }));
    expect(out.Items).toEqual([{ pk: 'k' }]);
    await light().send(
      new PutCommand({ TableName: 'attempts', Item: { pk: 'k' }, Expected: { pk: { Exists: false } } }),
    );
    // Only the SDK's stack adds its user agent.
    expect(seen.map((s) => s.headers['user-agent'])).toEqual([
      expect.stringMatching(/aws-sdk-js/),
      expect.stringMatching(/aws-sdk-js/),
    ]);
  });
});
