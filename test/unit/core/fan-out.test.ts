/** createFanOut on its own: an event's targets, one delivery each, failures kept to their delivery. */

import { type Attempter, createAttempter, type Run } from '../../../lambdas/core/attempt';
import { InfrastructureError } from '../../../lambdas/core/errors';
import { createFanOut } from '../../../lambdas/core/fan-out';
import { deliveryIdFor } from '../../../lambdas/core/ids';
import { createSettler } from '../../../lambdas/core/settle';
import type { Target } from '../../../lambdas/core/targets';
import type {
  AttemptRecord,
  Connection,
  DeliveryMessage,
  EventFacts,
  EventMessage,
} from '../../../lambdas/core/types';
import { connection } from '../../support/fixtures';
import { memoryPorts } from '../../support/memory';

const EVENT_ID = 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7';
const OCCURRED_AT = '2026-11-21T14:53:00.123Z';
const BODY = '{"event":"user.identified","application":{"id":"app_1","name":"Acme"}}';
const facts: EventFacts = { applicationId: 'app_1', userId: 'usr_7', event: 'user.identified' };
const run: Run = { remainingMs: () => 90_000, debugLines: false };

function event(connectionIds?: string[]): EventMessage {
  return {
    v: 1,
    type: 'event',
    eventId: EVENT_ID,
    event: 'user.identified',
    occurredAt: OCCURRED_AT,
    user: { id: 'usr_7' },
    application: { id: 'app_1', name: 'Acme' },
    ...(connectionIds ? { connectionIds } : {}),
  };
}

/** An attempter that keeps what it was handed; `failFor` connections throw as infrastructure would. */
function recordingAttempter(failFor: string[] = []) {
  const calls: Array<{ delivery: DeliveryMessage; target: Target }> = [];
  const attempter: Attempter = {
    async deliverTo(delivery, target) {
      calls.push({ delivery, target });
      if (failFor.includes(target.id))
        throw new InfrastructureError('secrets.current', { connectionId: target.id });
      return {} as AttemptRecord;
    },
    async refuse() {
      throw new Error('fan-out refuses through deliverTo, never refuse()');
    },
    inFlight: () => ({ now: 0, peak: 0 }),
  };
  return { attempter, calls };
}

function setup(connections: Connection[], failFor: string[] = []) {
  const f = memoryPorts(connections);
  const { attempter, calls } = recordingAttempter(failFor);
  return { ...f, calls, fanOut: createFanOut(f.deps, attempter) };
}

describe('an event to an application', () => {
  it('makes one delivery per enabled webhook connection: distinct ids, the same body', async () => {
    const { fanOut, calls, state } = setup([
      connection('con_a'),
      connection('con_b'),
      connection('con_off', { enabled: false }),
      connection('con_other', { applicationId: 'app_2' }),
    ]);
    await fanOut(event(), BODY, facts, run);
    const deliveries = calls
      .map((c) => c.delivery)
      .sort((x, y) => x.connectionId.localeCompare(y.connectionId));
    expect(deliveries.map((d) => d.connectionId)).toEqual(['con_a', 'con_b']);
    const occurredAtMs = Date.parse(OCCURRED_AT);
    expect(deliveries.map((d) => d.deliveryId)).toEqual([
      deliveryIdFor(EVENT_ID, 'con_a', occurredAtMs),
      deliveryIdFor(EVENT_ID, 'con_b', occurredAtMs),
    ]);
    expect(new Set(deliveries.map((d) => d.deliveryId)).size).toBe(2);
    for (const d of deliveries) {
      expect(d).toEqual({
        v: 1,
        type: 'delivery',
        deliveryId: expect.any(String),
        eventId: EVENT_ID,
        connectionId: d.connectionId,
        attempt: 1,
        chainStart: 1,
        body: BODY,
        firstAttemptAt: new Date(state.now).toISOString(),
      });
    }
    expect(calls.every((c) => c.target.refusal === undefined)).toBe(true);
  });

  it('without claims (de-duplication off) sends the same event again when it comes round, under the same delivery ids', async () => {
    const f = memoryPorts([connection('con_a'), connection('con_b')]);
    const { attempter, calls } = recordingAttempter();
    const fanOut = createFanOut({ ...f.deps, claims: undefined }, attempter);
    await fanOut(event(), BODY, facts, run);
    await fanOut(event(), BODY, facts, run);
    const ids = calls.map((c) => c.delivery.deliveryId);
    expect(new Set(ids).size).toBe(2);
    expect(ids).toHaveLength(4);
  });

  it('keeps a connection that health disabled as a target, refused connection_disabled (parked, not lost)', async () => {
    const disabled = connection('con_sick', {
      enabled: false,
      health: { state: 'disabled' } as Connection['health'],
    });
    const { fanOut, calls } = setup([disabled]);
    await fanOut(event(), BODY, facts, run);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.target.refusal?.[0]).toBe('connection_disabled');
  });

  it('does not read a stored "true" string as enabled', async () => {
    const { fanOut, calls } = setup([connection('con_a', { enabled: 'true' as unknown as boolean })]);
    await fanOut(event(), BODY, facts, run);
    expect(calls).toEqual([]);
  });
});

