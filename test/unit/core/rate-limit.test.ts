/** Per-connection rate limits: the field's rule, the limiter on an injectable clock, and the deferral. */

import { createDispatcher } from '../../../lambdas/core/dispatch';
import { ValidationError } from '../../../lambdas/core/errors';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import type { DispatcherOptions } from '../../../lambdas/core/ports';
import {
  createRateLimiter,
  decideRate,
  MAX_DEFERRAL_SECONDS,
  quotaOf,
  SENDS_PER_COUNTER,
  shardOf,
  shardsOf,
  validateRateLimit,
} from '../../../lambdas/core/rate-limit';
import type { DeliveryMessage } from '../../../lambdas/core/types';
import { connection, ok } from '../../support/fixtures';
import { MemoryRateWindows, memoryPorts } from '../../support/memory';

describe('the rateLimit field', () => {
  it.each([1, 50, 10_000])('takes %i deliveries per second', (n) => {
    expect(validateRateLimit(n)).toBe(n);
  });
  it.each([null, undefined])('reads %p as none', (raw) => {
    expect(validateRateLimit(raw)).toBeUndefined();
  });
  it.each([0, -1, 10_001, 2.5, '50', Number.NaN, Number.POSITIVE_INFINITY, true])(
    'refuses %p by name',
    (raw) => {
      expect(() => validateRateLimit(raw)).toThrow(ValidationError);
      expect(() => validateRateLimit(raw)).toThrow(/^rateLimit: must be a whole number .* 1 to 10,000/);
    },
  );
});

describe('the decision from a window count', () => {
  it('lets the sends within the quota go and defers the rest by the windows their place needs', () => {
    expect(decideRate(1, 50)).toEqual({ go: true });
    expect(decideRate(50, 50)).toEqual({ go: true });
    expect(decideRate(51, 50)).toEqual({ go: false, delaySeconds: 1 });
    expect(decideRate(100, 50)).toEqual({ go: false, delaySeconds: 1 });
    expect(decideRate(101, 50)).toEqual({ go: false, delaySeconds: 2 });
    expect(decideRate(2_000, 50)).toEqual({ go: false, delaySeconds: 39 });
  });
  it('never waits longer than SQS can delay a message', () => {
    expect(decideRate(10_000_000, 1)).toEqual({ go: false, delaySeconds: MAX_DEFERRAL_SECONDS });
  });
  it('spreads a high limit over shards whose quotas add up to the limit', () => {
    expect(shardsOf(SENDS_PER_COUNTER)).toBe(1);
    expect(shardsOf(SENDS_PER_COUNTER + 1)).toBe(2);
    for (const limit of [1, 7, 499, 501, 1_234, 10_000]) {
      const shards = shardsOf(limit);
      const quotas = Array.from({ length: shards }, (_, i) => quotaOf(limit, shards, i));
      expect(quotas.reduce((a, b) => a + b, 0)).toBe(limit);
      expect(Math.max(...quotas)).toBeLessThanOrEqual(SENDS_PER_COUNTER);
    }
    const seen = new Set(Array.from({ length: 200 }, (_, i) => shardOf(`dlv_${i}`, 20)));
    expect(seen.size).toBe(20);
  });
});

describe('the limiter on an injectable clock', () => {
  it('grants the limit per second, shared by every limiter on one counter, and starts over next second', async () => {
    let now = Date.parse('2026-11-25T12:00:00.000Z');
    const counter = new MemoryRateWindows();
    // Two dispatcher containers: two limiters, one shared counter.
    const a = createRateLimiter(counter, () => now);
    const b = createRateLimiter(counter, () => now);
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await (i % 2 ? a : b).take('con_a', `dlv_${i}`, 4));
    expect(decisions.map((d) => d.go)).toEqual([true, true, true, true, false, false]);
    // Another connection has its own windows.
    expect(await a.take('con_b', 'dlv_x', 4)).toEqual({ go: true });
    now += 999;
    expect(await a.take('con_a', 'dlv_7', 4)).toEqual({ go: false, delaySeconds: 1 });
    now += 1;
    expect(await b.take('con_a', 'dlv_8', 4)).toEqual({ go: true });
  });
});

const options: DispatcherOptions = {
  headerPrefix: 'X-Service',
  attemptTtlDays: 30,
  concurrency: 10,
  egress: { allowedPorts: [443], allowLoopback: false },
};
const plenty = { remainingMs: () => 90_000 };
const BODY =
  '{"event":"user.identified","timestamp":"2026-11-21T14:53:00.123Z","user":{"id":"usr_7","metadata":{}},"application":{"id":"app_1","name":"Acme"}}';

