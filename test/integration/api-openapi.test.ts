/**
 * The OpenAPI document against the running API (docs/api.md "The OpenAPI document"): every
 * operation the document lists is called on the emulators with valid requests and with a set of
 * invalid ones (absent, malformed and foreign sessions; bad, unknown and another application's
 * ids; bad JSON, another Content-Type, an over-size body, unknown fields; bad query values and
 * forged cursors), and an independent validator (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses)
 * checks every answer: its status is one the document lists for the operation, its body
 * validates against the schema documented for that status and Content-Type, and the headers
 * documented for it are present. No answer is a 5xx.
 *
 * Operations come from the document itself: an operation with no valid-request fixture below
 * fails its test by name, so a new route is covered (or fails) as soon as it is documented.
 */

import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DynamoRateWindows } from '../../lambdas/adapters/dynamodb/rate-windows';
import { apiDocument } from '../../lambdas/api/openapi';
import { ENV } from '../../lambdas/config';
import { attemptAt, id, parkedAt } from '../support/fixtures';
import { type ApiHarness, appPath, startApiHarness } from './helpers/api';

// ---------------------------------------------------------------------------------------------
// The document and the validator

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: { type?: string; enum?: string[]; minimum?: number; maximum?: number; maxLength?: number };
}
interface MediaType {
  schema: object;
}
interface Response {
  description: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean; schema?: object }>;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  security?: unknown[];
}

const DOC = apiDocument() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: object;
};
const DOC_ID = 'https://webhooks.invalid/openapi.json';

/** Every operation of the document, as `METHOD /path`. */
const OPERATIONS = Object.entries(DOC.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })),
);
type Op = (typeof OPERATIONS)[number];

type Schema = Record<string, unknown>;
const isObject = (x: unknown): x is Schema => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The document with every object schema closed: a field the API sends that the document does not
 * name is a gap in the document, so `unevaluatedProperties: false` goes on each object schema
 * that says nothing of other fields (on an `allOf` as a whole, whose members are inlined open).
 */
function closed(doc: typeof DOC): Schema {
  const copy = structuredClone(doc) as unknown as Schema;
  const components = (copy.components as { schemas: Record<string, Schema> }).schemas;
  const open = structuredClone(components);
  const visit = (node: unknown, inAllOf: boolean): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, inAllOf);
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node.allOf)) {
      node.allOf = node.allOf.map((member: Schema) => {
        const name = typeof member.$ref === 'string' ? member.$ref.split('/').pop()! : undefined;
        return name && open[name] ? structuredClone(open[name]) : member;
      });
      node.unevaluatedProperties = false;
      for (const member of node.allOf as Schema[]) visit(member, true);
    }
    if (!inAllOf && isObject(node.properties) && !('additionalProperties' in node)) {
      node.unevaluatedProperties = false;
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'allOf') visit(value, false);
  };
  visit(copy, false);
  return copy;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...closed(DOC), $id: DOC_ID });

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const validators = new Map<string, ValidateFunction>();
/** The validator of the schema at /paths/{path}/{method}/responses/{status}/content/{type}/schema. */
function responseValidator(op: Op, status: string, type: string): ValidateFunction {
  const ref = `${DOC_ID}#/${pointer('paths', op.path, op.method, 'responses', status, 'content', type, 'schema')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

// ---------------------------------------------------------------------------------------------
// Requests and the check every answer goes through

interface Call {
  /** What the request is, for the failure message. */
  label: string;
  method: string;
  path: string;
  query?: string;
  token?: string;
  /** Sent as is (an Authorization header other than `Bearer <token>`). */
  authorization?: string;
  body?: string;
  contentType?: string;
}

interface Checked {
  call: string;
  status: number;
  problems: string[];
  body: unknown;
  headers: Headers;
}

let h: ApiHarness;

async function send(call: Call): Promise<{ status: number; text: string; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
  if (call.authorization !== undefined) headers.authorization = call.authorization;
  if (call.contentType !== undefined) headers['content-type'] = call.contentType;
  const url = `${h.api.origin}${call.path}${call.query ? `?${call.query}` : ''}`;
  const res = await fetch(url, { method: call.method, headers, body: call.body, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Sends `call` for `op` and lists every way its answer departs from the document. */
async function check(op: Op, call: Call): Promise<Checked> {
  const res = await send(call);
  const problems: string[] = [];
  const status = String(res.status);
  let body: unknown;
  if (res.status >= 500) problems.push(`answered ${res.status}: a 5xx is a bug`);
  const documented = op.op.responses[status] ?? op.op.responses.default;
  if (!documented) {
    problems.push(`status ${status} is not documented (${Object.keys(op.op.responses).join(', ')})`);
  } else {
    const content = documented.content ?? {};
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (Object.keys(content).length === 0) {
      if (res.text !== '') problems.push(`documents no body for ${status}, got ${res.text.slice(0, 200)}`);
    } else if (!(type in content)) {
      problems.push(`Content-Type ${type || '(none)'} is not one documented for ${status}`);
    } else {
      try {
        body = JSON.parse(res.text);
      } catch {
        problems.push(`the ${type} body does not parse: ${res.text.slice(0, 200)}`);
      }
      if (body !== undefined) {
        const validate = responseValidator(
          op,
          documented === op.op.responses[status] ? status : 'default',
          type,
        );
        if (!validate(body)) {
          problems.push(`the body breaks the ${status} schema: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
    for (const name of Object.keys(documented.headers ?? {})) {
      if (!res.headers.has(name)) problems.push(`documented header ${name} is absent`);
    }
  }
  return {
    call: `${call.label}: ${call.method} ${call.path}${call.query ? `?${call.query}` : ''}`,
    status: res.status,
    problems,
    body,
    headers: res.headers,
  };
}

