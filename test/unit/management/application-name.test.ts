/**
 * The application name Send Test and `webhooks publish` use: the one the application's events
 * last carried, read from the bodies the attempt log keeps; the application id when none is kept.
 */

import type { AttemptRecord, Connection } from '../../../lambdas/core/types';
import { WebhookManagement } from '../../../lambdas/management';
import { lastApplicationName } from '../../../lambdas/management/application-name';
import { testPayloadBody } from '../../../lambdas/management/test-send';

const record = (connectionId: string, requestedAt: string, fields: Partial<AttemptRecord> = {}) =>
  ({
    deliveryId: `dlv_x_${connectionId}`,
    attempt: 1,
    connectionId,
    applicationId: 'app_1',
    requestedAt,
    outcome: 'delivered',
    final: true,
    ...fields,
  }) as AttemptRecord;
const body = (name: string, id = 'app_1') =>
  JSON.stringify({ event: 'user.identified', user: { id: 'usr_1' }, application: { id, name } });

describe('the name an application last carried', () => {
  const log: Record<string, AttemptRecord[]> = {
    con_a: [
      record('con_a', '2026-11-21T15:05:00.000Z', { body: body('Send Test'), test: true }),
      record('con_a', '2026-11-21T15:04:00.000Z', { attempt: 2 }), // a retry: no body
      record('con_a', '2026-11-21T15:01:00.000Z', { body: body('Acme (old)') }),
    ],
    con_b: [
      record('con_b', '2026-11-21T15:03:00.000Z', { body: body('Acme Extension') }),
      record('con_b', '2026-11-21T15:02:00.000Z', { body: '{not json' }),
    ],
    con_c: [record('con_c', '2026-11-21T15:09:00.000Z', { body: body('Other', 'app_2') })],
  };
  const attempts = {
    list: async ({ connectionId }: { connectionId: string }) => {
      if (connectionId === 'con_broken') throw new Error('ProvisionedThroughputExceededException');
      return log[connectionId] ?? [];
    },
  };

  it("is the newest kept body's, leaving out test sends, retries, broken bodies and other applications'", async () => {
    expect(await lastApplicationName(attempts, 'app_1', ['con_a', 'con_b', 'con_c'])).toBe('Acme Extension');
    expect(await lastApplicationName(attempts, 'app_1', ['con_a'])).toBe('Acme (old)');
  });

  it('is unknown when no body names it, and a read that fails counts as nothing found', async () => {
    expect(await lastApplicationName(attempts, 'app_1', ['con_broken', 'con_c'])).toBeUndefined();
    expect(await lastApplicationName(attempts, 'app_1', ['con_broken', 'con_b'])).toBe('Acme Extension');
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
    const page = jest
      .spyOn(webhooks.connections, 'page')
      .mockResolvedValue({ items: [{ connectionId: 'con_a' }, { connectionId: 'con_b' }] as Connection[] });
    expect(await webhooks.applicationName('app_1', 'con_a')).toBe('Acme (old)');
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
