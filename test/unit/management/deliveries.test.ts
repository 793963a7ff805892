/**
 * Where a delivery stands now (management/deliveries.ts), which keeps `attempts failures` and the
 * deliveries list truthful: a final failure that a later attempt delivered reads delivered; one
 * queued again (a recovery or Resend marked it) reads retrying until its next attempt is logged.
 */

import type { AttemptRecord } from '../../../lambdas/core/types';
import { WebhookManagement } from '../../../lambdas/management';
import { stateOf } from '../../../lambdas/management/deliveries';
import { attemptAt, connection, id, parkedAt } from '../../support/fixtures';
import { MEMORY_RESOURCES, memoryBackend } from '../../support/memory/backend';

const failed = { outcome: 'http_error', statusCode: 503, final: true } as const;
const record = (fields: Partial<AttemptRecord> = {}) => attemptAt('con_1', 'app_1', Date.now(), fields);

describe('stateOf', () => {
  it('reads where a delivery stands from its last attempt, and the parked table only after a final failure', () => {
    expect(stateOf([record(failed), record({ attempt: 2 })], false)).toBe('delivered');
    expect(stateOf([record({ ...failed, final: false })], false)).toBe('retrying');
    expect(stateOf([record({ ...failed, resentAs: 2 })], false)).toBe('retrying');
    expect(stateOf([record(failed)], true)).toBe('parked');
    expect(stateOf([record(failed)], false)).toBe('dead_lettered');
    expect(stateOf([record({ ...failed, test: true })], false)).toBe('failed');
  });
});

describe('Deliveries.failuresNow', () => {
  it('says a final failure a later recovery delivered is delivered, and a parked one parked', async () => {
    const parts = memoryBackend();
    const app = id('app');
    const con = id('con');
    await parts.connections.create(connection(con, { applicationId: app }));
    const recovered = attemptAt(con, app, Date.now() - 60_000, { ...failed, attempt: 4 });
    const parked = attemptAt(con, app, Date.now() - 30_000, { ...failed, attempt: 4 });
    for (const r of [recovered, { ...recovered, attempt: 5, outcome: 'delivered' as const }, parked])
      await parts.attempts.append(r);
    await parts.parked.park(parkedAt(con, app, Date.now() - 30_000, { deliveryId: parked.deliveryId }));
    const management = new WebhookManagement({ resources: MEMORY_RESOURCES, backend: parts.backend });
    const failures = await management.attempts.finalFailures({ days: 2, limit: 10 });
    const now = await management.deliveries.failuresNow(failures);
    expect(Object.fromEntries(now.map((f) => [f.deliveryId, f.now]))).toEqual({
      [recovered.deliveryId]: 'delivered',
      [parked.deliveryId]: 'parked',
    });
  });
});
