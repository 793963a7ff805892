import { buildHeaders } from '../../../lambdas/core/headers';
import { sign } from '../../../lambdas/core/signing';

// Expected digests were computed outside this code base, e.g.:
//   printf '%s' '1700000000000.{"event":"user.identified"}' | openssl dgst -sha256 -hmac '<secret>'
const VECTORS = [
  {
    secret: 'whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=',
    timestamp: '1700000000000',
    body: '{"event":"user.identified"}',
    hex: '7354c1e34000e6b9102aec903dade81690ceaef102fba544c40545e6a64369be',
  },
  {
    secret: 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
    timestamp: '1732200000123',
    body: '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_1","name":"Zoë Ünïcode","metadata":{}},"application":{"id":"app_1","name":"Acme"}}',
    hex: '564faa8eeefb93113c75c9807125669ca7bb97400b871b053f931374ebc8c460',
  },
  {
    secret: 'k',
    timestamp: '0',
    body: '',
    hex: '6b4a4b8b3c40f1e8f53a3d36682e5f99f7ad2ac1df1c93dfe336f329167641e7',
  },
];

describe('sign', () => {
  it.each(VECTORS)(
    'matches the openssl HMAC-SHA256 of "<timestamp>.<body>" (%#)',
    ({ secret, timestamp, body, hex }) => {
      expect(sign(secret, timestamp, body)).toBe(`sha256=${hex}`);
    },
  );

  it('signs the body bytes exactly: one changed character changes the signature', () => {
    const v = VECTORS[0]!;
    expect(sign(v.secret, v.timestamp, `${v.body} `)).not.toBe(`sha256=${v.hex}`);
    expect(sign(v.secret, '1700000000001', v.body)).not.toBe(`sha256=${v.hex}`);
  });

  it('produces lowercase hex of 64 characters after the sha256= prefix', () => {
    expect(sign('s', '1', '{}')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});

describe('buildHeaders', () => {
  const base = {
    prefix: 'X-Service',
    secret: VECTORS[0]!.secret,
    body: VECTORS[0]!.body,
    timestampMs: 1_700_000_000_000,
    deliveryId: 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_abc',
    attempt: 2,
    custom: { Authorization: 'Bearer token-123' },
  };

  it('sends the four standard headers, the extensions and then the custom headers', () => {
    const headers = buildHeaders(base);
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': expect.stringMatching(/^serverless-webhooks\//),
      'X-Service-Event': 'user.identified',
      'X-Service-Timestamp': '1700000000000',
      'X-Service-Signature': `sha256=${VECTORS[0]!.hex}`,
      'X-Service-Delivery': base.deliveryId,
      'X-Service-Attempt': '2',
      Authorization: 'Bearer token-123',
    });
  });

  it('uses the configured header prefix', () => {
    const headers = buildHeaders({ ...base, prefix: 'X-Acme' });
    expect(Object.keys(headers)).toEqual(
      expect.arrayContaining(['X-Acme-Signature', 'X-Acme-Timestamp', 'X-Acme-Event']),
    );
    expect(Object.keys(headers).some((k) => k.startsWith('X-Service'))).toBe(false);
  });
});
