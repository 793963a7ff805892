import {
  attemptItem,
  attemptSortKey,
  certainlyOneWriteUnit,
  deliveredItemSize,
  fitRecord,
  itemSize,
} from '../../../lambdas/core/attempt-record';
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

  it('size a successful attempt without building its item, exactly as the item measures', () => {
    const records: AttemptRecord[] = [
      base,
      { ...base, attempt: 12, responseSnippet: undefined, statusCode: 204 },
      {
        ...base,
        attempt: 3,
        test: true,
        target: 'https://hooks.example.org/ü/ß?x=1',
        responseSnippet: 'ok ✓',
      },
      { ...base, attempt: 10_000, durationMs: 29_999 },
    ];
    for (const r of records) expect(deliveredItemSize(r)).toBe(itemSize(attemptItem(r)));
  });

  it('skip measuring only records that certainly fit, even with the longest ids and numbers', () => {
    const id = (prefix: string, n: number) => `${prefix}_${'A'.repeat(n)}`;
    const connectionId = id('con', 64);
    const worst: AttemptRecord = {
      ...base,
      deliveryId: `dlv_${'0'.repeat(26)}_${connectionId}`,
      attempt: 999_999,
      eventId: id('evt', 128),
      connectionId,
      applicationId: id('app', 128),
      userId: id('usr', 128),
      method: 'PATCH',
      durationMs: 2 ** 31,
      statusCode: 299,
      expiresAt: 99_999_999_999,
      test: true,
      target: 'https://h.example/',
      responseSnippet: '',
    };
    for (let extra = 0; extra < 300; extra += 1) {
      const r = { ...worst, responseSnippet: '€'.repeat(extra) };
      if (certainlyOneWriteUnit(r)) expect(itemSize(attemptItem(r))).toBeLessThanOrEqual(1024);
    }
    expect(certainlyOneWriteUnit(base)).toBe(true);
    expect(certainlyOneWriteUnit({ ...base, responseSnippet: 'x'.repeat(300) })).toBe(false);
  });

  it('trim a success at exactly one write unit only when it is over', () => {
    const at = (extra: number) => ({
      ...base,
      responseSnippet: 'x'.repeat(1024 - itemSize(attemptItem(base)) + 17 + extra),
    });
    expect(itemSize(attemptItem(at(0)))).toBe(1024);
    expect(fitRecord(at(0)).responseSnippet).toBe(at(0).responseSnippet);
    expect(itemSize(attemptItem(fitRecord(at(1))))).toBe(1024);
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