/** What `check` found, shaped so that a failure prints the call and every problem. */
const verdict = (c: Checked) => ({ call: c.call, problems: c.problems });
const clean = (c: Checked) => ({ call: c.call, problems: [] });

// ---------------------------------------------------------------------------------------------
// The world the requests run in: two applications, each with a connection, attempts and parked
// deliveries; a fixture adds what a request consumes (a connection to delete, a parked delivery).

interface World {
  app: string;
  token: string;
  connectionId: string;
  deliveryId: string;
  /** Another application's, with a connection, a delivery, a parked delivery and cursors. */
  other: { app: string; token: string; connectionId: string; deliveryId: string; parkedId: string };
  /** A cursor another application's listing handed out, per listing (`connections`, `attempts`, …). */
  otherCursors: Record<string, string>;
}

let world: World;

/** A connection with 3 attempts and 3 parked deliveries; `parked` are their delivery ids. */
async function seededConnection(app: string, token: string) {
  const { connectionId } = await h.createVia(app, token);
  const t0 = Date.now() - 60_000;
  const attempts = [0, 1, 2].map((i) => attemptAt(connectionId, app, t0 + i * 1_000));
  const parked = [0, 1, 2].map((i) => parkedAt(connectionId, app, t0 + i * 1_000));
  for (const a of attempts) await h.attemptLog.append(a);
  for (const p of parked) await h.parkedStore.park(p);
  return { connectionId, deliveryId: attempts[0]!.deliveryId, parked: parked.map((p) => p.deliveryId) };
}

const LISTINGS = {
  connections: (_: { connectionId: string }) => '/connections',
  attempts: (w: { connectionId: string }) => `/connections/${w.connectionId}/attempts`,
  parked: (w: { connectionId: string }) => `/connections/${w.connectionId}/parked`,
  failures: (_: { connectionId: string }) => '/failures',
  deliveries: (_: { connectionId: string }) => '/deliveries',
};

beforeAll(async () => {
  h = await startApiHarness();
  const app = id('app');
  const token = await h.tokenFor(app);
  const mine = await seededConnection(app, token);
  const otherApp = id('app');
  const otherToken = await h.tokenFor(otherApp);
  const theirs = await seededConnection(otherApp, otherToken);
  await h.createVia(otherApp, otherToken);
  const otherCursors: Record<string, string> = {};
  for (const [name, path] of Object.entries(LISTINGS)) {
    const res = await h.call('GET', appPath(otherApp, `${path(theirs)}?limit=1`), { token: otherToken });
    otherCursors[name] = res.body.nextCursor;
  }
  world = {
    app,
    token,
    connectionId: mine.connectionId,
    deliveryId: mine.deliveryId,
    other: {
      app: otherApp,
      token: otherToken,
      connectionId: theirs.connectionId,
      deliveryId: theirs.deliveryId,
      parkedId: theirs.parked[0]!,
    },
    otherCursors,
  };
});
afterAll(() => h.close());

