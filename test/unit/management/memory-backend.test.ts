/**
 * The management library on a backend of memory ports (lambdas/management/ports.ts): it builds
 * nothing of its own, so the same calls that run on DynamoDB and SQS run here with no emulator.
 */

import { deliveryIdFor } from '../../../lambdas/core/ids';
import { parkedItemOf } from '../../../lambdas/core/parking';
import type { DeliveryMessage } from '../../../lambdas/core/types';
import { WebhookManagement } from '../../../lambdas/management';
import { MEMORY_RESOURCES, memoryBackend } from '../../support/memory/backend';

const APP = 'app_memory';
const BODY =
  '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_1","metadata":{}},"application":{"id":"app_memory","name":"Memory"}}';

function setup() {
  const parts = memoryBackend();
  const management = new WebhookManagement({ resources: MEMORY_RESOURCES, backend: parts.backend });
  return { ...parts, management };
}

it('creates a connection, shows and rotates its secret, and sends a test, all through the backend it is handed', async () => {
  const { management, connections, secrets, attempts } = setup();
  const created = await management.connections.create({
    applicationId: APP,
    name: 'CRM',
    url: 'https://crm.example.com/hooks',
  });
  expect(connections.items.get(created.connectionId)).toMatchObject({ name: 'CRM', applicationId: APP });
  const { secret } = await management.connections.showSecret(created.connectionId);
  expect(secret).toMatch(/^whsec_/);
  expect([...secrets.secrets.values()]).toEqual([secret]);
  const rotated = await management.connections.rotateSecret(created.connectionId);
  expect(rotated.secret).not.toBe(secret);
  // The new secret is shown at once and waits for its switch time; the old one signs until then.
  expect(await management.connections.showSecret(created.connectionId)).toMatchObject({
    secret,
    next: { secret: rotated.secret, switchAt: rotated.switchAt },
  });
  const record = await management.sendTest(created.connectionId);
  expect(record).toMatchObject({ outcome: 'delivered', test: true, connectionId: created.connectionId });
  expect(attempts.records).toEqual([record]);
});

it('recovers parked deliveries onto the retry queue it is handed, and redrives its dead letters', async () => {
  const { management, parked, retryQueue, deadLetters } = setup();
  const { connectionId } = await management.connections.create({
    applicationId: APP,
    name: 'CRM',
    url: 'https://crm.example.com/hooks',
  });
  const delivery: DeliveryMessage = {
    v: 1,
    type: 'delivery',
    deliveryId: deliveryIdFor('evt_memory_1', connectionId, Date.parse('2026-11-21T14:53:00.123Z')),
    eventId: 'evt_memory_1',
    connectionId,
    attempt: 4,
    chainStart: 1,
    body: BODY,
    firstAttemptAt: '2026-11-21T14:53:01.000Z',
  };
  await parked.park(
    parkedItemOf({
      delivery,
      applicationId: APP,
      reason: 'exhausted',
      attempts: 4,
      parkedAtMs: Date.now(),
      ttlDays: 30,
    }),
  );
  const result = await management.recoverConnection(connectionId, { ratePerSecond: 100 });
  expect(result).toMatchObject({ requeued: 1, remaining: 0 });
  expect(retryQueue.scheduled.map((s) => [s.delivery.deliveryId, s.delivery.attempt])).toEqual([
    [delivery.deliveryId, 5],
  ]);

  deadLetters.add(JSON.stringify({ v: 1, type: 'dead-letter', reason: 'exhausted', error: 'x', delivery }));
  deadLetters.add(JSON.stringify({ v: 1, type: 'event', eventId: 'evt_memory_2' }), 'ingress');
  expect((await management.deadLetters.list()).map((e) => e.kind)).toEqual(['dead-letter', 'original']);
  const redriven = await management.deadLetters.redrive({ all: true });
  expect(redriven.redriven).toHaveLength(2);
  expect(deadLetters.waiting).toEqual([]);
  expect(deadLetters.sent.map((s) => s.queue)).toEqual(['retry', 'ingress']);
  expect(JSON.parse(deadLetters.sent[0]!.body)).toMatchObject({ attempt: 5, chainStart: 5 });
});

