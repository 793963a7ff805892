/**
 * GET /applications/{id}/deliveries through the API on the emulators (docs/api.md "Deliveries"):
 * an application's deliveries across its connections, newest first, paged; found by user, event
 * and connection, outcome and time; each with where it stands now; refused by name when delivery
 * search is off.
 */

import type { AttemptRecord } from '../../lambdas/core/types';
import { attemptAt, id, parkedAt } from '../support/fixtures';
import { type ApiHarness, appPath, startApiHarness } from './helpers/api';

let h: ApiHarness;
let off: ApiHarness;
beforeAll(async () => {
  [h, off] = await Promise.all([startApiHarness(), startApiHarness({ deliverySearch: false })]);
});
afterAll(() => Promise.all([h.close(), off.close()]));

const MINUTE = 60_000;
const failed = { outcome: 'http_error', statusCode: 503, final: true } as const;

/**
 * Two connections; five deliveries a minute apart: delivered (usr_101), parked after its last
 * attempt (usr_202), retrying (usr_101), failed for good and not parked (usr_202), and one whose
 * final failure a recovery later delivered (usr_101).
 */
async function seeded() {
  const app = id('app');
  const token = await h.tokenFor(app);
  const [a, b] = [(await h.createVia(app, token)).connectionId, (await h.createVia(app, token)).connectionId];
  const t0 = Date.now() - 10 * MINUTE;
  const at = (i: number, con: string, user: string, fields: Partial<AttemptRecord> = {}) =>
    attemptAt(con, app, t0 + i * MINUTE, { userId: user, ...fields });
  const delivered = at(0, a, 'usr_101');
  const parked = at(1, b, 'usr_202', failed);
  const retrying = at(2, a, 'usr_101', { ...failed, final: false, nextAttemptAt: new Date().toISOString() });
  const dead = at(3, b, 'usr_202', failed);
  const recovered = at(4, a, 'usr_101', failed);
  for (const r of [delivered, parked, retrying, dead, recovered]) await h.attemptLog.append(r);
  const later = {
    ...recovered,
    attempt: 2,
    outcome: 'delivered',
    statusCode: 200,
    requestedAt: new Date(t0 + 5 * MINUTE).toISOString(),
  } as const;
  await h.attemptLog.append(later);
  await h.parkedStore.park(
    parkedAt(b, app, t0 + MINUTE, { deliveryId: parked.deliveryId, eventId: parked.eventId }),
  );
  return { app, token, a, b, delivered, parked, retrying, dead, recovered };
}

async function list(app: string, token: string, query = '') {
  const res = await h.call('GET', appPath(app, `/deliveries${query}`), { token });
  expect(res.status).toBe(200);
  return res.body as { data: Array<Record<string, unknown>>; nextCursor: string | null };
}
const ids = (page: { data: Array<Record<string, unknown>> }) => page.data.map((d) => d.deliveryId);

describe('management API: GET /deliveries', () => {
  it('lists every delivery of the application across its connections, newest first, with where each stands now', async () => {
    const s = await seeded();
    const page = await list(s.app, s.token);
    expect(ids(page)).toEqual(
      [s.recovered, s.dead, s.retrying, s.parked, s.delivered].map((r) => r.deliveryId),
    );
    expect(page.data.map((d) => d.state)).toEqual([
      'delivered',
      'dead_lettered',
      'retrying',
      'parked',
      'delivered',
    ]);
    expect(page.data[0]).toMatchObject({
      connectionId: s.a,
      userId: 'usr_101',
      eventId: s.recovered.eventId,
      attempts: 2,
      outcome: 'delivered',
      firstAttemptAt: s.recovered.requestedAt,
    });
    // Paged: two at a time, the same deliveries in the same order.
    const paged: unknown[] = [];
    let cursor: string | null = null;
    do {
      const next = await list(s.app, s.token, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(next.data.length).toBeLessThanOrEqual(2);
      paged.push(...ids(next));
      cursor = next.nextCursor;
    } while (cursor);
    expect(paged).toEqual(ids(page));
  });

  it('finds a delivery by user id, event id and connection, and filters by outcome and time', async () => {
    const s = await seeded();
    expect(ids(await list(s.app, s.token, '?userId=usr_101'))).toEqual(
      [s.recovered, s.retrying, s.delivered].map((r) => r.deliveryId),
    );
    expect(ids(await list(s.app, s.token, `?eventId=${s.dead.eventId}`))).toEqual([s.dead.deliveryId]);
    expect(ids(await list(s.app, s.token, `?userId=usr_202&connectionId=${s.a}`))).toEqual([]);
    expect(ids(await list(s.app, s.token, `?connectionId=${s.b}`))).toEqual([
      s.dead.deliveryId,
      s.parked.deliveryId,
    ]);
    expect(ids(await list(s.app, s.token, '?outcome=http_error'))).toEqual(
      [s.dead, s.retrying, s.parked].map((r) => r.deliveryId),
    );
    const window = `?since=${s.parked.requestedAt}&until=${s.dead.requestedAt}`;
    expect(ids(await list(s.app, s.token, window))).toEqual([s.retrying.deliveryId, s.parked.deliveryId]);
    // Another application's user of the same id, and its connection, are not this one's.
    const other = id('app');
    const otherToken = await h.tokenFor(other);
    expect(ids(await list(other, otherToken, '?userId=usr_101'))).toEqual([]);
    const res = await h.call('GET', appPath(other, `/deliveries?connectionId=${s.a}`), { token: otherToken });
    expect(res.status).toBe(404);
  });

  it('refuses a malformed id by name, and a search by user or event when delivery search is off', async () => {
    const s = await seeded();
    const bad = await h.call('GET', appPath(s.app, '/deliveries?userId=101'), { token: s.token });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter' } } });
    const token = await off.tokenFor(s.app);
    for (const query of ['?userId=usr_101', `?eventId=${s.dead.eventId}`]) {
      const res = await off.call('GET', appPath(s.app, `/deliveries${query}`), { token });
      expect(res).toMatchObject({ status: 422, body: { error: { code: 'validation_failed' } } });
      expect(res.body.error.message).toMatch(/delivery search is off/);
    }
    // The list without them still answers.
    const all = await off.call('GET', appPath(s.app, '/deliveries'), { token });
    expect(all.body.data).toHaveLength(5);
  });
});
