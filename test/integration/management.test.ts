/** The management API against the emulators: connections, secrets, test send, attempt log, DLQ. */

import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV } from '../../lambdas/config';
import { NotFoundError, ValidationError, WebhookManagement } from '../../lambdas/management';
import { verifyWebhook } from '../../lambdas/receiver';
import { id } from '../support/fixtures';
import { testPki } from '../support/pki';
import { type Receiver, respond, startReceiver } from '../support/receivers';
import { resourcesFromEnv } from '../support/resources';

let receiver: Receiver;
let management: WebhookManagement;
const sqs = new SQSClient({});

beforeAll(async () => {
  receiver = await startReceiver();
  management = new WebhookManagement({
    resources: resourcesFromEnv(),
    allowLoopback: true,
    allowedPorts: [443, receiver.port],
    ca: [testPki().caPem],
  });
});
afterAll(async () => {
  await receiver.close();
  sqs.destroy();
});

function fieldOf(error: unknown): string | undefined {
  return error instanceof ValidationError ? error.field : undefined;
}

describe('WebhookManagement on the emulators', () => {
  it('creates a connection with a whsec_ secret of 32 random bytes, and lists it by application', async () => {
    const app = id('app');
    const con = await management.connections.create({ applicationId: app, name: 'CRM', url: receiver.url });
    expect(con).toMatchObject({
      applicationId: app,
      method: 'POST',
      enabled: true,
      type: 'webhook',
      headers: {},
    });
    const { secret } = await management.connections.showSecret(con.connectionId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect((await management.connections.list({ applicationId: app })).map((c) => c.connectionId)).toEqual([
      con.connectionId,
    ]);
  });

  it.each([
    [{ url: 'http://example.com/hooks' }, 'url'],
    [{ url: 'https://10.0.0.5/hooks' }, 'url'],
    [{ method: 'GET' }, 'method'],
    [{ name: '' }, 'name'],
    [{ headers: { 'X-Service-Signature': 'forged' } }, 'headers.X-Service-Signature'],
    [{ applicationId: 'acme' }, 'applicationId'],
  ])('refuses an invalid connection and names the field (%#)', async (override, field) => {
    const input = { applicationId: id('app'), name: 'x', url: receiver.url, ...override };
    const error = await management.connections.create(input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(fieldOf(error)).toBe(field);
  });

  it('rotates the secret at once: the connection points at the new version, and test sends sign with it', async () => {
    const con = await management.connections.create({
      applicationId: id('app'),
      name: 'R',
      url: receiver.url,
    });
    const before = await management.connections.showSecret(con.connectionId);
    const rotated = await management.connections.rotateSecret(con.connectionId, { switchAfter: 0 });
    expect(rotated.secret).not.toBe(before.secret);
    expect((await management.connections.get(con.connectionId)).secretVersion).toBe(rotated.secretVersion);
    expect((await management.connections.showSecret(con.connectionId)).secret).toBe(rotated.secret);
    receiver.behave(respond(200));
    const result = await management.sendTest(con.connectionId);
    expect(result).toMatchObject({
      outcome: 'delivered',
      test: true,
      statusCode: 200,
      attempt: 1,
      final: true,
    });
    const req = receiver.requests.at(-1)!;
    expect(() =>
      verifyWebhook({ rawBody: req.body, headers: req.headers, secret: rotated.secret }),
    ).not.toThrow();
    expect(JSON.parse(req.body).user.metadata.test).toBe(true);
    const logged = await management.attempts.ofDelivery(result.deliveryId);
    expect(logged).toEqual([expect.objectContaining({ test: true, outcome: 'delivered' })]);
  });

  it('reports a failing test send without retrying it', async () => {
    const con = await management.connections.create({
      applicationId: id('app'),
      name: 'F',
      url: receiver.url,
    });
    receiver.behave(respond(500, 'nope'));
    const before = receiver.requests.length;
    const result = await management.sendTest(con.connectionId);
    expect(result).toMatchObject({
      outcome: 'http_error',
      statusCode: 500,
      responseSnippet: 'nope',
      final: true,
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests.length).toBe(before + 1);
    receiver.behave(respond(200));
  });

  it('updates, disables and deletes a connection; delete removes the secret', async () => {
    const con = await management.connections.create({
      applicationId: id('app'),
      name: 'U',
      url: receiver.url,
    });
    const updated = await management.connections.update(con.connectionId, {
      method: 'PUT',
      headers: { Authorization: 'Bearer k' },
    });
    expect(updated).toMatchObject({ method: 'PUT', headers: { Authorization: 'Bearer k' } });
    expect((await management.connections.setEnabled(con.connectionId, false)).enabled).toBe(false);
    await management.connections.delete(con.connectionId);
    await expect(management.connections.get(con.connectionId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: con.secretArn })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('lists dead letters with their reasons and redrives a delivery with a fresh chain', async () => {
    // A redrive sends back only a delivery whose connection still exists.
    const { connectionId } = await management.connections.create({
      applicationId: id('app'),
      name: 'DLQ',
      url: 'https://dlq.example.com/hooks',
    });
    const deliveryId = `dlv_01M7ZCPA0BT9YAB0E0YBENXGDG_${connectionId}`;
    const delivery = {
      v: 1,
      type: 'delivery',
      deliveryId,
      eventId: id('evt'),
      connectionId,
      attempt: 4,
      chainStart: 1,
      body: '{}',
      firstAttemptAt: new Date().toISOString(),
    };
    const letter = {
      v: 1,
      type: 'dead-letter',
      reason: 'exhausted',
      error: 'receiver answered HTTP 503',
      failedAt: new Date().toISOString(),
      delivery,
    };
    const dlq = process.env[ENV.dlqUrl]!;
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: JSON.stringify(letter) }));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: dlq,
        MessageBody: JSON.stringify({
          v: 1,
          type: 'dead-letter',
          reason: 'invalid_message',
          error: 'bad',
          failedAt: 'x',
          source: '{oops',
        }),
      }),
    );
    const listed = await management.deadLetters.list();
    expect(listed.find((e) => e.deliveryId === deliveryId)).toMatchObject({
      reason: 'exhausted',
      attempt: 4,
      redrivable: true,
    });
    expect(listed.find((e) => e.reason === 'invalid_message')).toMatchObject({ redrivable: false });
    const progress: number[] = [];
    const result = await management.deadLetters.redrive({
      deliveryIds: [deliveryId, 'dlv_missing'],
      onProgress: (n) => progress.push(n),
    });
    expect(result.redriven.map((e) => e.deliveryId)).toEqual([deliveryId]);
    expect(result.notFound).toEqual(['dlv_missing']);
    expect(progress).toEqual([1]);
    const after = await management.deadLetters.list();
    expect(after.some((e) => e.deliveryId === deliveryId)).toBe(false);
    expect(after.some((e) => e.reason === 'invalid_message')).toBe(true);
  });
});
