import { bodyOfDelivery, planResend } from '../../../lambdas/core/resend';
import type { AttemptRecord } from '../../../lambdas/core/types';
import { ConflictError, NotFoundError } from '../../../lambdas/management/errors';
import { type ResendDeps, resendDelivery } from '../../../lambdas/management/resend';
import { attemptAt, id } from '../../support/fixtures';
import { MemoryAttempts, MemoryQueues } from '../../support/memory';

const BODY = '{"event":"user.identified","timestamp":"2026-11-25T10:00:00.000Z"}';
const t0 = Date.parse('2026-11-25T10:00:00.000Z');

/** A delivery delivered at attempt 1, its body kept; `fields` change that first record. */
function delivered(fields: Partial<AttemptRecord> = {}): AttemptRecord {
  return attemptAt(id('con'), 'app_1', t0, { body: BODY, ...fields });
}
const later = (first: AttemptRecord, attempt: number, fields: Partial<AttemptRecord> = {}): AttemptRecord => {
  const { body: _, ...rest } = first;
  return { ...rest, attempt, requestedAt: new Date(t0 + attempt * 1000).toISOString(), ...fields };
};

describe('planResend', () => {
  it('queues the next attempt of the same delivery with its body, as a new chain', () => {
    const first = delivered();
    const plan = planResend([first]);
    expect(plan).toEqual({
      ok: true,
      last: first,
      message: {
        v: 1,
        type: 'delivery',
        deliveryId: first.deliveryId,
        eventId: first.eventId,
        connectionId: first.connectionId,
        attempt: 2,
        chainStart: 2,
        body: BODY,
        firstAttemptAt: first.requestedAt,
      },
    });
  });

  it('resends a parked delivery after its 4th attempt as attempt 5, and a test send as a test', () => {
    const first = delivered({ outcome: 'http_error', statusCode: 503, final: false });
    const records = [first, later(first, 2, { final: false }), later(first, 3, { final: false })];
    records.push(later(first, 4, { outcome: 'http_error', final: true }));
    const plan = planResend(records);
    expect(plan.ok && plan.message).toMatchObject({ attempt: 5, chainStart: 5, body: BODY });
    const test = planResend([delivered({ test: true })]);
    expect(test.ok && test.message.test).toBe(true);
  });

  it('refuses while a retry is scheduled, after a Resend queued it, and past the last number', () => {
    const first = delivered({ outcome: 'timeout', final: false, nextAttemptAt: '2026-11-25T10:00:01.000Z' });
    expect(planResend([first])).toMatchObject({ ok: false, reason: 'in_progress' });
    expect(planResend([delivered({ resentAs: 2 })])).toMatchObject({ ok: false, reason: 'already_resent' });
    expect(planResend([delivered({ attempt: 1000 })])).toMatchObject({
      ok: false,
      reason: 'exhausted_numbers',
    });
    expect(planResend([])).toMatchObject({ ok: false, reason: 'not_found' });
  });

  it('says plainly why a body is not there', () => {
    const { body: _, ...bare } = delivered();
    expect(bodyOfDelivery([bare])).toEqual({
      missing: 'not_kept',
      message:
        "bodies of delivered deliveries are not kept by this stack's settings (keepBodies: 'failures')",
    });
    expect(planResend([bare])).toMatchObject({
      ok: false,
      reason: 'no_body',
      message: expect.stringContaining("not kept by this stack's settings"),
    });
    expect(bodyOfDelivery([later(delivered(), 2)])).toMatchObject({ missing: 'aged_out' });
    expect(bodyOfDelivery([{ ...bare, outcome: 'http_error' }])).toMatchObject({ missing: 'not_kept' });
  });
});

describe('resendDelivery', () => {
  function setup(options: { parked?: boolean; queueDown?: boolean } = {}) {
    const attempts = new MemoryAttempts();
    const queues = new MemoryQueues((op) => Boolean(options.queueDown) && op === 'schedule');
    const retried: string[] = [];
    const deps: ResendDeps = {
      attempts,
      queue: queues,
      scoped: async (deliveryId, scope) => {
        if (scope.applicationId !== undefined && scope.applicationId !== 'app_1') {
          throw new NotFoundError('delivery', deliveryId);
        }
        return deliveryId.slice(deliveryId.indexOf('_con_') + 1);
      },
      parkedItem: async () => (options.parked ? ({} as never) : undefined),
      retryParked: async (deliveryId) => {
        retried.push(deliveryId);
      },
    };
    return { attempts, queues, retried, deps };
  }

  it('queues attempt N+1 on the retry queue at once and marks attempt N resent', async () => {
    const { attempts, queues, deps } = setup();
    const first = delivered();
    await attempts.append(first);
    const result = await resendDelivery(deps, first.deliveryId, { applicationId: 'app_1' });
    expect(result).toEqual({ deliveryId: first.deliveryId, connectionId: first.connectionId, attempt: 2 });
    expect(queues.scheduled).toEqual([
      { delivery: expect.objectContaining({ attempt: 2, chainStart: 2, body: BODY }), delaySeconds: 0 },
    ]);
    expect((await attempts.ofDelivery(first.deliveryId))[0]!.resentAs).toBe(2);
  });

  it('of two Resends at once, queues one attempt and answers the other 409', async () => {
    const { attempts, queues, deps } = setup();
    const first = delivered();
    await attempts.append(first);
    const results = await Promise.allSettled([
      resendDelivery(deps, first.deliveryId),
      resendDelivery(deps, first.deliveryId),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    expect(queues.scheduled).toHaveLength(1);
  });

  it('takes its mark back when SQS refuses, so the next Resend can go', async () => {
    const { attempts, deps } = setup({ queueDown: true });
    const first = delivered();
    await attempts.append(first);
    await expect(resendDelivery(deps, first.deliveryId)).rejects.toThrow('SQS is unavailable');
    expect((await attempts.ofDelivery(first.deliveryId))[0]!.resentAs).toBeUndefined();
  });

  it('resends a parked delivery through its claim, never queueing it twice', async () => {
    const { attempts, queues, retried, deps } = setup({ parked: true });
    const first = delivered({ outcome: 'http_error', final: true });
    await attempts.append(first);
    await resendDelivery(deps, first.deliveryId);
    expect(retried).toEqual([first.deliveryId]);
    expect(queues.scheduled).toEqual([]);
  });

  it("answers 404 for another application's delivery and one not in the log, 409 for a body not kept", async () => {
    const { attempts, deps } = setup();
    const { body: _, ...bare } = delivered();
    await attempts.append(bare);
    await expect(resendDelivery(deps, bare.deliveryId, { applicationId: 'app_2' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(resendDelivery(deps, delivered().deliveryId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(resendDelivery(deps, bare.deliveryId)).rejects.toThrow(/not kept by this stack's settings/);
    expect((await attempts.ofDelivery(bare.deliveryId))[0]!.resentAs).toBeUndefined();
  });
});
