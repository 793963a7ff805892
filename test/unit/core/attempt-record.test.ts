import { attemptItem, attemptSortKey, fitRecord, itemSize } from '../../../lambdas/core/attempt-record';
import type { AttemptRecord } from '../../../lambdas/core/types';

const base: AttemptRecord = {
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
  responseSnippet: '{"received":true}',
  final: true,
  expiresAt: 1_766_329_200,
};

describe('attempt items', () => {
  it('sort attempts of a delivery in order, newest delivery last', () => {
    expect(attemptSortKey('dlv_A', 2) < attemptSortKey('dlv_A', 10)).toBe(true);
    expect(attemptSortKey('dlv_A', 9999) < attemptSortKey('dlv_B', 1)).toBe(true);
  });

  it('carry the sparse final-failure keys only on a final failure', () => {
    expect(attemptItem(base)).not.toHaveProperty('failedOn');
    expect(attemptItem({ ...base, outcome: 'http_error', final: false })).not.toHaveProperty('failedOn');
    expect(attemptItem({ ...base, outcome: 'http_error', final: true })).toMatchObject({
      failedOn: '2026-11-21',
      failedKey: `2026-11-21T15:00:00.000Z#${base.deliveryId}`,
    });
  });

  it('keep a typical successful attempt well under one write unit', () => {
    expect(itemSize(attemptItem(base))).toBeLessThan(700);
  });

  it('trim a successful attempt with a 1 KiB response and a long URL to one write unit', () => {
    const long = {
      ...base,
      responseSnippet: 'é'.repeat(512),
      target: `https://crm.example.com/${'p'.repeat(1500)}`,
    };
    const fitted = fitRecord(long);
    expect(itemSize(attemptItem(fitted))).toBeLessThanOrEqual(1024);
    expect(fitted.target.startsWith('https://crm.example.com/')).toBe(true);
  });

  it('keep the whole snippet of a failed attempt (it is what an operator reads)', () => {
    const failed = {
      ...base,
      outcome: 'http_error' as const,
      final: false,
      responseSnippet: 'x'.repeat(1024),
    };
    expect(fitRecord(failed).responseSnippet).toHaveLength(1024);
  });
});
