/**
 * `secretStore: 'kms'` end to end on the emulators: connections created by the management
 * library keep their secret sealed with the local KMS key in their item (no Secrets Manager
 * secret), deliveries are signed with it, Show Secret and rotation work with the old secret
 * still valid for cached dispatchers, and a ciphertext copied into another connection's item
 * does not decrypt: that delivery is handed back with a named error (and reaches the DLQ after
 * maxReceiveCount, never sent), the rest of the batch goes out.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { KmsSigningSecrets, type SealedConnection } from '../../lambdas/adapters/secrets/kms-sealed';
import { ENV } from '../../lambdas/config';
import type { Log } from '../../lambdas/core/ports';
import { WebhookManagement } from '../../lambdas/management';
import { verifyWebhook } from '../../lambdas/receiver';
import { localKeyArn } from '../../local/kms-store';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { testPki } from '../support/pki';
import { type Receiver, startReceiver } from '../support/receivers';

const keyArn = localKeyArn(process.env.AWS_REGION!);
const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
const log: Log = {
  debug: () => {},
  info: () => {},
  warn: (message, fields) => lines.push({ message, fields }),
  error: (message, fields) => lines.push({ message, fields }),
};
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
let receiverA: Receiver;
let receiverB: Receiver;
let harness: Harness;
let management: WebhookManagement;

beforeAll(async () => {
  // The dispatcher reads its store from the environment, as the construct sets it.
  process.env[ENV.secretStore] = 'kms';
  process.env[ENV.secretKeyArn] = keyArn;
  receiverA = await startReceiver();
  receiverB = await startReceiver();
  // A short visibility timeout, so the refused record's redeliveries reach the DLQ within the test.
  harness = await startHarness({
    ports: [receiverA.port, receiverB.port],
    attemptTimeoutMs: 1_000,
    visibilityTimeoutSeconds: 2,
    log,
  });
  management = new WebhookManagement({
    resources: { ...harness.resources, secretStore: { kind: 'kms', keyArn } },
    allowLoopback: true,
    allowedPorts: [receiverA.port, receiverB.port],
    ca: [testPki().caPem],
  });
});

afterAll(async () => {
  await harness?.stop();
  await receiverA?.close();
  await receiverB?.close();
  doc.destroy();
});

async function itemOf(connectionId: string): Promise<SealedConnection> {
  const out = await doc.send(
    new GetCommand({
      TableName: harness.resources.connectionsTable,
      Key: { connectionId },
      ConsistentRead: true,
    }),
  );
  return out.Item as SealedConnection;
}

function verifies(secrets: string[], req: { headers: Record<string, unknown>; body: string }): boolean {
  try {
    verifyWebhook({ secret: secrets, headers: req.headers as Record<string, string>, rawBody: req.body });
    return true;
  } catch {
    return false;
  }
}

it('signs deliveries with a secret sealed in the connection item; Show Secret and rotation keep the overlap', async () => {
  const app = id('app');
  const con = await management.connections.create({ applicationId: app, name: 'CRM', url: receiverA.url });
  const item = await itemOf(con.connectionId);
  const { secret } = await management.connections.showSecret(con.connectionId);
  expect(secret).toMatch(/^whsec_/);
  expect(item).toMatchObject({ secretArn: keyArn, secretVersion: con.secretVersion });
  expect(item.secretCiphertext).toEqual(expect.any(String));
  expect(JSON.stringify(item)).not.toContain(secret);
  // Nothing in Secrets Manager: the item is the only place the secret is kept.
  const sm = new SecretsManagerClient({});
  await expect(
    sm.send(new GetSecretValueCommand({ SecretId: `${harness.resources.secretPrefix}${con.connectionId}` })),
  ).rejects.toBeInstanceOf(ResourceNotFoundException);
  sm.destroy();

  await harness.publish(userIdentified(app));
  const [first] = await receiverA.waitFor(1);
  expect(verifies([secret], first!)).toBe(true);

  // A rotation with a 2 s overlap: both secrets sealed in the item, the old one signing until the switch.
  const rotated = await management.connections.rotateSecret(con.connectionId, { switchAfter: 2 });
  expect(rotated.previousVersion).toBe(con.secretVersion);
  expect(rotated.secretVersion).not.toBe(con.secretVersion);
  const rotatedItem = (await itemOf(con.connectionId)) as SealedConnection & {
    nextSecretCiphertext?: string;
  };
  expect(rotatedItem).toMatchObject({
    secretCiphertext: item.secretCiphertext,
    nextSecretVersion: rotated.secretVersion,
  });
  expect(rotatedItem.nextSecretCiphertext).toEqual(expect.any(String));
  expect(JSON.stringify(rotatedItem)).not.toContain(rotated.secret);
  expect(await management.connections.showSecret(con.connectionId)).toEqual({
    secret,
    secretVersion: con.secretVersion,
    next: { secret: rotated.secret, secretVersion: rotated.secretVersion, switchAt: rotated.switchAt },
  });
  // A dispatcher whose cached connection is the old item still signs with the old secret.
  const cached = new KmsSigningSecrets({ keyId: keyArn, client: new KMSClient({}) });
  expect(await cached.current(item)).toBe(secret);
  await harness.publish(userIdentified(app));
  const [, second] = await receiverA.waitFor(2);
  expect(verifies([secret], second!)).toBe(true);
  expect(verifies([rotated.secret], second!)).toBe(false);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(rotated.switchAt) - Date.now()) + 50));
  await harness.publish(userIdentified(app));
  const [, , third] = await receiverA.waitFor(3);
  expect(verifies([rotated.secret], third!)).toBe(true);
  expect(verifies([secret], third!)).toBe(false);
  expect((await management.connections.showSecret(con.connectionId)).secret).toBe(rotated.secret);
});

it('refuses a ciphertext copied into another connection by name, and still delivers the rest of the batch', async () => {
  const app = id('app');
  const a = await management.connections.create({ applicationId: app, name: 'A', url: receiverA.url });
  const b = await management.connections.create({ applicationId: app, name: 'B', url: receiverB.url });
  const sealedA = await itemOf(a.connectionId);
  const { secret } = await management.connections.showSecret(a.connectionId);
  await doc.send(
    new UpdateCommand({
      TableName: harness.resources.connectionsTable,
      Key: { connectionId: b.connectionId },
      UpdateExpression: 'SET secretCiphertext = :c',
      ExpressionAttributeValues: { ':c': sealedA.secretCiphertext },
    }),
  );
  await expect(management.connections.showSecret(b.connectionId)).rejects.toMatchObject({
    name: 'SealedSecretError',
    problem: 'wrong_binding',
  });

  const before = receiverA.requests.length;
  lines.length = 0;
  await harness.publish(userIdentified(app));
  const received = await receiverA.waitFor(before + 1);
  expect(verifies([secret], received[before]!)).toBe(true);
  const deadline = Date.now() + 10_000;
  const refusal = () => lines.find((l) => JSON.stringify(l.fields ?? {}).includes('SealedSecretError'));
  while (!refusal() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const line = refusal();
  expect(line?.fields).toMatchObject({ connectionId: b.connectionId });
  expect(JSON.stringify(line)).toMatch(/copied from another item/);
  // Redelivered until maxReceiveCount, then SQS moves it to the DLQ: nothing is lost, nothing is sent.
  const [letter] = await harness.deadLetters(1, 60_000);
  expect(letter).toMatchObject({ type: 'delivery', connectionId: b.connectionId });
  expect(JSON.stringify(lines)).not.toContain(secret);
  expect(receiverB.requests).toHaveLength(0);
});