function deliveryOf(n: number, attempt = 1): DeliveryMessage {
  const eventId = `evt_01JD3XQ4Z8K2M5N7P9R1S3T${String(n).padStart(3, '0')}`;
  return {
    v: 1,
    type: 'delivery',
    deliveryId: deliveryIdFor(eventId, 'con_a', Date.parse('2026-11-21T14:53:00.123Z')),
    eventId,
    connectionId: 'con_a',
    attempt,
    chainStart: 1,
    body: BODY,
    firstAttemptAt: '2026-11-21T15:00:00.000Z',
  };
}
const recordOf = (d: DeliveryMessage, i: number) => ({
  messageId: `m${i}`,
  body: JSON.stringify(d),
  source: 'retry' as const,
});

describe('a delivery over its connection rate limit', () => {
  it('is deferred, not attempted: put back unchanged with a delay, no attempt number used, no record written', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 3 })]);
    const dispatcher = createDispatcher(f.deps, options);
    const deliveries = Array.from({ length: 8 }, (_, i) => deliveryOf(i, 2));
    const { failures } = await dispatcher.processBatch(deliveries.map(recordOf), plenty);
    expect(failures).toEqual([]);
    expect(f.state.sent).toHaveLength(3);
    expect(f.state.records).toHaveLength(3);
    expect(f.state.deadLetters).toEqual([]);
    // The five over the limit: the same messages, same attempt number, aimed at later windows.
    expect(f.state.scheduled.map((s) => s.delivery.attempt)).toEqual([2, 2, 2, 2, 2]);
    const sentIds = new Set(f.state.records.map((r) => r.deliveryId));
    for (const { delivery } of f.state.scheduled) {
      expect(sentIds.has(delivery.deliveryId)).toBe(false);
      expect(deliveries).toContainEqual(delivery);
    }
    expect(f.state.scheduled.map((s) => s.delaySeconds).sort()).toEqual([1, 1, 1, 2, 2]);
    const lines = f.state.logs.filter((l) => l.message === 'delivery deferred: waiting for the rate limit');
    expect(lines).toHaveLength(5);
    expect(lines[0]!.fields).toMatchObject({ connectionId: 'con_a', rateLimit: 3 });
    // Counted in the invocation's EMF document: five deferrals, and no attempt for them.
    f.metrics.flush();
    expect(f.state.emf.map((d) => d.RateLimitDeferrals).filter(Boolean)).toEqual([5]);
    expect(f.state.emf.reduce((n, d) => n + ((d.Attempts as number) ?? 0), 0)).toBe(3);
  });

  it('goes when its window comes: the deferred messages are delivered once each, a second later', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 3 })]);
    const dispatcher = createDispatcher(f.deps, options);
    await dispatcher.processBatch(
      Array.from({ length: 5 }, (_, i) => recordOf(deliveryOf(i), i)),
      plenty,
    );
    const again = f.state.scheduled.splice(0);
    expect(again).toHaveLength(2);
    f.state.now += 1_000;
    await dispatcher.processBatch(
      again.map((s, i) => recordOf(s.delivery, i)),
      plenty,
    );
    expect(f.state.scheduled).toEqual([]);
    const delivered = f.state.records.map((r) => r.deliveryId);
    expect(new Set(delivered).size).toBe(5);
    expect(f.state.records.every((r) => r.attempt === 1 && r.outcome === 'delivered')).toBe(true);
  });

  it('a retry keeps its 1 s minimum; the limit only adds to it', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 1 })], { responder: () => ok(503) });
    const dispatcher = createDispatcher(f.deps, options);
    await dispatcher.processBatch([recordOf(deliveryOf(1), 0), recordOf(deliveryOf(2), 1)], plenty);
    const retry = f.state.scheduled.find((s) => s.delivery.attempt === 2)!;
    const deferred = f.state.scheduled.find((s) => s.delivery.attempt === 1)!;
    expect(retry.delaySeconds).toBe(1);
    expect(deferred.delaySeconds).toBe(1);
    expect(f.state.records).toHaveLength(1);
  });

  it('uses the stack default when the connection sets none, and a connection without any limit costs no count', async () => {
    const limited = memoryPorts([connection('con_a')]);
    await createDispatcher(limited.deps, { ...options, defaultRateLimit: 2 }).processBatch(
      Array.from({ length: 4 }, (_, i) => recordOf(deliveryOf(i), i)),
      plenty,
    );
    expect(limited.state.sent).toHaveLength(2);
    expect(limited.rateWindows.counts.size).toBe(1);

    const free = memoryPorts([connection('con_a')]);
    await createDispatcher(free.deps, options).processBatch(
      Array.from({ length: 4 }, (_, i) => recordOf(deliveryOf(i), i)),
      plenty,
    );
    expect(free.state.sent).toHaveLength(4);
    expect(free.rateWindows.counts.size).toBe(0);
  });

  it('leaves the record for SQS to redeliver when the counter is down, sending nothing', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 3 })]);
    f.state.fail.add('rateWindows');
    const { failures } = await createDispatcher(f.deps, options).processBatch(
      [recordOf(deliveryOf(1), 0)],
      plenty,
    );
    expect(failures).toEqual(['m0']);
    expect(f.state.sent).toEqual([]);
    expect(f.state.records).toEqual([]);
  });
});
