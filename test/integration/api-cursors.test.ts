/**
 * Page cursors through the management HTTP API (docs/api.md "Paging"): what every paged route
 * hands out shows no table key or index name, and a forged, truncated, or another listing's or
 * application's cursor is a 400 `invalid_parameter` naming `cursor`, never a 500.
 */

import { attemptAt, id, parkedAt } from '../support/fixtures';
import { type ApiHarness, appPath, startApiHarness } from './helpers/api';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(() => h.close());

/** An application with two connections, each with 3 attempts and 3 parked deliveries. */
async function seeded() {
  const app = id('app');
  const token = await h.tokenFor(app);
  const connections: string[] = [];
  for (let c = 0; c < 2; c++) {
    const { connectionId } = await h.createVia(app, token);
    connections.push(connectionId);
    const t0 = Date.now() - 60_000;
    for (let i = 0; i < 3; i++) {
      await h.attemptLog.append(attemptAt(connectionId, app, t0 + i * 1_000));
      await h.parkedStore.park(parkedAt(connectionId, app, t0 + i * 1_000));
    }
  }
  return { app, token, connections };
}

/** The paged routes of an application, each with its first page of one item. */
const routes = (connectionId: string) => [
  '/connections',
  `/connections/${connectionId}/attempts`,
  `/connections/${connectionId}/parked`,
  '/failures',
  '/deliveries',
];

async function firstCursor(app: string, token: string, route: string): Promise<string> {
  const res = await h.call('GET', appPath(app, `${route}?limit=1`), { token });
  expect(res).toMatchObject({ status: 200, body: { nextCursor: expect.any(String) } });
  return res.body.nextCursor;
}

const refused = { status: 400, body: { error: { code: 'invalid_parameter', field: 'cursor' } } };

describe('management API: page cursors', () => {
  it('hands out cursors that name no table key, index or attribute, and that page on', async () => {
    const { app, token, connections } = await seeded();
    for (const route of routes(connections[0]!)) {
      const cursor = await firstCursor(app, token, route);
      const text = Buffer.from(cursor, 'base64url').toString('utf8');
      for (const name of [
        'connectionId',
        'applicationId',
        'deliveryId',
        '"sk"',
        'failedOn',
        'byApplication',
      ]) {
        expect({ route, text, has: text.includes(name) }).toEqual({ route, text, has: false });
      }
      const next = await h.call('GET', appPath(app, `${route}?limit=1&cursor=${cursor}`), { token });
      expect({ route, status: next.status, items: next.body.data.length }).toEqual({
        route,
        status: 200,
        items: 1,
      });
    }
  });

  it('refuses a forged or truncated cursor on every paged route with 400, never 500', async () => {
    const { app, token, connections } = await seeded();
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const route of routes(connections[0]!)) {
      const genuine = await firstCursor(app, token, route);
      const decoded = JSON.parse(Buffer.from(genuine, 'base64url').toString('utf8'));
      for (const cursor of [
        genuine.slice(0, -6),
        'not-a-cursor',
        forged({ connectionId: connections[0], sk: 'dlv_x#0001' }),
        forged({ ...decoded, v: 2 }),
        forged({ ...decoded, at: [] }),
        forged({ ...decoded, at: decoded.at.map(() => 'x'.repeat(300)) }),
        forged({ ...decoded, at: decoded.at.map(() => '\u0000') }),
        forged({ ...decoded, of: 'somewhere-else' }),
        encodeURIComponent('{"v":1}'),
      ]) {
        const res = await h.call('GET', appPath(app, `${route}?cursor=${cursor}`), { token });
        expect({ route, cursor, ...res }).toMatchObject({ route, cursor, ...refused });
      }
    }
  });

  it("refuses another application's cursor, and another connection's, by name", async () => {
    const mine = await seeded();
    const theirs = await seeded();
    const [a, b] = mine.connections as [string, string];
    const pairs: Array<[string, string]> = [
      ['/connections', '/connections'],
      [`/connections/${theirs.connections[0]}/attempts`, `/connections/${a}/attempts`],
      [`/connections/${theirs.connections[0]}/parked`, `/connections/${a}/parked`],
      ['/failures', '/failures'],
      [`/connections/${b}/attempts`, `/connections/${a}/attempts`],
      [`/connections/${b}/parked`, `/connections/${a}/parked`],
    ];
    for (const [from, to] of pairs) {
      const owner = from.includes(b) ? mine : theirs;
      const cursor = await firstCursor(owner.app, owner.token, from);
      const res = await h.call('GET', appPath(mine.app, `${to}?cursor=${cursor}`), { token: mine.token });
      expect({ from, to, ...res }).toMatchObject({ from, to, ...refused });
      expect(res.body.error.message).toBe('cursor: belongs to another listing');
    }
  });
});