describe('a redrive, message by message', () => {
  const letter = (connectionId: string, attempt = 4) => {
    const delivery: DeliveryMessage = {
      v: 1,
      type: 'delivery',
      deliveryId: deliveryIdFor(`evt_${connectionId}`, connectionId, Date.parse('2026-11-21T14:53:00.123Z')),
      eventId: `evt_${connectionId}`,
      connectionId,
      attempt,
      chainStart: attempt - 3,
      body: BODY,
      firstAttemptAt: '2026-11-21T14:53:01.000Z',
    };
    return {
      delivery,
      text: JSON.stringify({ v: 1, type: 'dead-letter', reason: 'exhausted', error: 'x', delivery }),
    };
  };

  it('says why each message it leaves cannot move: malformed body, poison, unknown connection, no attempt number left, a failed send', async () => {
    const { management, deadLetters } = setup();
    const { connectionId } = await management.connections.create({
      applicationId: APP,
      name: 'CRM',
      url: 'https://crm.example.com/hooks',
    });
    deadLetters.add('not json', 'ingress');
    deadLetters.add(
      JSON.stringify({ v: 1, type: 'dead-letter', reason: 'invalid_payload', error: 'user.id: bad' }),
    );
    const gone = letter('con_deleted');
    deadLetters.add(gone.text);
    deadLetters.add(letter(connectionId, 1000).text);
    const ok = letter(connectionId);
    deadLetters.add(ok.text);
    const result = await management.deadLetters.redrive({ all: true });
    expect(result.redriven.map((e) => e.deliveryId)).toEqual([ok.delivery.deliveryId]);
    expect(result.skipped.map((e) => e.why)).toEqual([
      'malformed body (not JSON): it would only be dead-lettered again; delete it',
      'malformed message (invalid_payload): it would only fail the same check again; delete it',
      'unknown connection: con_deleted no longer exists, so it would only be dead-lettered again; delete it',
      expect.stringMatching(/has used all 1000 attempt numbers$/),
    ]);
    expect(deadLetters.waiting).toHaveLength(4);

    deadLetters.send = async () => {
      throw new Error('SQS is down');
    };
    deadLetters.add(letter(connectionId).text);
    const failed = await management.deadLetters.redrive({ all: true });
    expect(failed.redriven).toEqual([]);
    expect(failed.skipped.at(-1)?.why).toBe('could not be sent back to the retry queue: SQS is down');
    expect(deadLetters.waiting).toHaveLength(5);
  });

  it('deletes messages for good by message id, delivery id or all, and names the ids it did not find', async () => {
    const { management, deadLetters } = setup();
    deadLetters.add('not json');
    const one = letter('con_a');
    deadLetters.add(one.text);
    deadLetters.add(letter('con_b').text);
    const some = await management.deadLetters.delete({ ids: ['m1', one.delivery.deliveryId, 'm9'] });
    expect(some.deleted.map((e) => e.messageId)).toEqual(['m1', 'm2']);
    expect(some.notFound).toEqual(['m9']);
    expect(deadLetters.waiting.map((m) => m.id)).toEqual(['m3']);
    expect((await management.deadLetters.delete({ all: true })).deleted).toHaveLength(1);
    expect(deadLetters.waiting).toEqual([]);
    expect(await management.deadLetters.list()).toEqual([]);
  });
});

it('mints a console session with the key its backend reads', async () => {
  const { management } = setup();
  const session = await management.createConsoleSession({ applicationId: APP });
  expect(session.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:1\/console\/#token=/);
});

it('refuses parked-delivery calls by name on a deployment that predates the parked table', async () => {
  const { backend } = memoryBackend();
  const { parked: _, ...older } = backend;
  const management = new WebhookManagement({ resources: MEMORY_RESOURCES, backend: older });
  const { connectionId } = await management.connections.create({
    applicationId: APP,
    name: 'CRM',
    url: 'https://crm.example.com/hooks',
  });
  await expect(management.listParked(connectionId)).rejects.toMatchObject({
    name: 'ValidationError',
    field: 'resources.parkedTable',
  });
  await expect(management.recoverConnection(connectionId)).rejects.toMatchObject({
    field: 'resources.parkedTable',
  });
});
