/**
 * The arithmetic of `npm run bench -- --only bodyStorage` (bench/body-storage.ts, docs/design.md §5
 * "The request is kept").
 */

import { deflateRawSync } from 'node:zlib';
import {
  bodyOf,
  gbMonthPerMillion,
  measureBodyStorage,
  measureCase,
  metadataOf,
  writeUnitsOf,
} from '../../bench/body-storage';
import { checkBody } from '../../lambdas/core/payload';

it('counts a write unit per started KiB, as DynamoDB does', () => {
  expect([1, 1024, 1025, 2048, 2049].map(writeUnitsOf)).toEqual([1, 1, 2, 2, 3]);
});

it('prices storage as GiB kept for a 30-day month: 1 KiB a delivery for 30 days is 1e6/1024² GiB-month', () => {
  expect(gbMonthPerMillion(1024, 30)).toBeCloseTo(1_000_000 / 1024 ** 2, 10);
  expect(gbMonthPerMillion(1024, 15)).toBeCloseTo(1_000_000 / 1024 ** 2 / 2, 10);
});

it('builds valid bodies, larger with more metadata (at most the 100 keys a payload may carry)', () => {
  const sizes = (['small', 'typical', 'large'] as const).map((s) => {
    const body = bodyOf(s);
    expect(checkBody(body).user.metadata).toEqual(metadataOf(s));
    return Buffer.byteLength(body);
  });
  expect(sizes[0]!).toBeLessThan(sizes[1]!);
  expect(sizes[1]!).toBeLessThan(sizes[2]!);
  expect(Object.keys(metadataOf('large'))).toHaveLength(100);
});

it('measures the stored body as the attempt item keeps it, and what it adds to the first record', () => {
  const body = bodyOf('typical');
  const k = measureCase(body, 30);
  expect(k.rawBytes).toBe(Buffer.byteLength(body));
  expect(k.storedBytes).toBeLessThan(k.rawBytes);
  expect(k.ratio).toBeCloseTo(k.storedBytes / k.rawBytes, 2);
  // The body attribute: its name (4 bytes) and its stored bytes, nothing else.
  expect(k.itemBytes.withBody - k.itemBytes.headersOnly).toBe(4 + k.storedBytes);
  expect(k.itemBytes.headersOnly).toBeGreaterThan(k.itemBytes.bare);
  expect(k.writeUnits.firstWithBody).toBe(Math.ceil(k.itemBytes.withBody / 1024));
  expect(k.writeUnits.firstWithoutBody).toBe(Math.ceil(k.itemBytes.headersOnly / 1024));
  expect(k.writeUnits.later).toBe(k.writeUnits.firstWithoutBody);
  expect(k.perMillion.addedWriteUnits).toBe(
    (k.writeUnits.firstWithBody - k.writeUnits.firstWithoutBody) * 1_000_000,
  );
  expect(k.perMillion.addedGbMonth).toBeCloseTo(((4 + k.storedBytes) * 1e6) / 1024 ** 3, 4);
});

it("counts a failed first attempt (what keepBodies: 'failures' keeps) with its 1 KiB error snippet", () => {
  const k = measureCase(bodyOf('small'), 30);
  // The error page's snippet alone makes the record larger than a delivered one.
  expect(k.failedWriteUnits.firstWithoutBody).toBeGreaterThan(k.writeUnits.firstWithoutBody);
  expect(k.failedWriteUnits.firstWithBody).toBeGreaterThanOrEqual(k.failedWriteUnits.firstWithoutBody);
  expect(k.perMillionFailed.addedWriteUnits).toBe(
    (k.failedWriteUnits.firstWithBody - k.failedWriteUnits.firstWithoutBody) * 1_000_000,
  );
  // The same body attribute is added to either record.
  expect(k.perMillionFailed.addedGbMonth).toBe(k.perMillion.addedGbMonth);
});

it('counts the stored bytes as raw deflate of the UTF-8 body (what attempt-item.ts writes)', () => {
  const body = bodyOf('large');
  const k = measureCase(body, 30);
  expect(k.storedBytes).toBe(deflateRawSync(Buffer.from(body, 'utf8')).byteLength);
  expect(k.ratio).toBeLessThan(0.5);
});

it('reports every metadata size at the default retention', () => {
  const figures = measureBodyStorage();
  expect(figures.retentionDays).toBe(30);
  expect(Object.keys(figures.cases)).toEqual(['small', 'typical', 'large']);
  const half = measureBodyStorage(15).cases.typical.perMillion.addedGbMonth;
  expect(half).toBeCloseTo(figures.cases.typical.perMillion.addedGbMonth / 2, 3);
});
