/**
 * (10) What keeping request bodies costs (issue 23, docs/design.md §5 "The request is kept"): for the spec's
 * user.identified payload with small, typical and large metadata, built with the project's own
 * payload builder, the body's raw and stored (raw-deflated, attempt-item.ts) bytes, the attempt
 * item's size with and without the body and the headers, the write units of a first attempt
 * and of a later one, and the storage per million deliveries kept for the default retention.
 * Sizes come from the attempt log's own item function (itemSize), so they are DynamoDB's.
 */

import {
  attemptItem,
  encodeBody,
  itemSize,
  WRITE_UNIT_BYTES,
} from '../lambdas/adapters/dynamodb/attempt-item';
import { CONFIG_DEFAULTS } from '../lambdas/config';
import { requestHeadersOf } from '../lambdas/core/attempt-record';
import { buildHeaders } from '../lambdas/core/headers';
import { buildPayload, serialiseBody } from '../lambdas/core/payload';
import type { AttemptRecord } from '../lambdas/core/types';
import { attemptAt, HEADER_PREFIX, HEADER_VALUE, SECRET, user } from '../test/support/fixtures';
import { ERROR_PAGE } from '../test/support/receiver-pages';

// As bench/cost-model.ts counts: a 30-day month, GiB.
const DAYS_PER_MONTH = 30;
const GB = 1024 ** 3;

export type MetadataSize = 'small' | 'typical' | 'large';

export interface BodyStorageCase {
  /** UTF-8 bytes of the body as sent. */
  rawBytes: number;
  /** Bytes of its stored form (raw deflate). */
  storedBytes: number;
  /** storedBytes ÷ rawBytes. */
  ratio: number;
  /** The first attempt's item: with the body and headers, headers only, neither. */
  itemBytes: { withBody: number; headersOnly: number; bare: number };
  /** Write units of the first attempt (body kept / not kept) and of a later attempt. */
  writeUnits: { firstWithBody: number; firstWithoutBody: number; later: number };
  /** Write units of a failed first attempt (HTTP 503, an HTML error page), with and without the body. */
  failedWriteUnits: { firstWithBody: number; firstWithoutBody: number };
  /** What keeping the body adds per million deliveries: write units, and GB-month at the retention. */
  perMillion: { addedWriteUnits: number; addedGbMonth: number };
  /** The same per million deliveries whose first attempt failed (all `keepBodies: 'failures'` keeps). */
  perMillionFailed: { addedWriteUnits: number; addedGbMonth: number };
}

export interface BodyStorageFigures {
  retentionDays: number;
  cases: Record<MetadataSize, BodyStorageCase>;
}

/** Metadata as upstream services publish it: the fixtures' small map, a typical profile, a large one. */
export function metadataOf(size: MetadataSize): Record<string, unknown> {
  if (size === 'small') return user().metadata;
  const typical = {
    plan: 'pro',
    source: 'extension',
    locale: 'en-GB',
    timezone: 'Europe/London',
    signupAt: '2026-03-14T09:26:53.589Z',
    lastSeenAt: '2026-11-25T08:12:44.101Z',
    company: 'Analytical Engines Ltd',
    seats: 12,
    trial: false,
    referrer: 'https://www.example.com/pricing?utm_source=newsletter&utm_medium=email',
  };
  if (size === 'typical') return typical;
  // The most a payload may carry (100 flat keys): segments, feature flags, device facts.
  const large: Record<string, unknown> = { ...typical };
  for (let i = 0; Object.keys(large).length < 100; i++) {
    if (i % 3 === 0) large[`segment_${i}`] = i % 2 ? 'enterprise-emea' : 'self-serve-amer';
    else if (i % 3 === 1) large[`feature_${i}_enabled`] = i % 4 === 1;
    else large[`device_${i}_last_ip`] = `203.0.113.${i}`;
  }
  return large;
}

/** The exact body a delivery of this metadata sends, built as the publisher builds it. */
export function bodyOf(size: MetadataSize): string {
  return serialiseBody(
    buildPayload({
      timestamp: '2026-11-25T10:00:00.000Z',
      user: { ...user('usr_01JD3XQ4Z8K2M5N7P9R1S3T5V7'), metadata: metadataOf(size) },
      application: { id: 'app_01JD3XQ4Z8K2M5N7P9R1S3T5V7', name: 'Acme Extension' },
    }),
  );
}

