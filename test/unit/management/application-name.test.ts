/**
 * The application name Send Test and `webhooks publish` use: the one the application's events
 * last carried, read from the bodies the attempt log keeps; the application id when none is kept.
 */

import type { AttemptRecord, Connection } from '../../../lambdas/core/types';
import { WebhookManagement } from '../../../lambdas/management';
import { lastApplicationName } from '../../../lambdas/management/application-name';
import { testPayloadBody } from '../../../lambdas/management/test-send';

const record = (deliveryId: string, requestedAt: string, fields: Partial<AttemptRecord> = {}) =>
  ({
    deliveryId,
    attempt: 1,
    connectionId: deliveryId.split('_').at(-1),
    applicationId: 'app_1',
    requestedAt,
    outcome: 'delivered',
    final: true,
    ...fields,
  }) as AttemptRecord;
const body = (name: string, id = 'app_1') =>
  JSON.stringify({ event: 'user.identified', user: { id: 'usr_1' }, application: { id, name } });

describe('the name an application last carried', () => {
  // Each delivery's attempts, oldest first: the first keeps the body.
  const deliveries: Record<string, AttemptRecord[]> = {
    dlv_test_a: [record('dlv_test_a', '2026-11-21T15:05:00.000Z', { body: body('Send Test'), test: true })],
    dlv_old_a: [
      record('dlv_old_a', '2026-11-21T15:01:00.000Z', { body: body('Acme (old)'), outcome: 'timeout' }),
      record('dlv_old_a', '2026-11-21T15:01:01.000Z', { attempt: 2 }),
    ],
    dlv_new_b: [record('dlv_new_b', '2026-11-21T15:03:00.000Z', { body: body('Acme Extension') })],
    dlv_broken_b: [record('dlv_broken_b', '2026-11-21T15:02:00.000Z', { body: '{not json' })],
    dlv_other_c: [
      record('dlv_other_c', '2026-11-21T15:09:00.000Z', {
        applicationId: 'app_2',
        body: body('Other', 'app_2'),
      }),
    ],
  };
  // The listings carry no body, newest attempt first.
  const log: Record<string, AttemptRecord[]> = {};
  for (const r of Object.values(deliveries).flat().reverse()) {
    const { body: _body, ...listed } = r;
    log[r.connectionId] = [...(log[r.connectionId] ?? []), listed as AttemptRecord];
  }
  const attempts = {
    list: async ({ connectionId }: { connectionId: string }) => {
      if (connectionId === 'con_broken') throw new Error('ProvisionedThroughputExceededException');
      return log[connectionId] ?? [];
    },
    ofDelivery: async (deliveryId: string) => deliveries[deliveryId] ?? [],
  };

  it("is the newest kept body's, leaving out test sends, broken bodies and other applications'", async () => {
    expect(await lastApplicationName(attempts, 'app_1', ['a', 'b', 'c'])).toBe('Acme Extension');
    expect(await lastApplicationName(attempts, 'app_1', ['a'])).toBe('Acme (old)');
    expect(await lastApplicationName(attempts, 'app_1', ['c'])).toBeUndefined();
  });

  it('is unknown when no body names it, and a read that fails counts as nothing found', async () => {
    expect(await lastApplicationName(attempts, 'app_1', ['con_broken', 'c'])).toBeUndefined();
    expect(await lastApplicationName(attempts, 'app_1', ['con_broken', 'b'])).toBe('Acme Extension');
  });

  it("reads the connection asked about first, then a page of the application's connections", async () => {
    const webhooks = new WebhookManagement({
      resources: {
        queueUrl: 'q',
        retryQueueUrl: 'r',
        dlqUrl: 'd',
        connectionsTable: 'c',
        attemptsTable: 'a',
        secretPrefix: 'webhooks/',
      },
    });
    const list = jest
      .spyOn(webhooks.attempts, 'list')
      .mockImplementation(async (q) => log[q.connectionId] ?? []);
    jest.spyOn(webhooks.attempts, 'ofDelivery').mockImplementation(attempts.ofDelivery);
    const page = jest
      .spyOn(webhooks.connections, 'page')
      .mockResolvedValue({ items: [{ connectionId: 'a' }, { connectionId: 'b' }] as Connection[] });
    expect(await webhooks.applicationName('app_1', 'a')).toBe('Acme (old)');
    expect(page).not.toHaveBeenCalled();
    expect(await webhooks.applicationName('app_1', 'con_new')).toBe('Acme Extension');
    expect(page).toHaveBeenCalledWith({ applicationId: 'app_1', limit: 5 });
    expect(list).toHaveBeenCalledWith({ connectionId: 'con_new', limit: 20 });
  });
});

describe('the test delivery body', () => {
  const connection = { applicationId: 'app_1' } as Connection;
  const application = (text: string) => JSON.parse(text).application;

  it('names the application as its events did, else by its id, never "Send Test"', () => {
    const now = new Date('2026-11-21T15:00:00.000Z');
    expect(application(testPayloadBody(connection, now, 'Acme Extension'))).toEqual({
      id: 'app_1',
      name: 'Acme Extension',
    });
    expect(application(testPayloadBody(connection, now))).toEqual({ id: 'app_1', name: 'app_1' });
  });
});
