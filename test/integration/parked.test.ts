/**
 * Parked deliveries and health through the management library, on the emulators: listing,
 * recover (oldest first, new chains, byte-identical bodies, never twice), retry, scoping, and
 * health written with conditional writes by concurrent writers.
 */

import { SQSClient } from '@aws-sdk/client-sqs';
import { documentClient } from '../../lambdas/adapters/dynamodb/client';
import { DynamoConnections } from '../../lambdas/adapters/dynamodb/connections';
import { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { ENV } from '../../lambdas/config';
import { applyHealthEvent } from '../../lambdas/core/health-tracker';
import { deliveryIdFor } from '../../lambdas/core/ids';
import type { ParkedItem } from '../../lambdas/core/parking';
import type { DeliveryMessage } from '../../lambdas/core/types';
import { NotFoundError, WebhookManagement } from '../../lambdas/management';
import { createQueue, uniqueName } from '../support/emulators';
import { id } from '../support/fixtures';
import { takeMessages } from '../support/queries';
import { resourcesFromEnv } from '../support/resources';

const sqs = new SQSClient({});
const doc = documentClient();
let management: WebhookManagement;
let parkedStore: DynamoParked;
let retryQueueUrl: string;

beforeAll(async () => {
  // A queue of its own for "retry": no dispatcher of another test file consumes it.
  retryQueueUrl = (await createQueue(sqs, uniqueName('parked-retry'))).url;
  management = new WebhookManagement({
    resources: resourcesFromEnv({ retryQueueUrl, eventsTopicArn: process.env[ENV.eventsTopicArn]! }),
    allowLoopback: true,
    allowedPorts: [443, 8443],
  });
  parkedStore = new DynamoParked({ tableName: process.env[ENV.parkedTable]!, client: doc });
});
afterAll(() => sqs.destroy());

/** Parks `n` deliveries of a connection, events one second apart, returns them oldest first. */
async function park(
  connectionId: string,
  applicationId: string,
  n: number,
  startMs = Date.now() - 3_600_000,
) {
  const items: ParkedItem[] = [];
  for (let i = 0; i < n; i++) {
    const eventId = id('evt');
    const item: ParkedItem = {
      deliveryId: deliveryIdFor(eventId, connectionId, startMs + i * 1000),
      connectionId,
      applicationId,
      eventId,
      reason: i % 2 ? 'connection_disabled' : 'exhausted',
      lastError: 'receiver answered HTTP 503',
      lastOutcome: 'http_error',
      lastStatusCode: 503,
      attempts: i % 2 ? 0 : 4,
      parkedAt: new Date(startMs + i * 1000 + 500).toISOString(),
      // Bytes a re-serialisation would change: key order, escapes, spacing.
      body: `{"event":"user.identified","n":${i},"z":"\\u00e9","a" :  1}`,
      firstAttemptAt: new Date(startMs + i * 1000).toISOString(),
      expiresAt: Math.floor(Date.now() / 1000) + 86_400,
    };
    await parkedStore.park(item);
    items.push(item);
  }
  return items;
}

const drain = (queueUrl: string, expected: number) => takeMessages<DeliveryMessage>(sqs, queueUrl, expected);

async function newConnection(applicationId = id('app')) {
  return management.connections.create({
    applicationId,
    name: 'Parked CRM',
    url: 'https://localhost:8443/hooks',
  });
}

describe('parked deliveries through the management library', () => {
  it('lists a connection’s parked deliveries newest first, without bodies, filtered by since and paged', async () => {
    const con = await newConnection();
    const items = await park(con.connectionId, con.applicationId, 5);
    const page = await management.listParked(con.connectionId, { limit: 3 });
    expect(page.data.map((d) => d.deliveryId)).toEqual(
      items
        .slice(2)
        .reverse()
        .map((i) => i.deliveryId),
    );
    expect(JSON.stringify(page)).not.toContain('user.identified');
    expect(page.data[0]).toMatchObject({ reason: 'exhausted', attempts: 4, lastStatusCode: 503 });
    const rest = await management.listParked(con.connectionId, { limit: 3, cursor: page.nextCursor });
    expect(rest.data.map((d) => d.deliveryId)).toEqual(
      items
        .slice(0, 2)
        .reverse()
        .map((i) => i.deliveryId),
    );
    const since = new Date(Date.parse(items[3]!.firstAttemptAt)).toISOString();
    const recent = await management.listParked(con.connectionId, { since });
    expect(recent.data.map((d) => d.deliveryId)).toEqual([items[4]!.deliveryId, items[3]!.deliveryId]);
    const app = await management.listApplicationParked(con.applicationId);
    expect(app.data).toHaveLength(5);
    expect(JSON.stringify(app)).not.toContain('user.identified');
  });

  it('recovers oldest first as new chains with byte-identical bodies, and never re-queues one twice', async () => {
    const con = await newConnection();
    const items = await park(con.connectionId, con.applicationId, 12);
    const result = await management.recoverConnection(con.connectionId, { ratePerSecond: 100 });
    expect(result).toEqual({ requeued: 12, remaining: 0 });
    const sent = await drain(retryQueueUrl, 12);
    expect(sent.map((m) => m.deliveryId)).toEqual(items.map((i) => i.deliveryId));
    sent.forEach((message, i) => {
      expect(message.body).toBe(items[i]!.body);
      expect(message.attempt).toBe(items[i]!.attempts + 1);
      expect(message.chainStart).toBe(items[i]!.attempts + 1);
    });
    expect(await management.recoverConnection(con.connectionId)).toEqual({ requeued: 0, remaining: 0 });
    expect((await management.listParked(con.connectionId)).data).toEqual([]);
  });

  it('recovers only what is since the given time, and leaves a delivery another recovery holds', async () => {
    const con = await newConnection();
    const items = await park(con.connectionId, con.applicationId, 4);
    // Another recovery holds the newest one (its lease runs).
    await parkedStore.claim(con.connectionId, items[3]!.deliveryId, Date.now(), Date.now() + 60_000);
    const since = new Date(Date.parse(items[2]!.firstAttemptAt)).toISOString();
    expect(await management.recoverConnection(con.connectionId, { since })).toEqual({
      requeued: 1,
      remaining: 1,
    });
    const sent = await drain(retryQueueUrl, 1);
    expect(sent.map((m) => m.deliveryId)).toEqual([items[2]!.deliveryId]);
    expect((await management.listParked(con.connectionId)).data).toHaveLength(3);
  });

  it('takes over a delivery whose claim expired (a recovery that died between claim and send)', async () => {
    const con = await newConnection();
    const [item] = await park(con.connectionId, con.applicationId, 1);
    // A recovery claimed it and died before sending: its lease has run out.
    await parkedStore.claim(
      con.connectionId,
      item!.deliveryId,
      Date.now() - 10 * 60_000,
      Date.now() - 5 * 60_000,
    );
    expect(await management.recoverConnection(con.connectionId)).toEqual({ requeued: 1, remaining: 0 });
    const [message] = await drain(retryQueueUrl, 1);
    expect(message).toMatchObject({ deliveryId: item!.deliveryId, body: item!.body });
  });

  it('retries one parked delivery, and says NotFound for one that is not parked or not the caller’s', async () => {
    const con = await newConnection();
    const [item] = await park(con.connectionId, con.applicationId, 1);
    await expect(
      management.retryDelivery(item!.deliveryId, { applicationId: 'app_other' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(await management.retryDelivery(item!.deliveryId, { applicationId: con.applicationId })).toEqual({
      requeued: true,
      connectionId: con.connectionId,
    });
    const [message] = await drain(retryQueueUrl, 1);
    expect(message).toMatchObject({
      deliveryId: item!.deliveryId,
      attempt: 5,
      chainStart: 5,
      body: item!.body,
    });
    await expect(management.retryDelivery(item!.deliveryId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('finds one parked delivery without its body, undefined once retried, NotFound once its connection is gone', async () => {
    const con = await newConnection();
    const [item] = await park(con.connectionId, con.applicationId, 1);
    const { body: _body, firstAttemptAt: _first, expiresAt: _expires, ...listed } = item!;
    expect(await management.parked.get(item!.deliveryId)).toEqual(listed);
    await expect(
      management.parked.get(item!.deliveryId, { applicationId: 'app_other' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await management.retryDelivery(item!.deliveryId);
    await drain(retryQueueUrl, 1);
    expect(await management.parked.get(item!.deliveryId)).toBeUndefined();
    await management.connections.delete(con.connectionId);
    await expect(management.parked.get(item!.deliveryId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('scopes listing and recovery to the caller’s application: another application’s connection is 404', async () => {
    const con = await newConnection();
    await expect(
      management.listParked(con.connectionId, { applicationId: 'app_other' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      management.recoverConnection(con.connectionId, { applicationId: 'app_other' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      management.getConnection(con.connectionId, { applicationId: 'app_other' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('health on the connections table', () => {
  it('counts every one of 8 concurrent failures and announces failing once (conditional writes)', async () => {
    const con = await newConnection();
    const store = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]!, client: doc })
      .health;
    const at = new Date().toISOString();
    const steps = await Promise.all(
      Array.from({ length: 8 }, () =>
        applyHealthEvent(store, con.connectionId, { kind: 'exhausted', at }, { failingAfter: 3 }),
      ),
    );
    expect(steps.flatMap((s) => s.transitions)).toEqual(['connection.failing']);
    const read = await management.getConnection(con.connectionId);
    expect(read.health).toMatchObject({ state: 'failing', consecutiveFailures: 8, failingSince: at });
  });

  it('disabling sets enabled false; enabling resets health to healthy and keeps other fields', async () => {
    const con = await newConnection();
    const store = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]!, client: doc })
      .health;
    const at = new Date().toISOString();
    for (let i = 0; i < 2; i++) {
      await applyHealthEvent(
        store,
        con.connectionId,
        { kind: 'exhausted', at },
        { failingAfter: 1, disableAfter: 2 },
      );
    }
    const disabled = await management.getConnection(con.connectionId);
    expect(disabled).toMatchObject({ enabled: false, health: { state: 'disabled', consecutiveFailures: 2 } });
    // A rename does not touch health.
    await management.updateConnection(con.connectionId, { name: 'Renamed' });
    expect((await management.getConnection(con.connectionId)).health.state).toBe('disabled');
    const enabled = await management.updateConnection(con.connectionId, { enabled: true });
    expect(enabled).toMatchObject({
      enabled: true,
      name: 'Renamed',
      health: { state: 'healthy', consecutiveFailures: 0 },
    });
    expect((await management.getConnection(con.connectionId)).health).toEqual({
      state: 'healthy',
      consecutiveFailures: 0,
      lastFailureAt: at,
    });
  });

  it('writes nothing for a deleted connection', async () => {
    const con = await newConnection();
    await management.connections.delete(con.connectionId);
    const store = new DynamoConnections({ tableName: process.env[ENV.connectionsTable]!, client: doc })
      .health;
    const step = await applyHealthEvent(
      store,
      con.connectionId,
      { kind: 'exhausted', at: new Date().toISOString() },
      { failingAfter: 1 },
    );
    expect(step.transitions).toEqual([]);
    expect(await store.read(con.connectionId)).toBeUndefined();
  });
});