// ---------------------------------------------------------------------------------------------
// Valid requests, one fixture per operation of the document

/** Values for the path parameters of one request (applicationId, connectionId, deliveryId). */
type PathValues = Record<string, string>;

interface ValidRequest {
  label: string;
  /** Path parameter values; the operation's own path template is filled with them. */
  params: PathValues;
  query?: string;
  json?: unknown;
  /** False for the index and other routes outside a session. */
  session?: boolean;
  /** The 2xx the request must get. */
  expect: number;
}

/** A connection of its own for a request that changes or removes it. */
async function freshConnection(input: Record<string, unknown> = {}): Promise<string> {
  return (await h.createVia(world.app, world.token, input)).connectionId;
}

async function freshParked(): Promise<{ connectionId: string; deliveryId: string }> {
  const connectionId = await freshConnection();
  const item = parkedAt(connectionId, world.app, Date.now() - 30_000);
  await h.parkedStore.park(item);
  return { connectionId, deliveryId: item.deliveryId };
}

/** A delivery of its own, ended and with its body kept, that a Resend can send again. */
async function freshResendable(): Promise<{ connectionId: string; deliveryId: string }> {
  const connectionId = await freshConnection();
  const attempt = attemptAt(connectionId, world.app, Date.now() - 30_000, {
    body: JSON.stringify({ event: 'user.identified' }),
  });
  await h.attemptLog.append(attempt);
  return { connectionId, deliveryId: attempt.deliveryId };
}

const mine = (extra: PathValues = {}): PathValues => ({
  applicationId: world.app,
  connectionId: world.connectionId,
  deliveryId: world.deliveryId,
  ...extra,
});

/**
 * Keyed by `METHOD /path` as the document names the operation. A new route needs an entry here:
 * its test fails until it has one.
 */
