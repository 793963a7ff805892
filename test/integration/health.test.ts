/**
 * Endpoint health end to end (docs/design.md §9), on the local pipeline with a real HTTPS receiver:
 * a receiver that is down turns its connection failing, then disabled; nothing is sent while
 * it is disabled and what arrives meanwhile is parked; once the receiver is back, enabling and
 * recovering delivers every parked delivery exactly once with its byte-identical body; a retry
 * of one works; and each transition is announced once on the events topic.
 */

import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ENV } from '../../lambdas/config';
import type { OperationalEvent } from '../../lambdas/core/parking';
import { WebhookManagement } from '../../lambdas/management';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { testPki } from '../support/pki';
import { type Receiver, respond, startReceiver } from '../support/receivers';
import { waitFor } from '../support/wait';

let receiver: Receiver;
let harness: Harness;
let management: WebhookManagement;
const events: OperationalEvent[] = [];

beforeAll(async () => {
  receiver = await startReceiver(respond(503, 'down for maintenance'));
  harness = await startHarness({
    ports: [receiver.port],
    attemptTimeoutMs: 2_000,
    failingAfter: 2,
    disableAfter: 3,
  });
  management = new WebhookManagement({
    resources: { ...harness.resources, headerPrefix: 'X-Service' },
    allowLoopback: true,
    allowedPorts: [443, receiver.port],
    ca: [testPki().caPem],
  });
});
afterAll(async () => {
  await harness.stop();
  await receiver.close();
});

/** Reads what the events topic delivered to the harness's subscribed queue so far. */
async function readEvents(): Promise<OperationalEvent[]> {
  const out = await harness.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: harness.resources.eventsQueueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
    }),
  );
  for (const m of out.Messages ?? []) {
    events.push(JSON.parse(m.Body!) as OperationalEvent);
    await harness.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: harness.resources.eventsQueueUrl,
        ReceiptHandle: m.ReceiptHandle,
      }),
    );
  }
  return events;
}

const deliveryOf = (r: { headers: Record<string, unknown> }) => String(r.headers['x-service-delivery']);

describe('a connection through failing → disabled → recovered', () => {
  it('parks, announces, stops sending, and recovers every parked delivery exactly once', async () => {
    const app = id('app');
    const con = await harness.createConnection({ applicationId: app, url: receiver.url, name: 'Flaky CRM' });

    // Down: three events, each exhausts its 4 attempts; failing after 2, disabled after 3.
    for (let i = 0; i < 3; i++) await harness.publish(userIdentified(app));
    await waitFor(
      '3 exhausted deliveries parked',
      async () => (await harness.parkedOf(con.connectionId)).length === 3,
      {
        timeoutMs: 40_000,
        intervalMs: 250,
      },
    );
    expect(receiver.requests).toHaveLength(12);
    const health = await waitFor(
      'the connection disabled',
      async () => {
        const c = await management.getConnection(con.connectionId);
        return c.health.state === 'disabled' ? c : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(health).toMatchObject({ enabled: false, health: { consecutiveFailures: 3 } });
    await waitFor('failing and disabled announced', async () => (await readEvents()).length >= 2, {
      timeoutMs: 10_000,
    });

    // Disabled: new events are parked as connection_disabled and never sent.
    const sentBefore = receiver.requests.length;
    for (let i = 0; i < 2; i++) await harness.publish(userIdentified(app));
    const parked = await waitFor(
      '2 more deliveries parked as connection_disabled',
      async () => {
        const all = await harness.parkedOf(con.connectionId);
        return all.filter((p) => p.reason === 'connection_disabled').length === 2 ? all : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(receiver.requests).toHaveLength(sentBefore);
    expect(parked).toHaveLength(5);
    const firstBodies = new Map(
      receiver.requests
        .filter((r) => r.headers['x-service-attempt'] === '1')
        .map((r) => [deliveryOf(r), r.body]),
    );

    // Back: the receiver answers 2xx; enable (recovered), retry one, recover the rest.
    receiver.behave(respond(200));
    const enabled = await management.updateConnection(con.connectionId, { enabled: true });
    expect(enabled.health).toEqual({
      state: 'healthy',
      consecutiveFailures: 0,
      lastFailureAt: expect.any(String),
    });
    const one = parked.find((p) => p.reason === 'exhausted')!;
    expect(await management.retryDelivery(one.deliveryId, { applicationId: app })).toEqual({
      requeued: true,
      connectionId: con.connectionId,
    });
    const result = await management.recoverConnection(con.connectionId, { since: '1h', ratePerSecond: 50 });
    expect(result).toEqual({ requeued: 4, remaining: 0 });
    await receiver.waitFor(sentBefore + 5, 20_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const recovered = receiver.requests.slice(sentBefore);
    expect(recovered).toHaveLength(5);
    expect(new Set(recovered.map(deliveryOf))).toEqual(new Set(parked.map((p) => p.deliveryId)));
    for (const request of recovered) {
      const item = parked.find((p) => p.deliveryId === deliveryOf(request))!;
      expect(request.body).toBe(item.body);
      if (item.reason === 'exhausted') {
        expect(request.body).toBe(firstBodies.get(item.deliveryId));
        expect(request.headers['x-service-attempt']).toBe('5');
      } else {
        expect(request.headers['x-service-attempt']).toBe('2');
      }
    }
    expect(await harness.parkedOf(con.connectionId)).toEqual([]);

    // Each transition announced once, with no secret.
    await waitFor('recovered announced', async () => (await readEvents()).length >= 3, { timeoutMs: 10_000 });
    await readEvents();
    expect(events.map((e) => e.type)).toEqual([
      'connection.failing',
      'connection.disabled',
      'connection.recovered',
    ]);
    expect(events[1]).toMatchObject({
      connectionId: con.connectionId,
      applicationId: app,
      connectionName: 'Flaky CRM',
    });
    expect(JSON.stringify(events)).not.toContain(con.secret);
    expect(process.env[ENV.eventsTopicArn]).toBeDefined();
  });
});
