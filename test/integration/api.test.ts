/**
 * The management HTTP API against the emulators, over real HTTP on loopback: every route,
 * the error shape, paging, stats, and the authorisation matrix (no token, tampered token,
 * expired token, another application's token, another application's ids).
 */

import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../cli/main';
import type { DynamoAttempts } from '../../lambdas/adapters/dynamodb/attempts';
import type { DynamoParked } from '../../lambdas/adapters/dynamodb/parked';
import { apiDocument } from '../../lambdas/api/openapi';
import type { ParkedItem } from '../../lambdas/core/parking';
import type { AttemptRecord, Outcome } from '../../lambdas/core/types';
import { WebhookManagement, type WebhookResources } from '../../lambdas/management';
import { mintSessionToken } from '../../lambdas/management/console-session';
import { verifyWebhook } from '../../lambdas/receiver';
import { type LocalApi, startLocalApi } from '../../local/api-server';
import { attemptAt, id, parkedAt } from '../support/fixtures';
import type { Receiver } from '../support/receivers';
import { type ApiHarness, appPath, startApiHarness } from './helpers/api';

let h: ApiHarness;
let receiver: Receiver;
let management: WebhookManagement;
let api: LocalApi;
let key: Uint8Array;
let attemptLog: DynamoAttempts;
let parkedStore: DynamoParked;
let resources: WebhookResources;
let consoleDir: string;

beforeAll(async () => {
  h = await startApiHarness();
  ({ receiver, management, api, key, attemptLog, parkedStore, resources, consoleDir } = h);
});
afterAll(() => h.close());

const call: ApiHarness['call'] = (...args) => h.call(...args);
const tokenFor: ApiHarness['tokenFor'] = (applicationId) => h.tokenFor(applicationId);
const createVia: ApiHarness['createVia'] = (...args) => h.createVia(...args);
const record = attemptAt;