const VALID: Record<string, () => Promise<ValidRequest[]>> = {
  'GET /api/v1': async () => [{ label: 'the index', params: {}, session: false, expect: 200 }],
  'GET /api/v1/applications/{applicationId}/connections': async () => {
    const first = await h.call('GET', appPath(world.app, '/connections?limit=1'), { token: world.token });
    await freshConnection();
    return [
      { label: 'first page', params: mine(), expect: 200 },
      { label: 'one a page', params: mine(), query: 'limit=1', expect: 200 },
      {
        label: 'the next page',
        params: mine(),
        query: `limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
        expect: 200,
      },
    ];
  },
  'POST /api/v1/applications/{applicationId}/connections': async () => [
    { label: 'name and URL', params: mine(), json: { name: 'CRM', url: h.receiver.url }, expect: 201 },
    {
      label: 'every field',
      params: mine(),
      json: {
        name: 'Billing',
        url: h.receiver.url,
        method: 'PUT',
        headers: { 'X-Api-Key': 'k-123' },
        enabled: false,
      },
      expect: 201,
    },
  ],
  'GET /api/v1/applications/{applicationId}/connections/{connectionId}': async () => [
    { label: 'own connection', params: mine(), expect: 200 },
    {
      label: 'one with a hidden header',
      params: mine({ connectionId: await freshConnection({ headers: { 'X-Api-Key': 'secret-1' } }) }),
      expect: 200,
    },
  ],
  'GET /api/v1/applications/{applicationId}/connections/{connectionId}/rate-limit': async () => {
    // Limited to 2/s, and 5 counted this second: 3 deferrals, waiting now.
    const limited = await freshConnection({ rateLimit: 2 });
    const windows = new DynamoRateWindows({ tableName: process.env[ENV.rateWindowsTable]! });
    const second = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 5; i++) await windows.increment(limited, second, 0);
    return [
      { label: 'no limit', params: mine(), expect: 200 },
      { label: 'limited, waiting now', params: mine({ connectionId: limited }), expect: 200 },
      {
        label: 'limited, nothing counted',
        params: mine({ connectionId: await freshConnection({ rateLimit: 20 }) }),
        expect: 200,
      },
    ];
  },
  'PATCH /api/v1/applications/{applicationId}/connections/{connectionId}': async () => {
    const withHeader = await freshConnection({ headers: { 'X-Api-Key': 'secret-1' } });
    return [
      { label: 'rename', params: mine(), json: { name: 'Renamed' }, expect: 200 },
      {
        label: 'keep a header, disable',
        params: mine({ connectionId: withHeader }),
        json: { headers: { 'X-Api-Key': null }, enabled: false },
        expect: 200,
      },
      { label: 'empty patch', params: mine(), json: {}, expect: 200 },
    ];
  },
  'DELETE /api/v1/applications/{applicationId}/connections/{connectionId}': async () => [
    { label: 'a connection', params: mine({ connectionId: await freshConnection() }), expect: 204 },
  ],
  'GET /api/v1/applications/{applicationId}/connections/{connectionId}/secret': async () => [
    { label: 'Show Secret', params: mine(), expect: 200 },
  ],
  'POST /api/v1/applications/{applicationId}/connections/{connectionId}/secret/rotate': async () => [
    { label: 'rotate', params: mine({ connectionId: await freshConnection() }), expect: 200 },
  ],
  'POST /api/v1/applications/{applicationId}/connections/{connectionId}/test': async () => [
    { label: 'Send Test', params: mine(), expect: 200 },
  ],
  'GET /api/v1/applications/{applicationId}/connections/{connectionId}/attempts': async () => [
    { label: 'all', params: mine(), expect: 200 },
    {
      label: 'filtered',
      params: mine(),
      query: 'outcome=delivered&final=true&since=24h&until=2099-01-01T00:00:00Z&limit=2',
      expect: 200,
    },
  ],
  'GET /api/v1/applications/{applicationId}/connections/{connectionId}/stats': async () => [
    { label: 'default window', params: mine(), expect: 200 },
    { label: 'an hour in minutes', params: mine(), query: 'since=1h&bucket=1m', expect: 200 },
    { label: 'until as a duration', params: mine(), query: 'since=2h&until=1h&bucket=5m', expect: 200 },
  ],
  'GET /api/v1/applications/{applicationId}/deliveries/{deliveryId}': async () => [
    { label: 'a delivery', params: mine(), expect: 200 },
  ],
  'GET /api/v1/applications/{applicationId}/deliveries': async () => [
    { label: 'all', params: mine(), expect: 200 },
    {
      label: 'by user, filtered',
      params: mine(),
      query: 'userId=usr_1&outcome=delivered&since=24h&until=2099-01-01T00:00:00Z&limit=2',
      expect: 200,
    },
  ],
  'GET /api/v1/applications/{applicationId}/failures': async () => [
    { label: 'recent failures', params: mine(), expect: 200 },
    { label: 'one a page', params: mine(), query: 'limit=1', expect: 200 },
  ],
  'GET /api/v1/applications/{applicationId}/connections/{connectionId}/parked': async () => [
    { label: 'parked', params: mine(), expect: 200 },
    { label: 'since a week', params: mine(), query: 'since=7d&limit=2', expect: 200 },
  ],
  'POST /api/v1/applications/{applicationId}/connections/{connectionId}/recover': async () => [
    { label: 'no body', params: mine({ connectionId: (await freshParked()).connectionId }), expect: 200 },
    {
      label: 'since an hour',
      params: mine({ connectionId: (await freshParked()).connectionId }),
      json: { since: '1h' },
      expect: 200,
    },
  ],
  'POST /api/v1/applications/{applicationId}/deliveries/{deliveryId}/resend': async () => {
    const delivery = await freshResendable();
    return [
      { label: 'an ended delivery', params: mine({ ...delivery }), expect: 202 },
      // the same one again: its Resend is queued and has not arrived
      { label: 'resent already', params: mine({ ...delivery }), expect: 409 },
    ];
  },
  'POST /api/v1/applications/{applicationId}/deliveries/{deliveryId}/retry': async () => {
    const parked = await freshParked();
    return [
      { label: 'a parked delivery', params: mine({ ...parked }), expect: 200 },
      // the same one again: no longer parked
      { label: 'retried already', params: mine({ ...parked }), expect: 404 },
    ];
  },
};

const fill = (template: string, params: PathValues) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(value);
  });

function callOf(op: Op, r: ValidRequest): Call {
  return {
    label: r.label,
    method: op.method.toUpperCase(),
    path: fill(op.path, r.params),
    query: r.query,
    token: r.session === false ? undefined : world.token,
    ...(r.json !== undefined ? { body: JSON.stringify(r.json), contentType: 'application/json' } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Invalid requests, derived from the operation's document

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Bad values of one query parameter, from its documented schema. */
function badQueryValues(param: Parameter, listing: string | undefined): string[] {
  const s = param.schema;
  const values = ['%00', 'x'.repeat(5_000)];
  if (s.type === 'integer' || s.type === 'number') {
    values.push('abc', '1.5', '-1', '1e400');
    if (s.minimum !== undefined) values.push(String(s.minimum - 1));
    if (s.maximum !== undefined) values.push(String(s.maximum + 1));
  }
  if (s.enum) values.push('not-a-value', s.enum[0]!.toUpperCase());
  if (s.maxLength !== undefined) values.push('1'.repeat(s.maxLength + 1));
  if (param.name === 'since' || param.name === 'until')
    values.push('yesterday', '2026-13-45T00:00:00Z', '-5m');
  if (param.name === 'cursor') {
    values.push(
      'not-base64!',
      b64({}),
      b64({ k: 1 }),
      b64([]),
      b64(null),
      b64({ connectionId: 'con_x', sk: 'x' }),
      Buffer.from('{"truncated":').toString('base64url'),
    );
    if (listing && world.otherCursors[listing]) values.push(world.otherCursors[listing]!);
  }
  return values.map((v) => (v.startsWith('%') ? v : encodeURIComponent(v)));
}

/** Which listing of {@link LISTINGS} a path is, for another application's cursor. */
function listingOf(path: string): string | undefined {
  if (path.endsWith('/connections')) return 'connections';
  if (path.endsWith('/attempts')) return 'attempts';
  if (path.endsWith('/parked')) return 'parked';
  if (path.endsWith('/failures')) return 'failures';
  if (path.endsWith('/deliveries')) return 'deliveries';
  return undefined;
}

const BAD_IDS = ['nope', 'con_', '..', 'con_%E0%A4%A', '%00', 'x'.repeat(300)];

/** Invalid variants of a valid request, each with the status class it must get. */
function invalidCalls(op: Op, valid: ValidRequest): { call: Call; expect: number }[] {
  const base = callOf(op, valid);
  const out: { call: Call; expect: number }[] = [];
  const add = (label: string, change: Partial<Call>, expect: number) =>
    out.push({ call: { ...base, ...change, label }, expect });
  const secured = valid.session !== false;
  if (secured) {
    add('no session', { token: undefined }, 401);
    add('a garbage token', { token: 'garbage' }, 401);
    add('a token signed by someone else', { token: `${world.token.slice(0, -4)}AAAA` }, 401);
    add('Basic auth', { token: undefined, authorization: 'Basic dXNlcjpwYXNz' }, 401);
    add("another application's session", { token: world.other.token }, 404);
  }
  const pathParams = (op.op.parameters ?? []).filter((p) => p.in === 'path');
  for (const p of pathParams) {
    for (const bad of BAD_IDS) {
      const raw = base.path.replace(encodeURIComponent(valid.params[p.name]!), bad);
      add(`bad ${p.name} ${bad.slice(0, 20)}`, { path: raw }, 404);
    }
    const foreign = {
      applicationId: world.other.app,
      connectionId: world.other.connectionId,
      deliveryId: world.other.deliveryId,
    }[p.name];
    if (foreign)
      add(
        `another application's ${p.name}`,
        { path: fill(op.path, { ...valid.params, [p.name]: foreign }) },
        404,
      );
    const absent = {
      applicationId: id('app'),
      connectionId: id('con'),
      deliveryId: `dlv_${id('x').slice(2)}`,
    }[p.name];
    if (absent)
      add(`an unknown ${p.name}`, { path: fill(op.path, { ...valid.params, [p.name]: absent }) }, 404);
  }
  if (secured && op.path.includes('{deliveryId}') && op.method === 'post') {
    add(
      "another application's parked delivery",
      { path: fill(op.path, { ...valid.params, deliveryId: world.other.parkedId }) },
      404,
    );
  }
  const listing = listingOf(op.path);
  for (const p of (op.op.parameters ?? []).filter((q) => q.in === 'query')) {
    for (const bad of badQueryValues(p, listing))
      add(`${p.name}=${bad.slice(0, 24)}`, { query: `${p.name}=${bad}` }, 400);
  }
  if (op.method === 'post' || op.method === 'patch') {
    const big = JSON.stringify({ name: 'x'.repeat(70_000) });
    add('an over-size body', { body: big, contentType: 'application/json' }, 413);
  }
  if (op.op.requestBody) {
    const json = 'application/json';
    add('malformed JSON', { body: '{"name":', contentType: json }, 400);
    add('text/plain', { body: base.body ?? '{}', contentType: 'text/plain' }, 400);
    add('a form', { body: 'name=x', contentType: 'application/x-www-form-urlencoded' }, 400);
    add('JSON as text/json', { body: base.body ?? '{}', contentType: 'text/json' }, 400);
    add(
      'an unknown field',
      { body: JSON.stringify({ ...(valid.json as object), unknownField: 1 }), contentType: json },
      422,
    );
    add(
      'a __proto__ key',
      {
        body: JSON.stringify(valid.json ?? {})
          .replace(/^\{/, '{"__proto__":{"x":1},')
          .replace(',}', '}'),
        contentType: json,
      },
      422,
    );
    add('an array', { body: '[]', contentType: json }, 422);
    add('null', { body: 'null', contentType: json }, 422);
    add('a number', { body: '42', contentType: json }, 422);
    add(
      'wrong types',
      { body: JSON.stringify({ name: 5, url: [], since: {}, enabled: 'yes' }), contentType: json },
      422,
    );
    if (op.op.requestBody.required) add('no body', { body: undefined, contentType: undefined }, 400);
  }
  return out;
}

const expectedClass = (status: number, expected: number) =>
  expected === 400 || expected === 422 ? status === 400 || status === 422 : status === expected;

// ---------------------------------------------------------------------------------------------

describe('the OpenAPI document against the running API', () => {
  it('is what the API serves at /api/v1/openapi.json', async () => {
    const res = await send({ label: 'doc', method: 'GET', path: '/api/v1/openapi.json' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('lists operations to check, and the validator refuses a body that breaks a schema', () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(16);
    const create = OPERATIONS.find((o) => o.key === 'POST /api/v1/applications/{applicationId}/connections')!;
    const validate = responseValidator(create, '201', 'application/json');
    expect(validate({ connectionId: 5 })).toBe(false);
    // a field the document does not name is a gap in the document
    const secret = responseValidator(
      OPERATIONS.find((o) => o.key.endsWith('/secret/rotate'))!,
      '200',
      'application/json',
    );
    const rotated = {
      secret: 'whsec_x',
      secretVersion: 'v2',
      previousVersion: 'v1',
      switchAt: '2030-01-01T00:00:00.000Z',
    };
    expect(secret(rotated)).toBe(true);
    expect(secret({ ...rotated, extra: 1 })).toBe(false);
    const error = responseValidator(create, '422', 'application/json');
    expect(error({ error: { code: 'validation_failed', message: 'x' } })).toBe(true);
    expect(error({ message: 'x' })).toBe(false);
  });

  describe.each(OPERATIONS.map((o) => [o.key, o] as const))('%s', (key, op) => {
    it('answers valid requests as documented', async () => {
      const fixture = VALID[key];
      if (!fixture) {
        throw new Error(
          `no valid-request fixture for ${key} in test/integration/api-openapi.test.ts: add one to VALID`,
        );
      }
      for (const valid of await fixture()) {
        const checked = await check(op, callOf(op, valid));
        expect(verdict(checked)).toEqual(clean(checked));
        expect({ call: checked.call, status: checked.status }).toEqual({
          call: checked.call,
          status: valid.expect,
        });
      }
    });

    it('answers invalid requests with a documented 4xx and a body that matches the document', async () => {
      const fixture = VALID[key];
      if (!fixture) throw new Error(`no valid-request fixture for ${key}: add one to VALID`);
      const [first] = await fixture();
      const failures: unknown[] = [];
      for (const { call, expect: wanted } of invalidCalls(op, first!)) {
        const checked = await check(op, call);
        const rightStatus = expectedClass(checked.status, wanted);
        if (checked.problems.length > 0 || !rightStatus) {
          failures.push({ ...verdict(checked), status: checked.status, wanted, body: checked.body });
        }
      }
      expect(failures).toEqual([]);
    });
  });
});
