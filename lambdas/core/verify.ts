/**
 * The receiver side of docs/protocol.md §4: verify a delivery's signature and timestamp. Pure (node:crypto
 * only), exported to receiver developers as `verifyWebhook`.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_HEADER_PREFIX, REPLAY_WINDOW_MS } from './constants';
import { InputError } from './errors';
import { SIGNATURE_SCHEME } from './signing';
import type { UserIdentifiedPayload } from './types';

export type VerificationFailure =
  | 'raw_body_required'
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'invalid_signature_format'
  | 'signature_mismatch'
  | 'invalid_json';

/** Why a delivery failed verification; `code` says which check, safe to log. Answer 401. */
export class WebhookVerificationError extends InputError {
  constructor(
    override readonly code: VerificationFailure,
    message: string,
  ) {
    super(code, message);
    this.name = 'WebhookVerificationError';
  }
}

/** Header bags as Node (`req.headers`), Express and fetch (`Headers`) give them. */
export type HeaderBag = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyOptions {
  /** The request body exactly as received: a string or the raw bytes. Never a parsed object. */
  rawBody: string | Uint8Array;
  headers: HeaderBag;
  /** The connection's webhook secret; several during a rotation (any may match). */
  secret: string | readonly string[];
  /** Oldest acceptable timestamp, ms. docs/protocol.md §4: 300 000 (5 minutes). */
  toleranceMs?: number;
  /** Current time, Unix ms (injectable for tests). */
  now?: number;
  /** Header prefix the sender is configured with. @default 'X-Service' */
  prefix?: string;
}

export interface VerifiedWebhook {
  payload: UserIdentifiedPayload;
  /** X-Service-Timestamp as a number (Unix ms). */
  timestampMs: number;
  /** X-Service-Delivery: stable across retries, use it to de-duplicate. */
  deliveryId?: string;
  attempt?: number;
  event?: string;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === lower) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * Verifies a delivery: signature over `"<timestamp>.<raw body>"` compared in constant time,
 * and the timestamp within `toleranceMs` of now.
 * @throws WebhookVerificationError with the failed check in `code`.
 */
export function verifyWebhook(options: VerifyOptions): VerifiedWebhook {
  const { rawBody, headers } = options;
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      'raw_body_required',
      'rawBody must be the body exactly as received (string or Buffer); a re-serialised object changes the signature',
    );
  }
  const prefix = options.prefix ?? DEFAULT_HEADER_PREFIX;
  const tsName = `${prefix}-Timestamp`;
  const sigName = `${prefix}-Signature`;
  const timestamp = header(headers, tsName);
  if (!timestamp) throw new WebhookVerificationError('missing_header', `${tsName} header is missing`);
  if (!/^\d{1,16}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      `${tsName} must be Unix milliseconds, got "${timestamp.slice(0, 32)}"`,
    );
  }
  const signature = header(headers, sigName);
  if (!signature) throw new WebhookVerificationError('missing_header', `${sigName} header is missing`);
  if (!/^sha256=[0-9a-f]{64}$/.test(signature)) {
    throw new WebhookVerificationError(
      'invalid_signature_format',
      `${sigName} must look like sha256=<64 lowercase hex>`,
    );
  }

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const given = Buffer.from(signature, 'utf8');
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  if (secrets.length === 0) throw new TypeError('verifyWebhook: at least one secret is required');
  let matched = false;
  for (const secret of secrets) {
    const hmac = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest('hex');
    const expected = Buffer.from(SIGNATURE_SCHEME + hmac, 'utf8');
    // Compare every secret, always: the time taken does not reveal which one matched.
    if (timingSafeEqual(expected, given)) matched = true;
  }
  if (!matched)
    throw new WebhookVerificationError('signature_mismatch', 'signature does not match the body and secret');

  // Checked after the signature so an attacker learns nothing from the timestamp checks.
  const timestampMs = Number(timestamp);
  const now = options.now ?? Date.now();
  const tolerance = options.toleranceMs ?? REPLAY_WINDOW_MS;
  if (now - timestampMs > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `timestamp is ${now - timestampMs} ms old (limit ${tolerance} ms)`,
    );
  }
  if (timestampMs - now > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `timestamp is ${timestampMs - now} ms in the future`,
    );
  }

  let payload: UserIdentifiedPayload;
  try {
    payload = JSON.parse(body.toString('utf8')) as UserIdentifiedPayload;
  } catch {
    throw new WebhookVerificationError('invalid_json', 'body is not valid JSON');
  }
  const attempt = Number(header(headers, `${prefix}-Attempt`));
  return {
    payload,
    timestampMs,
    deliveryId: header(headers, `${prefix}-Delivery`),
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : undefined,
    event: header(headers, `${prefix}-Event`),
  };
}
