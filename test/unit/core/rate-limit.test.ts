/** Per-connection rate limits: the field's rule, the limiter on an injectable clock, and the deferral. */

import { DEADLINE_MARGIN_MS } from '../../../lambdas/core/constants';
import { createDispatcher } from '../../../lambdas/core/dispatch';
import { ValidationError } from '../../../lambdas/core/errors';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import {
  ACTIVITY_SECONDS,
  activityOf,
  activityWindows,
  createRateLimiter,
  decideRate,
  effectiveRateLimit,
  MAX_DEFERRAL_SECONDS,
  quotaOf,
  SENDS_PER_COUNTER,
  SLOT_TOLERANCE_MS,
  shardOf,
  shardsOf,
  slotOf,
  validateRateLimit,
  WAITING_WITHIN_SECONDS,
} from '../../../lambdas/core/rate-limit';
import type { DeliveryMessage } from '../../../lambdas/core/types';
import { connection, ok, DISPATCHER_OPTIONS as options, PLENTY as plenty } from '../../support/fixtures';
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
    expect(decideRate(1, 50)).toEqual({ go: true, waitMs: 0 });
    expect(decideRate(50, 50)).toMatchObject({ go: true });
    expect(decideRate(51, 50)).toEqual({ go: false, delaySeconds: 1 });
    expect(decideRate(100, 50)).toEqual({ go: false, delaySeconds: 1 });
    expect(decideRate(101, 50)).toEqual({ go: false, delaySeconds: 2 });
    expect(decideRate(2_000, 50)).toEqual({ go: false, delaySeconds: 39 });
  });
  it('sends the counts within the quota at slots spread evenly over the second, never later than a slot needs', () => {
    // The c-th of 50 goes (c - 1) × 20 ms into its second.
    expect([1, 2, 26, 50].map((c) => decideRate(c, 50, 0))).toEqual([
      { go: true, waitMs: 0 },
      { go: true, waitMs: 20 },
      { go: true, waitMs: 500 },
      { go: true, waitMs: 980 },
    ]);
    // Counted 300 ms into the second: the 26th still waits for its slot, the 10th's has passed.
    expect(decideRate(26, 50, 300)).toEqual({ go: true, waitMs: 200 });
    expect(decideRate(10, 50, 300)).toEqual({ go: true, waitMs: 0 });
    expect(slotOf(3, 4)).toBe(500);
    // Never a whole second: the last slot is 1/quota before the next window.
    expect(Math.max(...[1, 2, 7, 499, 500].map((q) => slotOf(q, q)))).toBeLessThan(1000);
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
  it('waits for the next second and counts there a send far behind its slot, when the invocation has the time', async () => {
    let now = Date.parse('2026-11-25T12:00:00.600Z');
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    };
    const counter = new MemoryRateWindows();
    const limiter = createRateLimiter(counter, () => now, sleep);
    const start = Math.floor(now / 1000);
    // Behind its slot (0 ms) by 600 ms, more than the tolerance: counted again at 12:00:01.000.
    expect(await limiter.take('con_a', 'dlv_1', 4, { canWaitMs: 5_000 })).toEqual({
      go: true,
      waitMs: 0,
      countedAgain: true,
    });
    expect(sleeps).toEqual([400]);
    expect(counter.count('con_a', start, 0)).toBe(1);
    expect(counter.count('con_a', start + 1, 0)).toBe(1);
    // Its next count's slot (250 ms) is behind by no more than the tolerance: it goes at once.
    now += 250 + SLOT_TOLERANCE_MS;
    expect(await limiter.take('con_a', 'dlv_2', 4, { canWaitMs: 5_000 })).toEqual({ go: true, waitMs: 0 });
    expect(sleeps).toEqual([400]);
    // Far behind again, but the invocation cannot spare the wait: it goes at once, as before.
    now = Date.parse('2026-11-25T12:00:07.700Z');
    expect(await limiter.take('con_a', 'dlv_3', 4, { canWaitMs: 200 })).toEqual({ go: true, waitMs: 0 });
    expect(sleeps).toEqual([400]);
  });

  it('counts again in the current second when a count comes back after its own second ended', async () => {
    let now = Date.parse('2026-11-25T12:00:00.900Z');
    const windows = new MemoryRateWindows();
    const seconds: number[] = [];
    let slowWrites = 1;
    let slowMs = 300;
    const counter = {
      async increment(connectionId: string, second: number, shard: number) {
        seconds.push(second);
        if (slowWrites-- > 0) now += slowMs; // the first: back at 12:00:01.200, its second over
        return windows.increment(connectionId, second, shard);
      },
    };
    const limiter = createRateLimiter(counter, () => now);
    const start = Math.floor(Date.parse('2026-11-25T12:00:00Z') / 1000);
    expect(await limiter.take('con_a', 'dlv_1', 4)).toEqual({ go: true, waitMs: 0, countedAgain: true });
    expect(seconds).toEqual([start, start + 1]);
    // Slow twice: deferred a second rather than sent out of turn.
    slowWrites = 2;
    slowMs = 1_000;
    now = Date.parse('2026-11-25T12:00:05.800Z');
    expect(await limiter.take('con_a', 'dlv_2', 4)).toEqual({
      go: false,
      delaySeconds: 1,
      countedAgain: true,
    });
    expect(seconds).toEqual([start, start + 1, start + 5, start + 6]);
  });

  it('grants the limit per second, shared by every limiter on one counter, and starts over next second', async () => {
    let now = Date.parse('2026-11-25T12:00:00.000Z');
    const counter = new MemoryRateWindows();
    // Two dispatcher containers: two limiters, one shared counter.
    const a = createRateLimiter(counter, () => now);
    const b = createRateLimiter(counter, () => now);
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await (i % 2 ? a : b).take('con_a', `dlv_${i}`, 4));
    expect(decisions.map((d) => d.go)).toEqual([true, true, true, true, false, false]);
    // The four that go are spread over the second, whichever container counted them.
    expect(decisions.slice(0, 4).map((d) => (d.go ? d.waitMs : -1))).toEqual([0, 250, 500, 750]);
    // Another connection has its own windows.
    expect(await a.take('con_b', 'dlv_x', 4)).toEqual({ go: true, waitMs: 0 });
    now += 999;
    expect(await a.take('con_a', 'dlv_7', 4)).toEqual({ go: false, delaySeconds: 1 });
    now += 1;
    expect(await b.take('con_a', 'dlv_8', 4)).toEqual({ go: true, waitMs: 0 });
    // Counted late in its second, a send whose slot has passed goes at once; a later one waits for its own.
    now += 600;
    expect(await b.take('con_a', 'dlv_9', 4)).toEqual({ go: true, waitMs: 0 });
    expect(await b.take('con_a', 'dlv_10', 4)).toEqual({ go: true, waitMs: 0 });
    expect(await b.take('con_a', 'dlv_11', 4)).toEqual({ go: true, waitMs: 150 });
  });
});

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
    const startedAt = f.state.now;
    const { failures } = await dispatcher.processBatch(deliveries.map(recordOf), plenty);
    expect(failures).toEqual([]);
    expect(f.state.sent).toHaveLength(3);
    expect(f.state.records).toHaveLength(3);
    expect(f.state.deadLetters).toEqual([]);
    // The five over the limit: the same messages, same attempt number, aimed at later windows.
    expect(f.state.scheduled.map((s) => s.delivery.attempt)).toEqual([2, 2, 2, 2, 2]);
    const sentIds = new Set(f.state.records.map((r) => r.deliveryId));
    for (const { delivery, delaySeconds } of f.state.scheduled) {
      expect(sentIds.has(delivery.deliveryId)).toBe(false);
      // Unchanged but for when it is due: its delay from now (how late it starts is RetryStartLag).
      const { dueAt, ...unchanged } = delivery;
      expect(deliveries).toContainEqual(unchanged);
      const due = Date.parse(dueAt!) - delaySeconds * 1000;
      expect(due).toBeGreaterThanOrEqual(startedAt);
      expect(due).toBeLessThanOrEqual(f.state.now);
    }
    expect(f.state.scheduled.map((s) => s.delaySeconds).sort()).toEqual([1, 1, 1, 2, 2]);
    const lines = f.state.logs.filter((l) => l.message === 'delivery deferred: waiting for the rate limit');
    expect(lines).toHaveLength(5);
    // DEBUG: the metric counts them; a burst's deferrals would otherwise be most of its log.
    expect(lines.every((l) => l.level === 'debug')).toBe(true);
    expect(lines[0]!.fields).toMatchObject({ applicationId: 'app_1', connectionId: 'con_a', rateLimit: 3 });
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

  it('spreads the sends it lets go over the second: a receiver never gets the allowance in one clump', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 5 })]);
    const second = Math.ceil(f.state.now / 1000) * 1000;
    f.state.now = second;
    const dispatcher = createDispatcher(f.deps, options);
    await dispatcher.processBatch(
      Array.from({ length: 5 }, (_, i) => recordOf(deliveryOf(i), i)),
      plenty,
    );
    const at = f.state.records.map((r) => Date.parse(r.requestedAt) - second).sort((a, b) => a - b);
    expect(at).toEqual([0, 200, 400, 600, 800]);
    expect(f.state.waitedUntil.map((t) => t - second).sort((a, b) => a - b)).toEqual([200, 400, 600, 800]);
  });

  it('defers instead of waiting when the invocation has too little time left to wait for the slot and send', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 2 })]);
    f.state.now = Math.ceil(f.state.now / 1000) * 1000;
    const dispatcher = createDispatcher(f.deps, { ...options, attemptTimeoutMs: 1_000 });
    // Time for an attempt (1 s + the margin) but not for it and a 500 ms wait.
    const tight = { remainingMs: () => 1_000 + DEADLINE_MARGIN_MS + 300 };
    const { failures } = await dispatcher.processBatch(
      [recordOf(deliveryOf(1), 0), recordOf(deliveryOf(2), 1)],
      tight,
    );
    expect(failures).toEqual([]);
    expect(f.state.sent).toHaveLength(1);
    expect(f.state.scheduled.map((s) => [s.delivery.deliveryId, s.delaySeconds])).toEqual([
      [deliveryOf(2).deliveryId, 1],
    ]);
    expect(f.state.waitedUntil).toEqual([]);
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
    // Nor any wait: an unlimited connection's sends all go at once.
    expect(free.state.waitedUntil).toEqual([]);
  });

  it('holds a connection asking for more than the ceiling to the ceiling', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 5_000 })]);
    await createDispatcher(f.deps, { ...options, rateLimitCeiling: 2 }).processBatch(
      Array.from({ length: 4 }, (_, i) => recordOf(deliveryOf(i), i)),
      plenty,
    );
    expect(f.state.sent).toHaveLength(2);
  });

  it('holds a Resend of a Send Test to the limit; Send Test itself goes at once', async () => {
    const f = memoryPorts([connection('con_a', { rateLimit: 1 })]);
    const dispatcher = createDispatcher(f.deps, options);
    const resentTests = Array.from({ length: 3 }, (_, i) => recordOf({ ...deliveryOf(i), test: true }, i));
    await dispatcher.processBatch(resentTests, plenty);
    expect(f.state.sent).toHaveLength(1);
    expect(f.state.scheduled).toHaveLength(2);
    const con = (await f.deps.connections.get('con_a'))!;
    for (let i = 0; i < 3; i++) {
      await dispatcher.attemptOnce({ ...deliveryOf(10 + i), test: true }, con, plenty);
    }
    expect(f.state.sent).toHaveLength(4);
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

describe("a connection's last minute, from its counter items alone", () => {
  const now = Date.parse('2026-11-25T12:00:30.400Z');
  const current = Math.floor(now / 1000);

  it('counts what went over each window quota as deferrals, the rest as sends, and says it is waiting when one is recent', () => {
    const activity = activityOf(
      20,
      [
        { second: current - 70, shard: 0, sends: 90 }, // older than the minute: left out
        { second: current - 30, shard: 0, sends: 12 },
        { second: current - 2, shard: 0, sends: 35 },
        { second: current, shard: 0, sends: 25 },
      ],
      now,
    );
    expect(activity).toEqual({
      seconds: ACTIVITY_SECONDS,
      sent: 12 + 20 + 20,
      deferred: 15 + 5,
      waiting: true,
      lastDeferredAtMs: current * 1000,
    });
  });

  it(`is not waiting when the last deferral is ${WAITING_WITHIN_SECONDS} s old or more`, () => {
    const windows = [{ second: current - WAITING_WITHIN_SECONDS, shard: 0, sends: 21 }];
    expect(activityOf(20, windows, now)).toMatchObject({ deferred: 1, waiting: false });
    expect(
      activityOf(20, [{ ...windows[0]!, second: current - WAITING_WITHIN_SECONDS + 1 }], now),
    ).toMatchObject({
      waiting: true,
    });
    expect(activityOf(20, [], now)).toEqual({
      seconds: ACTIVITY_SECONDS,
      sent: 0,
      deferred: 0,
      waiting: false,
    });
  });

  it('holds each shard to its own quota, and reads every shard of every second of the minute', () => {
    // 1,000/s: two shards of 500.
    const activity = activityOf(
      1_000,
      [
        { second: current, shard: 0, sends: 600 },
        { second: current, shard: 1, sends: 400 },
      ],
      now,
    );
    expect(activity).toMatchObject({ sent: 900, deferred: 100 });
    const windows = activityWindows(1_000, now);
    expect(windows).toHaveLength(ACTIVITY_SECONDS * 2);
    expect(windows[0]).toEqual({ second: current - ACTIVITY_SECONDS + 1, shard: 0 });
    expect(windows.at(-1)).toEqual({ second: current, shard: 1 });
  });

  it('reads two shards at most, whatever the limit, and scales their counts to the whole', () => {
    // 10,000/s: twenty shards of 500; one look reads 120 items, not 1,200.
    expect(activityWindows(10_000, now)).toHaveLength(ACTIVITY_SECONDS * 2);
    const activity = activityOf(
      10_000,
      [
        { second: current, shard: 0, sends: 600 },
        { second: current, shard: 1, sends: 400 },
        { second: current, shard: 7, sends: 900 }, // not read: the two read stand for it
      ],
      now,
    );
    expect(activity).toMatchObject({ sent: 9_000, deferred: 1_000, waiting: true });
  });
});

describe('the ceiling of a deployment', () => {
  it('refuses a limit above the ceiling, naming it, and holds saved limits to it', () => {
    expect(validateRateLimit(1_000, 1_000)).toBe(1_000);
    expect(() => validateRateLimit(1_001, 1_000)).toThrow(
      /^rateLimit: must be at most 1,000 deliveries per second: the ceiling this deployment's operator set, got 1001/,
    );
    expect(() => validateRateLimit(10_001, 1_000)).toThrow(/from 1 to 1,000/);
    expect(effectiveRateLimit(5_000, undefined, 1_000)).toBe(1_000);
    expect(effectiveRateLimit(undefined, 50, 1_000)).toBe(50);
    expect(effectiveRateLimit(undefined, undefined, 1_000)).toBeUndefined();
  });
});
