import type { AttemptRecordInput } from '../../../lambdas/core/attempt-record';
import { attemptRecordOf, keepsBody, MAX_ERROR_LENGTH } from '../../../lambdas/core/attempt-record';
import { RESPONSE_SNIPPET_BYTES } from '../../../lambdas/core/constants';

const at = Date.parse('2026-11-22T10:00:00.000Z');
const input = (over: Partial<AttemptRecordInput> = {}): AttemptRecordInput => ({
  delivery: {
    v: 1,
    type: 'delivery',
    deliveryId: 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_a',
    eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
    connectionId: 'con_a',
    attempt: 2,
    chainStart: 1,
    body: '{}',
    firstAttemptAt: '2026-11-22T09:59:59.000Z',
  },
  facts: { applicationId: 'app_1', userId: 'usr_1', event: 'user.identified' },
  request: { method: 'POST', target: 'https://crm.example.com/hooks', requestedAtMs: at },
  result: { kind: 'response', status: 200, durationMs: 12, snippet: 'ok' },
  decision: { action: 'done', outcome: 'delivered' },
  sensitive: ['whsec_secret', 'header-value'],
  ttlDays: 30,
  nowMs: at + 12,
  ...over,
});

describe('attemptRecordOf', () => {
  it('records a delivered attempt with no error, kept ttlDays', () => {
    const { record, lastError } = attemptRecordOf(input());
    expect(record).toEqual({
      deliveryId: 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_a',
      attempt: 2,
      eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
      connectionId: 'con_a',
      applicationId: 'app_1',
      userId: 'usr_1',
      event: 'user.identified',
      method: 'POST',
      target: 'https://crm.example.com/hooks',
      requestedAt: '2026-11-22T10:00:00.000Z',
      durationMs: 12,
      outcome: 'delivered',
      final: true,
      sendId: expect.stringMatching(/^[0-9A-Z]{10}$/),
      expiresAt: at / 1000 + 30 * 86_400,
      statusCode: 200,
      responseSnippet: 'ok',
    });
    expect(lastError).toBe('receiver answered HTTP 200');
  });

  it('says when the retry goes and why, redacting what the receiver echoed', () => {
    const { record } = attemptRecordOf(
      input({
        result: {
          kind: 'response',
          status: 503,
          durationMs: 5,
          snippet: `no: whsec_secret / header-value ${'x'.repeat(2000)}`,
        },
        decision: { action: 'retry', outcome: 'http_error', delaySeconds: 2 },
      }),
    );
    expect(record).toMatchObject({
      final: false,
      error: 'receiver answered HTTP 503',
      nextAttemptAt: '2026-11-22T10:00:02.012Z',
    });
    expect(record.responseSnippet).not.toMatch(/whsec_secret|header-value/);
    expect(Buffer.byteLength(record.responseSnippet!)).toBeLessThanOrEqual(RESPONSE_SNIPPET_BYTES);
  });

  it('keeps a network error redacted and bounded, and marks a test send', () => {
    const { record, lastError } = attemptRecordOf(
      input({
        delivery: { ...input().delivery, test: true },
        result: { kind: 'network', durationMs: 3, error: `ECONNRESET at whsec_secret ${'y'.repeat(1000)}` },
        decision: { action: 'dead-letter', outcome: 'network_error', reason: 'exhausted' },
      }),
    );
    expect(record.test).toBe(true);
    expect(record.error).toBe(lastError);
    expect(record.error).not.toContain('whsec_secret');
    expect(Buffer.byteLength(record.error!)).toBeLessThanOrEqual(MAX_ERROR_LENGTH);
  });

  it('carries the trace id of a traced attempt, and none when untraced', () => {
    const traceId = '1-6925a3c0-0123456789abcdef01234567';
    const traced = attemptRecordOf(input({ request: { ...input().request, traceId } })).record;
    expect(traced.traceId).toBe(traceId);
    expect('traceId' in attemptRecordOf(input()).record).toBe(false);
  });
});

describe('the request an attempt record keeps', () => {
  const sent = {
    'Content-Type': 'application/json',
    'User-Agent': 'webhooks/1',
    'X-Service-Timestamp': '1764064800000',
    'X-Service-Signature': `sha256=${'f'.repeat(64)}`,
    Authorization: 'Bearer header-value',
    'x-tenant': 'acme-tenant-7',
  };
  const request = {
    method: 'POST',
    target: 'https://crm.example.com/hooks',
    requestedAtMs: at,
    headers: sent,
    customNames: ['authorization', 'X-Tenant'],
  };

  it('lists every header in the order sent, custom values hidden, signature and timestamp shown', () => {
    const { record } = attemptRecordOf(input({ request }));
    expect(record.requestHeaders).toEqual([
      { name: 'Content-Type', value: 'application/json' },
      { name: 'User-Agent', value: 'webhooks/1' },
      { name: 'X-Service-Timestamp', value: '1764064800000' },
      { name: 'X-Service-Signature', value: `sha256=${'f'.repeat(64)}` },
      { name: 'Authorization', value: '[hidden]' },
      { name: 'x-tenant', value: '[hidden]' },
    ]);
    expect(JSON.stringify(record)).not.toContain('header-value');
    expect(JSON.stringify(record)).not.toContain('acme-tenant-7');
  });

  it('keeps no headers for a refusal, where nothing was sent', () => {
    const { record } = attemptRecordOf(
      input({ request: { method: 'POST', target: '(unknown)', requestedAtMs: at } }),
    );
    expect(record).not.toHaveProperty('requestHeaders');
  });

  const first = (outcome: 'delivered' | 'http_error', keepBodies?: 'all' | 'failures') =>
    attemptRecordOf(
      input({
        delivery: { ...input().delivery, attempt: 1, body: '{"event":"user.identified"}' },
        decision:
          outcome === 'delivered'
            ? { action: 'done', outcome }
            : { action: 'retry', outcome, delaySeconds: 1 },
        result:
          outcome === 'delivered'
            ? { kind: 'response', status: 200, durationMs: 3, snippet: '' }
            : { kind: 'response', status: 500, durationMs: 3, snippet: '' },
        keepBodies,
      }),
    ).record;

  it('keeps the body once per delivery, on the first attempt only', () => {
    expect(first('delivered').body).toBe('{"event":"user.identified"}');
    expect(first('http_error', 'all').body).toBe('{"event":"user.identified"}');
    expect(attemptRecordOf(input()).record).not.toHaveProperty('body'); // attempt 2
  });

  it("with keepBodies 'failures', keeps the body only when the first attempt failed", () => {
    expect(first('delivered', 'failures')).not.toHaveProperty('body');
    expect(first('http_error', 'failures').body).toBe('{"event":"user.identified"}');
    expect(keepsBody(1, 'delivered', 'failures')).toBe(false);
    expect(keepsBody(2, 'http_error', 'all')).toBe(false);
  });
});