describe('management API: the routes a console uses', () => {
  it('adds a connection, shows its secret, sends a signed test, rotates, edits, reads the log, deletes', async () => {
    const app = id('app');
    const token = await tokenFor(app);

    const empty = await call('GET', appPath(app, '/connections'), { token });
    expect(empty).toMatchObject({ status: 200, body: { data: [], nextCursor: null } });

    const created = await call('POST', appPath(app, '/connections'), {
      token,
      json: { name: 'CRM', url: receiver.url, method: 'PUT', headers: { 'X-Api-Key': 'k-123456' } },
    });
    expect(created.status).toBe(201);
    const con = created.body;
    expect(con).toMatchObject({
      applicationId: app,
      name: 'CRM',
      method: 'PUT',
      enabled: true,
      type: 'webhook',
    });
    expect(con.headers).toEqual({ 'X-Api-Key': '[hidden]' });
    expect(created.text).not.toContain('k-123456');
    expect(con).not.toHaveProperty('secretArn');
    expect(created.headers.get('location')).toBe(appPath(app, `/connections/${con.connectionId}`));

    const listed = await call('GET', appPath(app, '/connections'), { token });
    expect(listed.body.data.map((c: { connectionId: string }) => c.connectionId)).toEqual([con.connectionId]);
    expect((await call('GET', appPath(app, `/connections/${con.connectionId}`), { token })).body).toEqual(
      con,
    );

    const { secret } = (await call('GET', appPath(app, `/connections/${con.connectionId}/secret`), { token }))
      .body;
    expect(secret).toMatch(/^whsec_/);

    // Edit: keep the stored header value with null, rename, then Send Test.
    const patched = await call('PATCH', appPath(app, `/connections/${con.connectionId}`), {
      token,
      json: { name: 'CRM v2', headers: { 'X-Api-Key': null, 'X-Tenant': 'acme' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'CRM v2',
      headers: { 'X-Api-Key': '[hidden]', 'X-Tenant': '[hidden]' },
    });

    const before = receiver.requests.length;
    const sent = await call('POST', appPath(app, `/connections/${con.connectionId}/test`), { token });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ outcome: 'delivered', statusCode: 200, test: true, final: true });
    const req = receiver.requests[before]!;
    expect(req.method).toBe('PUT');
    expect(req.headers['x-api-key']).toBe('k-123456');
    expect(req.headers['x-tenant']).toBe('acme');
    expect(() => verifyWebhook({ rawBody: req.body, headers: req.headers, secret })).not.toThrow();

    const rotated = await call('POST', appPath(app, `/connections/${con.connectionId}/secret/rotate`), {
      token,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    // The old secret keeps signing for the stack's overlap (24 hours by default).
    expect(Date.parse(rotated.body.switchAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const second = await call('POST', appPath(app, `/connections/${con.connectionId}/test`), { token });
    const req2 = receiver.requests[before + 1]!;
    expect(() => verifyWebhook({ rawBody: req2.body, headers: req2.headers, secret })).not.toThrow();

    const log = await call('GET', appPath(app, `/connections/${con.connectionId}/attempts`), { token });
    expect(log.body.data.map((a: AttemptRecord) => a.deliveryId)).toEqual([
      second.body.deliveryId,
      sent.body.deliveryId,
    ]);
    const delivery = await call('GET', appPath(app, `/deliveries/${sent.body.deliveryId}`), { token });
    expect(delivery.body).toMatchObject({
      deliveryId: sent.body.deliveryId,
      connectionId: con.connectionId,
      attempts: [expect.objectContaining({ attempt: 1, outcome: 'delivered' })],
    });
    const stats = await call('GET', appPath(app, `/connections/${con.connectionId}/stats?bucket=1h`), {
      token,
    });
    expect(stats.body.totals).toMatchObject({
      total: 2,
      outcomes: expect.objectContaining({ delivered: 2 }),
    });

    const disabled = await call('PATCH', appPath(app, `/connections/${con.connectionId}`), {
      token,
      json: { enabled: false },
    });
    expect(disabled.body.enabled).toBe(false);

    expect((await call('DELETE', appPath(app, `/connections/${con.connectionId}`), { token })).status).toBe(
      204,
    );
    expect((await call('GET', appPath(app, `/connections/${con.connectionId}`), { token })).status).toBe(404);
    await expect(management.connections.showSecret(con.connectionId)).rejects.toThrow(/does not exist/);
  });

  it('serves its OpenAPI document without a token, equal to the checked definitions', async () => {
    const doc = await call('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('serves an index at /api/v1 without a token: the document, the console and where each resource lives', async () => {
    const index = await call('GET', '/api/v1');
    expect(index.status).toBe(200);
    expect(index.body).toMatchObject({
      openapi: '/api/v1/openapi.json',
      console: '/console/',
      routes: { connections: '/api/v1/applications/{applicationId}/connections' },
    });
    expect(index.body.authentication).toContain('Bearer');
    expect((await call('GET', index.body.openapi)).status).toBe(200);
  });

  it('answers a created connection with its Location, which reads it back', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const created = await call('POST', appPath(app, '/connections'), {
      token,
      json: { name: 'located', url: receiver.url },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toBe(appPath(app, `/connections/${created.body.connectionId}`));
    const read = await call('GET', location, { token });
    expect(read.body).toMatchObject({ connectionId: created.body.connectionId, name: 'located' });
  });

  it('serves the console with a strict Content-Security-Policy, and a 503 page when it is not built', async () => {
    const page = await call('GET', '/console/');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await call('GET', '/console/app.js')).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await call('GET', '/console/../package.json')).status).toBe(404);
    expect((await call('GET', '/console/secrets.json')).status).toBe(404);
    expect((await call('GET', '/console')).status).toBe(301);

    const bare = await startLocalApi({ management, port: 0, consoleDir: join(consoleDir, 'missing') });
    try {
      const res = await fetch(`${bare.origin}/console/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build:console');
    } finally {
      await bare.close();
    }
  });
});

describe('management API: rotations at the same moment', () => {
  it('orders 20 concurrent rotations into one chain: no two win from the same secret, the rest answer 409', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const con = await createVia(app, token);
    const first = await call('GET', appPath(app, `/connections/${con.connectionId}/secret`), { token });
    const path = appPath(app, `/connections/${con.connectionId}/secret/rotate`);
    // At once (switchAfter: 0), so each winner's secret is the one the next rotation replaces.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', path, { token, json: { switchAfter: 0 } })),
    );
    const won = answers.filter((a) => a.status === 200).map((a) => a.body);
    const lost = answers.filter((a) => a.status === 409);
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(won.length + lost.length).toBe(20);
    for (const answer of lost) {
      expect(answer.body.error).toEqual({
        code: 'conflict',
        message: expect.stringContaining('rotated meanwhile'),
      });
    }
    // Each winner replaced the version the one before it made: a single chain from the first.
    const after = new Map(won.map((w) => [w.previousVersion as string, w]));
    expect(after.size).toBe(won.length);
    let version = first.body.secretVersion as string;
    let last: { secret: string; secretVersion: string } | undefined;
    let links = 0;
    for (let next = after.get(version); next; next = after.get(version)) {
      last = next;
      version = next.secretVersion;
      links++;
    }
    expect(links).toBe(won.length);
    const shown = await call('GET', appPath(app, `/connections/${con.connectionId}/secret`), { token });
    expect(shown.body).toEqual({ secret: last!.secret, secretVersion: last!.secretVersion });
    const before = receiver.requests.length;
    await call('POST', appPath(app, `/connections/${con.connectionId}/test`), { token });
    const req = receiver.requests[before]!;
    expect(() =>
      verifyWebhook({ rawBody: req.body, headers: req.headers, secret: last!.secret }),
    ).not.toThrow();
  });

  it('answers a rotation racing a delete 404, never 500', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const con = await createVia(app, token);
    const rotations = Array.from({ length: 5 }, () =>
      call('POST', appPath(app, `/connections/${con.connectionId}/secret/rotate`), { token }),
    );
    const deleted = await call('DELETE', appPath(app, `/connections/${con.connectionId}`), { token });
    expect(deleted.status).toBe(204);
    const statuses = (await Promise.all(rotations)).map((a) => a.status);
    expect(statuses.every((s) => [200, 404, 409].includes(s))).toBe(true);
    const after = await call('POST', appPath(app, `/connections/${con.connectionId}/secret/rotate`), {
      token,
    });
    expect(after.status).toBe(404);
  });
});

describe('management API: errors', () => {
  let app: string;
  let token: string;
  let connectionId: string;
  beforeAll(async () => {
    app = id('app');
    token = await tokenFor(app);
    connectionId = (await createVia(app, token, { headers: { Authorization: 'Bearer s3cr3t-value' } }))
      .connectionId;
  });

  it.each([
    [{ url: 'http://example.com/hooks' }, 'url'],
    [{ url: 'https://10.0.0.5/hooks' }, 'url'],
    [{ url: 'https://169.254.169.254/latest' }, 'url'],
    [{ url: 'https://example.com:8443/hooks' }, 'url'],
    [{ url: 'https://user:pw@example.com/hooks' }, 'url'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ method: 'GET' }, 'method'],
    [{ headers: { 'X-Service-Signature': 'forged' } }, 'headers.X-Service-Signature'],
    [{ headers: { Host: 'evil.example' } }, 'headers.Host'],
    [{ headers: { 'X-Ok': 5 } }, 'headers.X-Ok'],
    [{ colour: 'red' }, 'colour'],
    [{ rateLimit: 0 }, 'rateLimit'],
    [{ rateLimit: 10_001 }, 'rateLimit'],
    [{ rateLimit: 2.5 }, 'rateLimit'],
    [{ rateLimit: '50' }, 'rateLimit'],
  ])(
    'refuses a bad connection with 422 and names the field (%#), creating nothing',
    async (override, field) => {
      const res = await call('POST', appPath(app, '/connections'), {
        token,
        json: { name: 'x', url: receiver.url, ...override },
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: { code: 'validation_failed', message: expect.any(String), field } });
      const list = await call('GET', appPath(app, '/connections'), { token });
      expect(list.body.data).toHaveLength(1);
    },
  );

  it.each([
    ['POST', '/connections', '{"name":"x","url":"URL","headers":{"__proto__":"x"}}'],
    ['PATCH', '/connections/ID', '{"headers":{"__proto__":"x"}}'],
  ])(
    'refuses a header named __proto__ by name on %s (it would vanish in a copy), changing nothing',
    async (method, rest, raw) => {
      const res = await call(method, appPath(app, rest.replace('ID', connectionId)), {
        token,
        raw: raw.replace('URL', receiver.url),
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: {
          code: 'validation_failed',
          message: expect.stringContaining('reserved name'),
          field: 'headers.__proto__',
        },
      });
      const list = await call('GET', appPath(app, '/connections'), { token });
      expect(list.body.data).toHaveLength(1);
    },
  );

  it.each([
    ['POST', '/connections'],
    ['PATCH', '/connections/ID'],
    ['POST', '/connections/ID/recover'],
  ])(
    'answers 422, not 500, for a body nested 8,000 deep on %s %s (walked without recursion)',
    async (method, rest) => {
      const deep = `${'['.repeat(8_000)}${']'.repeat(8_000)}`;
      for (const raw of [deep, `{"headers":{"a":${deep}}}`]) {
        const res = await call(method, appPath(app, rest.replace('ID', connectionId)), { token, raw });
        expect(res.status).toBe(422);
        expect(res.body.error).toEqual({
          code: 'validation_failed',
          message: 'the request body nests deeper than 16 levels of objects and arrays',
        });
      }
      const list = await call('GET', appPath(app, '/connections'), { token });
      expect(list.body.data).toHaveLength(1);
    },
  );

  it('never echoes a custom header value, even the bad one it refuses', async () => {
    const res = await call('PATCH', appPath(app, `/connections/${connectionId}`), {
      token,
      json: { headers: { 'X-Token': 'top-secret-value\r\nInjected: 1' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.field).toBe('headers.X-Token');
    expect(res.text).not.toContain('top-secret-value');
    const read = await call('GET', appPath(app, `/connections/${connectionId}`), { token });
    expect(read.text).not.toContain('s3cr3t-value');
  });

  it('answers 400 for malformed JSON and for a body that is not JSON', async () => {
    const bad = await call('POST', appPath(app, '/connections'), { token, raw: '{"name": "x",' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
    const text = await call('POST', appPath(app, '/connections'), {
      token,
      raw: 'name=x',
      contentType: 'text/plain',
    });
    expect(text.status).toBe(400);
    const none = await call('PATCH', appPath(app, `/connections/${connectionId}`), { token });
    expect(none.status).toBe(400);
  });

  it('answers 413 for a body over 64 KiB', async () => {
    const res = await call('POST', appPath(app, '/connections'), {
      token,
      json: { name: 'x'.repeat(70_000), url: receiver.url },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('answers 400 naming the parameter for bad query values and forged cursors', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'outcome=lost',
      'since=yesterday',
      'final=maybe',
    ]) {
      const res = await call('GET', appPath(app, `/connections/${connectionId}/attempts?${query}`), {
        token,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.field).toBe(query.split('=')[0]);
    }
    for (const cursor of ['not-a-cursor', Buffer.from('{"evil":"x"}').toString('base64url')]) {
      const res = await call('GET', appPath(app, `/connections?cursor=${cursor}`), { token });
      expect(res).toMatchObject({ status: 400, body: { error: { field: 'cursor' } } });
    }
    const stats = await call(
      'GET',
      appPath(
        app,
        `/connections/${connectionId}/stats?bucket=1m&since=2026-01-01T00:00:00Z&until=2026-02-01T00:00:00Z`,
      ),
      { token },
    );
    expect(stats).toMatchObject({ status: 400, body: { error: { field: 'bucket' } } });
  });

  it('takes since as an ISO time or a duration on every route that takes it, and refuses the rest alike', async () => {
    const queries = ['attempts?since=', 'stats?bucket=1d&since=', 'parked?since='];
    const path = (query: string, since: string) =>
      appPath(app, `/connections/${connectionId}/${query}${encodeURIComponent(since)}`);
    for (const query of queries) {
      for (const since of ['1h', '30m', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00+01:00', '2026-01-01']) {
        expect({ query, since, status: (await call('GET', path(query, since), { token })).status }).toEqual({
          query,
          since,
          status: 200,
        });
      }
      for (const since of ['yesterday', '2026-01-01T00:00', '1y']) {
        expect(await call('GET', path(query, since), { token })).toMatchObject({
          status: 400,
          body: { error: { code: 'invalid_parameter', field: 'since' } },
        });
      }
    }
    const before = Date.now();
    const stats = await call('GET', path('stats?bucket=5m&since=', '1h'), { token });
    expect(Date.parse(stats.body.since)).toBeGreaterThanOrEqual(before - 3_600_000 - 1_000);
    expect(Date.parse(stats.body.since)).toBeLessThanOrEqual(Date.now() - 3_600_000);
    expect(stats.body.bucketSeconds).toBe(300);
  });

  it('takes until as since does: a duration back from now or an ISO time, and refuses the rest alike', async () => {
    const path = (query: string) => appPath(app, `/connections/${connectionId}/${query}`);
    const before = Date.now();
    const stats = await call('GET', path('stats?bucket=5m&since=3h&until=1h'), { token });
    expect(stats.status).toBe(200);
    expect(Date.parse(stats.body.until)).toBeGreaterThanOrEqual(before - 3_600_000 - 1_000);
    expect(Date.parse(stats.body.until)).toBeLessThanOrEqual(Date.now() - 3_600_000);
    expect(Date.parse(stats.body.until) - Date.parse(stats.body.since)).toBe(2 * 3_600_000);
    const twoHoursAgo = record(connectionId, app, Date.now() - 2 * 3_600_000);
    const justNow = record(connectionId, app, Date.now() - 1_000);
    for (const r of [twoHoursAgo, justNow]) await attemptLog.append(r);
    const ids = async (query: string) =>
      (await call('GET', path(query), { token })).body.data.map((a: AttemptRecord) => a.deliveryId);
    expect(await ids('attempts?until=1h')).toEqual([twoHoursAgo.deliveryId]);
    expect(await ids('attempts?since=1h&until=0s')).toEqual([justNow.deliveryId]);
    for (const query of ['attempts?until=', 'stats?until=']) {
      expect(await call('GET', path(`${query}yesterday`), { token })).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_parameter', field: 'until' } },
      });
    }
  });

  it('sets a rate limit at create, changes it, and clears it with null; a bad one is refused by name', async () => {
    const created = await call('POST', appPath(app, '/connections'), {
      token,
      json: { name: 'limited', url: receiver.url, rateLimit: 50 },
    });
    expect(created).toMatchObject({ status: 201, body: { rateLimit: 50 } });
    const path = appPath(app, `/connections/${created.body.connectionId}`);
    expect((await call('PATCH', path, { token, json: { name: 'renamed' } })).body.rateLimit).toBe(50);
    expect((await call('PATCH', path, { token, json: { rateLimit: 20 } })).body.rateLimit).toBe(20);
    const bad = await call('PATCH', path, { token, json: { rateLimit: 0 } });
    expect(bad).toMatchObject({ status: 422, body: { error: { field: 'rateLimit' } } });
    // Above the operator's ceiling (1,000 here): refused at create and at update, saying why.
    for (const [method, target] of [
      ['PATCH', path],
      ['POST', appPath(app, '/connections')],
    ] as const) {
      const over = await call(method, target, {
        token,
        json: { ...(method === 'POST' ? { name: 'greedy', url: receiver.url } : {}), rateLimit: 5_000 },
      });
      expect(over).toMatchObject({ status: 422, body: { error: { field: 'rateLimit' } } });
      expect(over.body.error.message).toContain(
        "at most 1,000 deliveries per second: the ceiling this deployment's operator set",
      );
    }
    expect((await call('GET', path, { token })).body.rateLimit).toBe(20);
    const cleared = await call('PATCH', path, { token, json: { rateLimit: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('rateLimit');
    expect((await call('GET', path, { token })).body).not.toHaveProperty('rateLimit');
    await call('DELETE', path, { token });
  });

  it('refuses to keep (null) a header the connection does not have', async () => {
    const res = await call('PATCH', appPath(app, `/connections/${connectionId}`), {
      token,
      json: { headers: { 'X-Unknown': null } },
    });
    expect(res).toMatchObject({ status: 422, body: { error: { field: 'headers.X-Unknown' } } });
  });

  it('answers 404 in the error shape for unknown routes and ids', async () => {
    expect((await call('GET', appPath(app, '/nothing'), { token })).body.error.code).toBe('not_found');
    expect((await call('GET', appPath(app, '/connections/con_NOPE'), { token })).status).toBe(404);
    expect((await call('GET', appPath(app, '/connections/not-an-id'), { token })).status).toBe(404);
    expect((await call('GET', appPath(app, '/deliveries/dlv_x'), { token })).status).toBe(404);
  });
});

describe('management API: paging and filters', () => {
  it('pages connections with limit and cursor, oldest first, each once', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createVia(app, token, { name: `c${i}` })).connectionId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const res = await call('GET', appPath(app, `/connections${q}`), { token });
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((c: { connectionId: string }) => c.connectionId));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(made);
  });

  it('pages the attempt log newest first and filters by outcome, final, since and until', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const { connectionId } = await createVia(app, token);
    const t0 = Date.now() - 3_600_000;
    const outcomes: Outcome[] = [
      'delivered',
      'http_error',
      'delivered',
      'timeout',
      'delivered',
      'http_error',
      'delivered',
    ];
    const seeded = outcomes.map((outcome, i) =>
      record(connectionId, app, t0 + i * 60_000, {
        outcome,
        final: outcome === 'delivered' || i === 5,
        statusCode: outcome === 'delivered' ? 200 : 500,
      }),
    );
    for (const r of seeded) await attemptLog.append(r);
    const newestFirst = [...seeded].reverse().map((r) => r.deliveryId);

    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=3&cursor=${cursor}` : '?limit=3';
      const res = await call('GET', appPath(app, `/connections/${connectionId}/attempts${q}`), { token });
      all.push(...res.body.data.map((a: AttemptRecord) => a.deliveryId));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(all).toEqual(newestFirst);

    const ids = async (query: string) =>
      (
        await call('GET', appPath(app, `/connections/${connectionId}/attempts?${query}`), { token })
      ).body.data.map((a: AttemptRecord) => a.deliveryId);
    expect(await ids('outcome=http_error')).toEqual([seeded[5]!.deliveryId, seeded[1]!.deliveryId]);
    expect(await ids('final=false')).toEqual([seeded[3]!.deliveryId, seeded[1]!.deliveryId]);
    const since = new Date(t0 + 4 * 60_000).toISOString();
    const until = new Date(t0 + 6 * 60_000).toISOString();
    expect(await ids(`since=${since}&until=${until}`)).toEqual([
      seeded[5]!.deliveryId,
      seeded[4]!.deliveryId,
    ]);
    // A filter matching one item per page still pages through to it.
    const filtered: string[] = [];
    cursor = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const res = await call(
        'GET',
        appPath(app, `/connections/${connectionId}/attempts?outcome=timeout&limit=1${q}`),
        {
          token,
        },
      );
      filtered.push(...res.body.data.map((a: AttemptRecord) => a.deliveryId));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(filtered).toEqual([seeded[3]!.deliveryId]);
  });
});

describe('management API: parked deliveries, retry and recover', () => {
  const parked = parkedAt;

  it("lists a connection's parked deliveries and the application's, newest first, paged, never with the body", async () => {
    const app = id('app');
    const other = id('app');
    const token = await tokenFor(app);
    const mine = (await createVia(app, token)).connectionId;
    const theirs = (await createVia(other, await tokenFor(other))).connectionId;
    const now = Date.now();
    const items = [0, 1, 2].map((i) => parked(mine, app, now - 10_000 + i * 1_000));
    for (const item of items) await parkedStore.park(item);
    await parkedStore.park(parked(theirs, other, now - 5_000, { reason: 'connection_disabled' }));

    const first = await call('GET', appPath(app, `/connections/${mine}/parked?limit=2`), { token });
    expect(first.status).toBe(200);
    expect(first.body.data.map((p: ParkedItem) => p.deliveryId)).toEqual([
      items[2]!.deliveryId,
      items[1]!.deliveryId,
    ]);
    expect(first.body.data[0]).toMatchObject({ reason: 'exhausted', lastStatusCode: 503, attempts: 4 });
    expect(first.text).not.toContain('"body"');
    const rest = await call(
      'GET',
      appPath(app, `/connections/${mine}/parked?limit=2&cursor=${first.body.nextCursor}`),
      { token },
    );
    expect(rest.body).toEqual({
      data: [expect.objectContaining({ deliveryId: items[0]!.deliveryId })],
      nextCursor: null,
    });

    const failures = await call('GET', appPath(app, '/failures'), { token });
    expect(failures.body.data.map((p: ParkedItem) => p.deliveryId)).toEqual(
      [...items].reverse().map((i) => i.deliveryId),
    );
    const since = await call(
      'GET',
      appPath(app, `/connections/${mine}/parked?since=${new Date(now - 8_500).toISOString()}`),
      {
        token,
      },
    );
    expect(since.body.data).toHaveLength(1);
  });

  it('refuses a cursor of another listing by name, and a bad since', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const a = (await createVia(app, token)).connectionId;
    const b = (await createVia(app, token)).connectionId;
    const now = Date.now();
    for (const i of [0, 1]) await parkedStore.park(parked(a, app, now - 5_000 + i));
    const page = await call('GET', appPath(app, `/connections/${a}/parked?limit=1`), { token });
    const foreign = await call(
      'GET',
      appPath(app, `/connections/${b}/parked?cursor=${page.body.nextCursor}`),
      {
        token,
      },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_parameter', field: 'cursor' });
    const badSince = await call('GET', appPath(app, `/connections/${a}/parked?since=yesterday`), { token });
    expect(badSince.status).toBe(400);
    expect(badSince.body.error.field).toBe('since');
  });

  it('retries one parked delivery once: it leaves the parked list and a second retry is 404', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const { connectionId } = await createVia(app, token);
    const item = parked(connectionId, app, Date.now() - 3_000);
    await parkedStore.park(item);
    const retried = await call('POST', appPath(app, `/deliveries/${item.deliveryId}/retry`), { token });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ requeued: true, connectionId });
    expect(await parkedStore.get(connectionId, item.deliveryId)).toBeUndefined();
    const again = await call('POST', appPath(app, `/deliveries/${item.deliveryId}/retry`), { token });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it('recovers parked deliveries since a time, leaving older ones parked; with no body it recovers the rest', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const { connectionId } = await createVia(app, token);
    const now = Date.now();
    const old = parked(connectionId, app, now - 3 * 3_600_000);
    const recent = [1, 2, 3].map((i) => parked(connectionId, app, now - 60_000 + i * 1_000));
    for (const item of [old, ...recent]) await parkedStore.park(item);

    const lastHour = await call('POST', appPath(app, `/connections/${connectionId}/recover`), {
      token,
      json: { since: '1h' },
    });
    expect(lastHour.status).toBe(200);
    expect(lastHour.body).toEqual({ requeued: 3, remaining: 0 });
    const left = await call('GET', appPath(app, `/connections/${connectionId}/parked`), { token });
    expect(left.body.data.map((p: ParkedItem) => p.deliveryId)).toEqual([old.deliveryId]);

    const all = await fetch(`${api.origin}${appPath(app, `/connections/${connectionId}/recover`)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await all.json()).toEqual({ requeued: 1, remaining: 0 });
    const none = await call('GET', appPath(app, `/connections/${connectionId}/parked`), { token });
    expect(none.body.data).toEqual([]);

    const unknownField = await call('POST', appPath(app, `/connections/${connectionId}/recover`), {
      token,
      json: { since: '1h', rate: 1000 },
    });
    expect(unknownField.status).toBe(422);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'answers recover with a %s body 400 invalid_request, as its siblings do, and re-queues nothing',
    async (contentType) => {
      const app = id('app');
      const token = await tokenFor(app);
      const { connectionId } = await createVia(app, token);
      const item = parked(connectionId, app, Date.now() - 60_000);
      await parkedStore.park(item);
      const res = await call('POST', appPath(app, `/connections/${connectionId}/recover`), {
        token,
        raw: 'since=1h',
        contentType,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      const left = await call('GET', appPath(app, `/connections/${connectionId}/parked`), { token });
      expect(left.body.data.map((p: ParkedItem) => p.deliveryId)).toEqual([item.deliveryId]);
    },
  );

  it('shows health on every connection: healthy until told otherwise', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const { connectionId } = await createVia(app, token);
    const one = await call('GET', appPath(app, `/connections/${connectionId}`), { token });
    expect(one.body.health).toEqual({ state: 'healthy', consecutiveFailures: 0 });
    const list = await call('GET', appPath(app, '/connections'), { token });
    expect(list.body.data[0].health.state).toBe('healthy');
  });
});

describe('management API: stats', () => {
  it('counts attempts by outcome with latency percentiles per bucket, reading the log and writing nothing', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const { connectionId } = await createVia(app, token);
    const hour = 3_600_000;
    const start = Math.floor(Date.now() / hour) * hour - 3 * hour;
    const durations = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    for (const [i, d] of durations.entries())
      await attemptLog.append(record(connectionId, app, start + 60_000 * (i + 1), { durationMs: d }));
    await attemptLog.append(
      record(connectionId, app, start + hour + 5_000, { outcome: 'timeout', durationMs: 30_000 }),
    );
    await attemptLog.append(
      record(connectionId, app, start + 2 * hour + 5_000, { outcome: 'http_error', durationMs: 5 }),
    );

    const path = appPath(
      app,
      `/connections/${connectionId}/stats?bucket=1h&since=${new Date(start).toISOString()}&until=${new Date(start + 3 * hour).toISOString()}`,
    );
    const before = (await management.attempts.list({ connectionId, limit: 1000 })).length;
    const stats = (await call('GET', path, { token })).body;
    expect(stats.bucketSeconds).toBe(3600);
    expect(stats.buckets).toHaveLength(3);
    expect(stats.buckets[0]).toMatchObject({
      start: new Date(start).toISOString(),
      total: 10,
      outcomes: expect.objectContaining({ delivered: 10, timeout: 0 }),
      latencyMs: { p50: 50, p95: 100 },
    });
    expect(stats.buckets[1]).toMatchObject({ total: 1, outcomes: expect.objectContaining({ timeout: 1 }) });
    expect(stats.buckets[2]).toMatchObject({ total: 1, latencyMs: { p50: 5, p95: 5 } });
    expect(stats.totals.total).toBe(12);
    expect(stats.read).toMatchObject({ items: 12, truncated: false });
    expect((await management.attempts.list({ connectionId, limit: 1000 })).length).toBe(before);
  });
});

describe('management API: authorisation matrix', () => {
  let app: string;
  let otherApp: string;
  let token: string;
  let otherToken: string;
  let connectionId: string;
  let otherConnection: string;
  let otherDelivery: string;

  beforeAll(async () => {
    app = id('app');
    otherApp = id('app');
    token = await tokenFor(app);
    otherToken = await tokenFor(otherApp);
    connectionId = (await createVia(app, token)).connectionId;
    otherConnection = (await createVia(otherApp, otherToken, { name: 'Theirs' })).connectionId;
    const sent = await call('POST', appPath(otherApp, `/connections/${otherConnection}/test`), {
      token: otherToken,
    });
    otherDelivery = sent.body.deliveryId;
  });

  const routes = (appId: string, con: string, dlv: string): Array<[string, string, unknown?]> => [
    ['GET', appPath(appId, '/connections')],
    ['POST', appPath(appId, '/connections'), { name: 'x', url: 'https://example.com/' }],
    ['GET', appPath(appId, `/connections/${con}`)],
    ['PATCH', appPath(appId, `/connections/${con}`), { name: 'taken over' }],
    ['DELETE', appPath(appId, `/connections/${con}`)],
    ['GET', appPath(appId, `/connections/${con}/secret`)],
    ['POST', appPath(appId, `/connections/${con}/secret/rotate`)],
    ['POST', appPath(appId, `/connections/${con}/test`)],
    ['GET', appPath(appId, `/connections/${con}/attempts`)],
    ['GET', appPath(appId, `/connections/${con}/stats`)],
    ['GET', appPath(appId, `/deliveries/${dlv}`)],
    ['GET', appPath(appId, '/failures')],
    ['GET', appPath(appId, `/connections/${con}/parked`)],
    ['POST', appPath(appId, `/connections/${con}/recover`), {}],
    ['POST', appPath(appId, `/deliveries/${dlv}/retry`)],
  ];

  function tamper(t: string): string {
    const [h, p, s] = t.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    return `${h}.${Buffer.from(JSON.stringify({ ...payload, app: otherApp })).toString('base64url')}.${s}`;
  }

  it('answers 401 on every route without a token, with a tampered, expired or foreign-key token, or a non-Bearer header', async () => {
    const expired = (
      await mintSessionToken(key, { applicationId: app, ttlSeconds: 60, now: Date.now() - 120_000 })
    ).token;
    const foreignKey = (
      await mintSessionToken(new TextEncoder().encode('z'.repeat(48)), { applicationId: app })
    ).token;
    const flipped = `${token.slice(0, -2)}${token.endsWith('A') ? 'B' : 'A'}A`;
    for (const [method, path, json] of routes(app, connectionId, otherDelivery)) {
      for (const [label, t] of [
        ['none', undefined],
        ['tampered payload', tamper(token)],
        ['tampered signature', flipped],
        ['expired', expired],
        ['other key', foreignKey],
      ] as const) {
        const res = await call(method, path, { token: t, json });
        expect({ label, method, path, status: res.status }).toEqual({ label, method, path, status: 401 });
        expect(res.body.error.code).toBe(label === 'expired' ? 'session_expired' : 'unauthenticated');
      }
      const basic = await fetch(`${api.origin}${path}`, { method, headers: { authorization: 'Basic YTpi' } });
      expect(basic.status).toBe(401);
    }
  });

  it("answers 404 on every route of another application's path, and changes nothing there", async () => {
    for (const [method, path, json] of routes(otherApp, otherConnection, otherDelivery)) {
      const res = await call(method, path, { token, json });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(res.text).not.toContain('whsec_');
    }
    const theirs = await call('GET', appPath(otherApp, `/connections/${otherConnection}`), {
      token: otherToken,
    });
    expect(theirs.body.name).toBe('Theirs');
    expect(
      (await call('GET', appPath(otherApp, '/connections'), { token: otherToken })).body.data,
    ).toHaveLength(1);
  });

  it("answers 404 for another application's connection or delivery id under the token's own path", async () => {
    const secretBefore = (await management.connections.showSecret(otherConnection)).secret;
    for (const [method, path, json] of routes(app, otherConnection, otherDelivery)) {
      if (!path.includes(otherConnection) && !path.includes(otherDelivery)) continue;
      const res = await call(method, path, { token, json });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(res.text).not.toContain('whsec_');
    }
    const theirs = await management.connections.get(otherConnection);
    expect(theirs.name).toBe('Theirs');
    expect((await management.connections.showSecret(otherConnection)).secret).toBe(secretBefore);
  });
});

describe('webhooks console', () => {
  it('prints a link whose token opens exactly that application, for the requested lifetime', async () => {
    const app = id('app');
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    const linked = new WebhookManagement({ resources: { ...resources, apiUrl: api.origin } });
    const code = await run(['console', '--application', app, '--ttl', '2h', '--json'], {
      stdout,
      stderr,
      env: {},
      open: async () => linked,
    });
    expect(code).toBe(0);
    const session = JSON.parse(out);
    expect(session.consoleUrl).toBe(`${api.origin}/console/#token=${session.token}`);
    const lifetime = Date.parse(session.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(7_100_000);
    expect(lifetime).toBeLessThanOrEqual(7_200_000);
    expect((await call('GET', appPath(app, '/connections'), { token: session.token })).status).toBe(200);
    expect((await call('GET', appPath(id('app'), '/connections'), { token: session.token })).status).toBe(
      404,
    );
  });
});

describe('management API: what the chart costs', () => {
  it('reads a day of 1,000 attempts in one bounded key range, about 0.5 read unit per 4 KB, writing nothing', async () => {
    const app = id('app');
    const token = await tokenFor(app);
    const { connectionId } = await createVia(app, token);
    const until = Date.now();
    const since = until - 86_400_000;
    // An older delivery outside the window's key range must not be read at all.
    await attemptLog.append(record(connectionId, app, since - 2 * 3_600_000));
    const records = Array.from({ length: 1_000 }, (_, i) =>
      record(connectionId, app, since + 60_000 + i * 80_000, { durationMs: 50 + (i % 100) }),
    );
    for (let i = 0; i < records.length; i += 25)
      await Promise.all(records.slice(i, i + 25).map((r) => attemptLog.append(r)));
    const path = appPath(
      app,
      `/connections/${connectionId}/stats?bucket=1h&since=${new Date(since).toISOString()}&until=${new Date(until).toISOString()}`,
    );
    const started = performance.now();
    const stats = (await call('GET', path, { token })).body;
    const ms = performance.now() - started;
    expect(stats.totals.total).toBe(1_000);
    expect(stats.read.items).toBe(1_000);
    const bytes = records.reduce((sum, r) => sum + JSON.stringify(r).length, 0);
    // Eventually consistent Query: 0.5 unit per 4 KB read (the item attribute names count too).
    expect(stats.read.readUnits).toBeGreaterThan(0);
    expect(stats.read.readUnits).toBeLessThanOrEqual(Math.ceil((bytes * 1.5) / 4096) * 0.5 + 1);
    if (process.env.WEBHOOKS_REPORT) {
      process.stdout.write(
        `stats over 1,000 attempts: ${stats.read.readUnits} read units, ${Math.round(ms)} ms\n`,
      );
    }
  });
});
