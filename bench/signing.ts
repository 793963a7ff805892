/**
 * (2) Signing: `buildHeaders` (HMAC-SHA256 of "<timestamp>.<body>" plus the whole header set)
 * per delivery, against a bare `createHmac` of the same string. Rounds alternate; medians.
 */

import { createHmac } from 'node:crypto';
import { buildHeaders } from '../lambdas/core/headers';
import { bodyOf, eventRecords, HEADER_PREFIX, SECRET } from '../test/support/fixtures';
import { median, ratio, round } from './support/stats';

export interface SigningFigures {
  iterations: number;
  rounds: number;
  bodyBytes: number;
  buildHeadersMicros: number;
  bareHmacMicros: number;
  /** buildHeaders ÷ bare HMAC. */
  ratio: number;
}

export function measureSigning(iterations: number, rounds: number): SigningFigures {
  const body = bodyOf(eventRecords('app_bench_signing', 1)[0]!);
  const custom = { Authorization: 'Bearer rk_live_0123456789abcdef' };
  const deliveryId = 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_01JD3XQ4Z8K2M5N7P9R1S3T5V7';
  let sink = 0;
  const ours = () => {
    const started = performance.now();
    for (let i = 0; i < iterations; i++) {
      const headers = buildHeaders({
        prefix: HEADER_PREFIX,
        secret: SECRET,
        body,
        timestampMs: 1_732_200_000_000 + i,
        deliveryId,
        attempt: 1,
        custom,
      });
      sink += headers['X-Service-Signature']!.length;
    }
    return ((performance.now() - started) * 1000) / iterations;
  };
  const bare = () => {
    const started = performance.now();
    for (let i = 0; i < iterations; i++) {
      const timestamp = String(1_732_200_000_000 + i);
      sink += createHmac('sha256', SECRET).update(`${timestamp}.${body}`, 'utf8').digest('hex').length;
    }
    return ((performance.now() - started) * 1000) / iterations;
  };
  ours();
  bare();
  const samples = { ours: [] as number[], bare: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      samples.ours.push(ours());
      samples.bare.push(bare());
    } else {
      samples.bare.push(bare());
      samples.ours.push(ours());
    }
  }
  if (sink === 0) throw new Error('unreachable: keeps the loops from being optimised away');
  const buildHeadersMicros = round(median(samples.ours));
  const bareHmacMicros = round(median(samples.bare));
  return {
    iterations,
    rounds,
    bodyBytes: Buffer.byteLength(body, 'utf8'),
    buildHeadersMicros,
    bareHmacMicros,
    ratio: ratio(buildHeadersMicros, bareHmacMicros),
  };
}
