import { inflateRawSync } from 'node:zlib';
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  attemptItem,
  attemptSortKey,
  certainlyOneWriteUnit,
  decodeHeaders,
  deliveredItemSize,
  encodeHeaders,
  fitRecord,
  itemSize,
  recordOf,
  sameAsStored,
  sameItem,
} from '../../../lambdas/adapters/dynamodb/attempt-item';
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
    // The day's partition, sharded by the delivery id (this one's shard is 7 of 8).
    expect(attemptItem({ ...base, outcome: 'http_error', final: true })).toMatchObject({
      failedOn: '2026-11-21#7',
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
    // In a shard, the partition key's `#<n>` counts too.
    for (const shard of [1, 9, 63]) {
      for (const r of records) expect(deliveredItemSize(r, shard)).toBe(itemSize(attemptItem(r, shard)));
    }
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
      traceId: `1-6925a3c0-${'f'.repeat(24)}`,
      target: 'https://h.example/',
      responseSnippet: '',
    };
    for (let extra = 0; extra < 300; extra += 1) {
      const r = { ...worst, responseSnippet: '€'.repeat(extra) };
      if (certainlyOneWriteUnit(r)) expect(itemSize(attemptItem(r, 63))).toBeLessThanOrEqual(1024);
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
    // Sharding keeps a success at one write unit: the shard's key bytes come off the snippet.
    expect(itemSize(attemptItem(fitRecord(at(0), 63), 63))).toBe(1024);
    expect(fitRecord(at(0), 63).responseSnippet).toHaveLength(at(0).responseSnippet.length - 3);
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

/**
 * The oracle: dynalite's own item size (dynalite/db `itemSize`, what the DynamoDB emulator the
 * project runs counts ConsumedCapacity with), an implementation written independently of the
 * adapter, numbers sized from their decimal digits with big.js. dynalite counts a string in
 * UTF-16 units where DynamoDB counts UTF-8 bytes
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * the oracle hands it each string and name as one character per UTF-8 byte, so it counts bytes.
 */
const dynalite = require('dynalite/db') as {
  itemSize(item: Record<string, Record<string, unknown>>): number;
};
const asBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
function dynamoItemSize(item: Record<string, unknown>): number {
  const marshalled = marshall(item, { removeUndefinedValues: true });
  const bytewise: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(marshalled)) {
    if (!('S' in value || 'N' in value || 'BOOL' in value || 'NULL' in value || 'B' in value)) {
      throw new Error(`attribute ${name}: the attempt item holds only strings, numbers, booleans and bytes`);
    }
    bytewise[asBytes(name)] =
      'S' in value
        ? { S: asBytes(value.S!) }
        : 'B' in value
          ? { B: Buffer.from(value.B as Uint8Array).toString('base64') }
          : (value as unknown as Record<string, unknown>);
  }
  return dynalite.itemSize(bytewise);
}

describe('attempt item size against DynamoDB’s rules', () => {
  /** A deterministic spread of records: non-ASCII text, numbers of every magnitude. */
  function records(): AttemptRecord[] {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const texts = ['ok', '{"received":true}', 'é', '€uro', '𝄞 clef', 'x'.repeat(300), 'ü'.repeat(200)];
    const out: AttemptRecord[] = [];
    for (let i = 0; i < 200; i++) {
      const outcome = i % 3 === 0 ? 'http_error' : 'delivered';
      out.push({
        ...base,
        attempt: 1 + (next() % 10_000),
        durationMs: next() % 10 ** (i % 9),
        statusCode: 100 + (next() % 500),
        expiresAt: 1_700_000_000 + next(),
        outcome,
        final: i % 2 === 0,
        ...(i % 5 === 0 ? { test: true } : {}),
        target: `https://crm.example.com/${texts[next() % texts.length]}`,
        responseSnippet: texts[next() % texts.length],
      });
    }
    return out;
  }

  it('never counts an item smaller than DynamoDB does, and at most 2 bytes per number larger', () => {
    for (const record of records()) {
      const item = attemptItem(record);
      const numbers = Object.values(item).filter((v) => typeof v === 'number').length;
      const real = dynamoItemSize(item);
      expect(itemSize(item)).toBeGreaterThanOrEqual(real);
      expect(itemSize(item) - real).toBeLessThanOrEqual(2 * numbers);
    }
  });

  it('counts strings and names in UTF-8 bytes, exactly as DynamoDB does', () => {
    const item = { ü: 'é€𝄞', sk: 'dlv_A#0001', ok: true };
    expect(itemSize(item)).toBe(dynamoItemSize(item));
    expect(dynamoItemSize(item)).toBe(2 + 9 + 2 + 10 + 2 + 1);
  });

  it('sizes numbers as DynamoDB does: base-100 digit pairs plus one byte (the oracle agrees)', () => {
    const numberAlone = (n: number) => dynamoItemSize({ n }) - 1;
    expect(numberAlone(0)).toBe(1);
    expect(numberAlone(7)).toBe(2); // 07
    expect(numberAlone(12)).toBe(2); // 12
    expect(numberAlone(1000)).toBe(2); // 10 00: trailing zeros are not stored
    expect(numberAlone(1.2)).toBe(3); // 01 . 20
    expect(numberAlone(12345)).toBe(4); // 01 23 45
    expect(numberAlone(-12)).toBe(3);
    for (const n of [0, 7, 12, 1000, 1.2, 12345, 1_700_000_000, 29_999]) {
      expect(itemSize({ n })).toBeGreaterThanOrEqual(dynamoItemSize({ n }));
    }
  });

  it('keeps every fitted success within one write unit by DynamoDB’s count', () => {
    for (const record of records()) {
      const long = {
        ...record,
        outcome: 'delivered' as const,
        responseSnippet: `${record.responseSnippet}${'é'.repeat(600)}`,
        target: `${record.target}/${'p'.repeat(700)}`,
      };
      expect(dynamoItemSize(attemptItem(fitRecord(long)))).toBeLessThanOrEqual(1024);
    }
  });
});

describe('the request an attempt item keeps', () => {
  const headers = [
    { name: 'Content-Type', value: 'application/json' },
    { name: 'X-Service-Timestamp', value: '1732200000000' },
    { name: 'X-Service-Signature', value: `sha256=${'a'.repeat(64)}` },
    { name: 'Authorization', value: '[hidden]' },
    { name: 'X-Odd', value: 'a: b: c' },
  ];
  const body = JSON.stringify({
    event: 'user.identified',
    timestamp: '2026-11-21T15:00:00.000Z',
    user: { id: 'usr_1', email: 'ada@example.com', metadata: { plan: 'pro', source: 'extension' } },
    application: { id: 'app_1', name: 'Acme' },
  });

  it('stores the headers as one text attribute, a header a line, and reads them back in order', () => {
    const item = attemptItem({ ...base, requestHeaders: headers });
    expect(item.requestHeaders).toBe(headers.map((h) => `${h.name}: ${h.value}`).join('\n'));
    expect(recordOf(item).requestHeaders).toEqual(headers);
    expect(decodeHeaders(encodeHeaders([]))).toEqual([]);
  });

  it('stores the body deflated as bytes and reads back the exact text', () => {
    const unicode = body.replace('Acme', 'Açme 𝄞');
    const item = attemptItem({ ...base, body: unicode });
    expect(item.body).toBeInstanceOf(Uint8Array);
    expect(inflateRawSync(item.body as Uint8Array).toString('utf8')).toBe(unicode);
    expect((item.body as Uint8Array).byteLength).toBeLessThan(Buffer.byteLength(unicode));
    expect(recordOf(item).body).toBe(unicode);
  });

  it('keeps a first attempt with its body whole, snippet included (no trimming to one unit)', () => {
    const first = { ...base, body, responseSnippet: 'é'.repeat(512), requestHeaders: headers };
    expect(fitRecord(first)).toBe(first);
  });

  it('counts the body bytes and the headers text in the item size, as DynamoDB does', () => {
    const item = attemptItem({ ...base, body, requestHeaders: headers });
    expect(itemSize(item)).toBeGreaterThanOrEqual(dynamoItemSize(item));
    expect(itemSize(item) - dynamoItemSize(item)).toBeLessThanOrEqual(10);
  });

  it('keeps a later success within one write unit with its headers, dropping them only when nothing else fits', () => {
    const later = { ...base, attempt: 2, requestHeaders: headers };
    expect(fitRecord(later)).toBe(later);
    const many = Array.from({ length: 20 }, (_, i) => ({
      name: `X-${'n'.repeat(200)}-${i}`,
      value: '[hidden]',
    }));
    const fitted = fitRecord({ ...later, requestHeaders: many });
    expect(fitted.requestHeaders).toBeUndefined();
    expect(dynamoItemSize(attemptItem(fitted))).toBeLessThanOrEqual(1024);
    expect(certainlyOneWriteUnit({ ...later, requestHeaders: many })).toBe(false);
    expect(deliveredItemSize(later)).toBe(itemSize(attemptItem(later)));
  });

  it('tells a repeated write of an item with bytes from a different one', () => {
    const item = attemptItem({ ...base, body, requestHeaders: headers });
    const again = attemptItem({ ...base, body, requestHeaders: headers });
    expect(sameItem(item, again)).toBe(true);
    expect(sameAsStored(marshall(item) as never, again)).toBe(true);
    const other = attemptItem({ ...base, body: body.replace('pro', 'free'), requestHeaders: headers });
    expect(sameItem(item, other)).toBe(false);
    expect(sameAsStored(marshall(item) as never, other)).toBe(false);
  });
});
