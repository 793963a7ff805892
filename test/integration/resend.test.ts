/**
 * Resend end to end (docs/api.md "Resend"), on the local pipeline with a real HTTPS receiver: a
 * delivered delivery is sent again as attempt 2 of the same delivery, through the retry queue and
 * the dispatcher, with the same body bytes and a fresh, valid signature; its request (headers as
 * kept, the body once) is in the attempt log; a second Resend while the first has not arrived is
 * refused.
 */

import { verifyWebhook } from '../../lambdas/core/verify';
import { ConflictError, WebhookManagement } from '../../lambdas/management';
import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { testPki } from '../support/pki';
import { type Receiver, respond, startReceiver } from '../support/receivers';
import { waitFor } from '../support/wait';

let receiver: Receiver;
let slow: Receiver;
let harness: Harness;
let management: WebhookManagement;

beforeAll(async () => {
  // Attempt 2 (the Resend's) answers late: the second Resend below must meet it not yet logged,
  // however fast the dispatcher is.
  const ok = respond(200);
  receiver = await startReceiver((req, res, n) => {
    setTimeout(() => ok(req, res, n), n === 2 ? 2_000 : 0);
  });
  slow = await startReceiver((_req, res, n) => {
    // Attempts 1–4 fail, so the delivery is parked; attempt 5 (the recovery's) answers late.
    if (n <= 4) res.writeHead(503).end('down');
    else setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 1_500);
  });
  harness = await startHarness({ ports: [receiver.port, slow.port], attemptTimeoutMs: 3_000 });
  management = new WebhookManagement({
    resources: { ...harness.resources, headerPrefix: 'X-Service' },
    allowLoopback: true,
    allowedPorts: [443, receiver.port, slow.port],
    ca: [testPki().caPem],
  });
});
afterAll(async () => {
  await harness.stop();
  await receiver.close();
  await slow.close();
});

it('sends a delivered delivery again as its next attempt: same id and body, signed afresh, logged with its request', async () => {
  const app = id('app');
  const con = await harness.createConnection({ applicationId: app, url: receiver.url, name: 'Resend CRM' });
  await harness.publish(userIdentified(app));
  const [first] = await receiver.waitFor(1, 20_000);
  const deliveryId = String(first!.headers['x-service-delivery']);
  await waitFor(
    'attempt 1 logged',
    async () => (await management.attempts.ofDelivery(deliveryId)).length === 1,
    {
      timeoutMs: 10_000,
      intervalMs: 100,
    },
  );

  const queued = await management.resendDelivery(deliveryId, { applicationId: app });
  expect(queued).toEqual({ deliveryId, connectionId: con.connectionId, attempt: 2 });
  // A second Resend before attempt 2 is logged is refused, so no number is used twice.
  await expect(management.resendDelivery(deliveryId, { applicationId: app })).rejects.toBeInstanceOf(
    ConflictError,
  );

  const [, second] = await receiver.waitFor(2, 20_000);
  expect(second!.headers['x-service-delivery']).toBe(deliveryId);
  expect(second!.headers['x-service-attempt']).toBe('2');
  expect(second!.body).toBe(first!.body);
  expect(second!.headers['x-service-signature']).not.toBe(first!.headers['x-service-signature']);
  expect(() =>
    verifyWebhook({
      rawBody: second!.body,
      headers: second!.headers,
      secret: con.secret,
      prefix: 'X-Service',
    }),
  ).not.toThrow();

  await waitFor(
    'attempt 2 logged',
    async () => (await management.attempts.ofDelivery(deliveryId)).length === 2,
    {
      timeoutMs: 10_000,
      intervalMs: 100,
    },
  );
  const records = await management.attempts.ofDelivery(deliveryId);
  expect(records.map((r) => [r.attempt, r.outcome])).toEqual([
    [1, 'delivered'],
    [2, 'delivered'],
  ]);
  expect(records[0]!.body).toBe(first!.body);
  const signature = records[1]!.requestHeaders?.find((h) => h.name.toLowerCase() === 'x-service-signature');
  expect(signature?.value).toBe(second!.headers['x-service-signature']);
  expect(receiver.requests).toHaveLength(2);
});

it('refuses a Resend while a recovered delivery is on its way, so no attempt number is queued twice', async () => {
  const app = id('app');
  try {
    const con = await harness.createConnection({ applicationId: app, url: slow.url, name: 'Late CRM' });
    await harness.publish(userIdentified(app));
    await waitFor(
      'the delivery parked',
      async () => (await harness.parkedOf(con.connectionId)).length === 1,
      {
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
    const [parked] = await harness.parkedOf(con.connectionId);
    const deliveryId = parked!.deliveryId;

    await management.retryDelivery(deliveryId, { applicationId: app });
    // Attempt 5 is queued (and in flight, answered late); a Resend now must not queue 5 again.
    await expect(management.resendDelivery(deliveryId, { applicationId: app })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await waitFor(
      'attempt 5 logged',
      async () => (await management.attempts.ofDelivery(deliveryId)).length === 5,
      {
        timeoutMs: 15_000,
        intervalMs: 100,
      },
    );
    await new Promise((r) => setTimeout(r, 2_000));
    expect(slow.requests.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5']);
  } finally {
    slow.behave(respond(200));
  }
});
