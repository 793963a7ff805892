import { createHmac } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '../../../lambdas/core/verify';

const secret = 'whsec_dmVyaWZpZXItdGVzdC1zZWNyZXQtMzItYnl0ZXMhIQ==';
const now = 1_763_737_980_000;
// As a sender might format it: spacing and an escaped character that a JSON parser normalises.
const rawBody =
  '{"event":"user.identified", "timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_1","name":"Zo\\u00eb","metadata":{}},"application":{"id":"app_1","name":"Acme"}}';

/** Signs independently of the code under test. */
function signed(body = rawBody, ts = String(now), key = secret) {
  const sig = `sha256=${createHmac('sha256', key).update(`${ts}.${body}`).digest('hex')}`;
  return {
    'X-Service-Timestamp': ts,
    'X-Service-Signature': sig,
    'X-Service-Delivery': 'dlv_X_con_a',
    'X-Service-Attempt': '2',
    'X-Service-Event': 'user.identified',
  };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  return 'accepted';
}

describe('verifyWebhook', () => {
  it('accepts a genuine delivery and returns the payload, delivery id and attempt', () => {
    const result = verifyWebhook({ rawBody, headers: signed(), secret, now });
    expect(result.payload.user.name).toBe('Zoë');
    expect(result).toMatchObject({
      timestampMs: now,
      deliveryId: 'dlv_X_con_a',
      attempt: 2,
      event: 'user.identified',
    });
  });

  it('accepts the raw body as a Buffer', () => {
    expect(
      codeOf(() => verifyWebhook({ rawBody: Buffer.from(rawBody), headers: signed(), secret, now })),
    ).toBe('accepted');
  });

  it('reads headers case-insensitively, as Node lower-cases them', () => {
    const lower = Object.fromEntries(Object.entries(signed()).map(([k, v]) => [k.toLowerCase(), v]));
    expect(codeOf(() => verifyWebhook({ rawBody, headers: lower, secret, now }))).toBe('accepted');
  });

  it('reads fetch Headers', () => {
    expect(codeOf(() => verifyWebhook({ rawBody, headers: new Headers(signed()), secret, now }))).toBe(
      'accepted',
    );
  });

  it('fails a body that was parsed and re-serialised, because the bytes differ', () => {
    const reserialised = JSON.stringify(JSON.parse(rawBody));
    expect(reserialised).not.toBe(rawBody);
    expect(codeOf(() => verifyWebhook({ rawBody: reserialised, headers: signed(), secret, now }))).toBe(
      'signature_mismatch',
    );
  });

  it('refuses a parsed object instead of the raw body', () => {
    const parsed = JSON.parse(rawBody) as unknown as string;
    expect(codeOf(() => verifyWebhook({ rawBody: parsed, headers: signed(), secret, now }))).toBe(
      'raw_body_required',
    );
  });

  it.each([
    [
      'a wrong secret',
      () => verifyWebhook({ rawBody, headers: signed(rawBody, String(now), 'whsec_other'), secret, now }),
    ],
    [
      'a tampered body',
      () => verifyWebhook({ rawBody: rawBody.replace('usr_1', 'usr_2'), headers: signed(), secret, now }),
    ],
    [
      'a tampered timestamp',
      () =>
        verifyWebhook({
          rawBody,
          headers: { ...signed(), 'X-Service-Timestamp': String(now - 1) },
          secret,
          now,
        }),
    ],
  ])('fails with signature_mismatch for %s', (_, run) => {
    expect(codeOf(run)).toBe('signature_mismatch');
  });

  it('fails a delivery older than 5 minutes and accepts one exactly 5 minutes old', () => {
    const old = String(now - 300_001);
    expect(codeOf(() => verifyWebhook({ rawBody, headers: signed(rawBody, old), secret, now }))).toBe(
      'timestamp_too_old',
    );
    const edge = String(now - 300_000);
    expect(codeOf(() => verifyWebhook({ rawBody, headers: signed(rawBody, edge), secret, now }))).toBe(
      'accepted',
    );
  });

  it('honours a custom tolerance and refuses timestamps from the future', () => {
    expect(
      codeOf(() =>
        verifyWebhook({
          rawBody,
          headers: signed(rawBody, String(now - 2_000)),
          secret,
          now,
          toleranceMs: 1_000,
        }),
      ),
    ).toBe('timestamp_too_old');
    expect(
      codeOf(() => verifyWebhook({ rawBody, headers: signed(rawBody, String(now + 400_000)), secret, now })),
    ).toBe('timestamp_in_future');
  });

  it.each([
    ['X-Service-Timestamp', 'missing_header'],
    ['X-Service-Signature', 'missing_header'],
  ])('fails when %s is missing', (name, code) => {
    const headers: Record<string, string> = signed();
    delete headers[name];
    expect(codeOf(() => verifyWebhook({ rawBody, headers, secret, now }))).toBe(code);
  });

  it.each(['abc', '1.5', '-1', ''])('fails a malformed timestamp %j', (ts) => {
    const headers = { ...signed(), 'X-Service-Timestamp': ts };
    expect(codeOf(() => verifyWebhook({ rawBody, headers, secret, now }))).toBe(
      ts === '' ? 'missing_header' : 'invalid_timestamp',
    );
  });

  it.each(['md5=abc', 'sha256=XYZ', `sha256=${'A'.repeat(64)}`, 'sha256='])(
    'fails the malformed signature %j',
    (sig) => {
      const headers = { ...signed(), 'X-Service-Signature': sig };
      expect(codeOf(() => verifyWebhook({ rawBody, headers, secret, now }))).toBe('invalid_signature_format');
    },
  );

  it('accepts any of several secrets during a rotation', () => {
    expect(
      codeOf(() => verifyWebhook({ rawBody, headers: signed(), secret: ['whsec_new', secret], now })),
    ).toBe('accepted');
  });

  it('uses a configured header prefix', () => {
    const headers = Object.fromEntries(
      Object.entries(signed()).map(([k, v]) => [k.replace('X-Service', 'X-Acme'), v]),
    );
    expect(codeOf(() => verifyWebhook({ rawBody, headers, secret, now, prefix: 'X-Acme' }))).toBe('accepted');
    expect(codeOf(() => verifyWebhook({ rawBody, headers, secret, now }))).toBe('missing_header');
  });

  it('fails a signed body that is not JSON with invalid_json', () => {
    expect(
      codeOf(() => verifyWebhook({ rawBody: 'not json', headers: signed('not json'), secret, now })),
    ).toBe('invalid_json');
  });
});