describe('explicit connectionIds', () => {
  it('targets only the listed connections', async () => {
    const { fanOut, calls } = setup([connection('con_a'), connection('con_b')]);
    await fanOut(event(['con_b']), BODY, facts, run);
    expect(calls.map((c) => c.target.id)).toEqual(['con_b']);
  });

  it('refuses a listed connection of another application as connection_invalid, without its record', async () => {
    const { fanOut, calls } = setup([connection('con_x', { applicationId: 'app_2' })]);
    await fanOut(event(['con_x']), BODY, facts, run);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.target).toEqual({
      id: 'con_x',
      refusal: ['connection_invalid', expect.stringContaining('another application')],
      foreign: true,
    });
  });

  it('with the real attempter and settler: sends nothing and writes no record under the other application', async () => {
    const f = memoryPorts([connection('con_x', { applicationId: 'app_2' })]);
    const settler = createSettler(f.deps, { attemptTtlDays: 30, deliveredTtlDays: 30 });
    const attempter = createAttempter(f.deps, settler, {
      headerPrefix: 'X-Service',
      timeoutMs: 30_000,
      concurrency: 4,
      egress: { allowedPorts: [443], allowLoopback: false },
    });
    await createFanOut(f.deps, attempter)(event(['con_x']), BODY, facts, run);
    expect(f.state.sent).toEqual([]);
    expect(f.state.records).toEqual([]);
    expect(f.state.deadLetters).toEqual([expect.objectContaining({ reason: 'connection_invalid' })]);
  });

  it('refuses a listed connection that does not exist as connection_missing', async () => {
    const { fanOut, calls } = setup([]);
    await fanOut(event(['con_gone']), BODY, facts, run);
    expect(calls[0]!.target.refusal?.[0]).toBe('connection_missing');
  });
});

describe('no connection', () => {
  it('logs that there is nothing to deliver, and delivers nothing', async () => {
    const { fanOut, calls, state } = setup([connection('con_off', { enabled: false })]);
    await fanOut(event(), BODY, facts, run);
    expect(calls).toEqual([]);
    expect(state.scheduled).toEqual([]);
    expect(state.logs).toContainEqual({
      level: 'info',
      message: expect.stringContaining('nothing to deliver'),
      fields: { eventId: EVENT_ID, applicationId: 'app_1' },
    });
  });
});

describe('infrastructure failures', () => {
  it('hands a failing delivery back to the retry queue alone; the others are still attempted', async () => {
    const { fanOut, calls, state } = setup(
      [connection('con_a'), connection('con_b'), connection('con_c')],
      ['con_b'],
    );
    await expect(fanOut(event(), BODY, facts, run)).resolves.toBeUndefined();
    expect(calls.map((c) => c.target.id).sort()).toEqual(['con_a', 'con_b', 'con_c']);
    expect(state.scheduled).toEqual([
      { delivery: expect.objectContaining({ connectionId: 'con_b', attempt: 1 }), delaySeconds: 0 },
    ]);
  });

  it('fails the event when a failing delivery cannot be handed back either, after attempting the others', async () => {
    const { fanOut, calls, state } = setup([connection('con_a'), connection('con_b')], ['con_a']);
    state.fail.add('scheduler');
    await expect(fanOut(event(), BODY, facts, run)).rejects.toMatchObject({
      name: 'InfrastructureError',
      operation: 'scheduler.schedule',
    });
    expect(calls.map((c) => c.target.id).sort()).toEqual(['con_a', 'con_b']);
  });

  it('fails with an InfrastructureError when the connections cannot be read', async () => {
    const { fanOut, calls, state } = setup([connection('con_a')]);
    state.fail.add('connections');
    await expect(fanOut(event(), BODY, facts, run)).rejects.toBeInstanceOf(InfrastructureError);
    expect(calls).toEqual([]);
  });
});