export const writeUnitsOf = (bytes: number) => Math.ceil(bytes / WRITE_UNIT_BYTES);

/** GB-month of `bytesPerDelivery` (plus nothing else) for a million deliveries kept `days`. */
export function gbMonthPerMillion(bytesPerDelivery: number, days: number): number {
  return (bytesPerDelivery * 1_000_000 * days) / DAYS_PER_MONTH / GB;
}

/** The figures of one body against the records of its first and a later delivered attempt. */
export function measureCase(body: string, retentionDays: number): BodyStorageCase {
  const at = Date.parse('2026-11-25T10:00:00.000Z');
  const first = attemptAt('con_01JD3XQ4Z8K2M5N7P9R1S3T5V7', 'app_01JD3XQ4Z8K2M5N7P9R1S3T5V7', at, {
    target: 'https://api.example-crm.com/webhooks/v1/user-identified',
    responseSnippet: '{"received":true}',
    expiresAt: Math.floor(at / 1000) + retentionDays * 86_400,
  });
  const headers = buildHeaders({
    prefix: HEADER_PREFIX,
    secret: SECRET,
    body,
    timestampMs: at,
    deliveryId: first.deliveryId,
    attempt: 1,
    custom: { Authorization: HEADER_VALUE },
  });
  const headersOnly: AttemptRecord = {
    ...first,
    requestHeaders: requestHeadersOf(headers, ['Authorization']),
  };
  const withBody: AttemptRecord = { ...headersOnly, body };
  const later: AttemptRecord = { ...headersOnly, attempt: 2 };
  const failed: AttemptRecord = {
    ...headersOnly,
    outcome: 'http_error',
    statusCode: 503,
    responseSnippet: ERROR_PAGE,
    error: 'receiver answered HTTP 503',
    final: false,
    nextAttemptAt: new Date(at + 60_000).toISOString(),
  };
  const rawBytes = Buffer.byteLength(body, 'utf8');
  const storedBytes = encodeBody(body).byteLength;
  const itemBytes = {
    withBody: itemSize(attemptItem(withBody)),
    headersOnly: itemSize(attemptItem(headersOnly)),
    bare: itemSize(attemptItem(first)),
  };
  const writeUnits = {
    firstWithBody: writeUnitsOf(itemBytes.withBody),
    firstWithoutBody: writeUnitsOf(itemBytes.headersOnly),
    later: writeUnitsOf(itemSize(attemptItem(later))),
  };
  const failedBytes = itemSize(attemptItem(failed));
  const failedWithBodyBytes = itemSize(attemptItem({ ...failed, body }));
  const failedWriteUnits = {
    firstWithBody: writeUnitsOf(failedWithBodyBytes),
    firstWithoutBody: writeUnitsOf(failedBytes),
  };
  const gbMonth = (bytes: number) => Math.round(gbMonthPerMillion(bytes, retentionDays) * 10_000) / 10_000;
  return {
    rawBytes,
    storedBytes,
    ratio: Math.round((storedBytes / rawBytes) * 100) / 100,
    itemBytes,
    writeUnits,
    failedWriteUnits,
    perMillion: {
      addedWriteUnits: (writeUnits.firstWithBody - writeUnits.firstWithoutBody) * 1_000_000,
      addedGbMonth: gbMonth(itemBytes.withBody - itemBytes.headersOnly),
    },
    perMillionFailed: {
      addedWriteUnits: (failedWriteUnits.firstWithBody - failedWriteUnits.firstWithoutBody) * 1_000_000,
      addedGbMonth: gbMonth(failedWithBodyBytes - failedBytes),
    },
  };
}

export function measureBodyStorage(
  retentionDays: number = CONFIG_DEFAULTS.attemptTtlDays,
): BodyStorageFigures {
  const sizes: MetadataSize[] = ['small', 'typical', 'large'];
  return {
    retentionDays,
    cases: Object.fromEntries(sizes.map((s) => [s, measureCase(bodyOf(s), retentionDays)])) as Record<
      MetadataSize,
      BodyStorageCase
    >,
  };
}
