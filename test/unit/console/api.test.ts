import { ApiCallError, ApiClient, apiBaseFor, type Fetch } from '../../../console/api';

interface Call {
  url: string;
  init: RequestInit | undefined;
}

function client(respond: (call: Call) => Response, onUnauthorized?: () => void) {
  const calls: Call[] = [];
  const fetch: Fetch = async (url, init) => {
    const call = { url, init };
    calls.push(call);
    return respond(call);
  };
  const api = new ApiClient({
    baseUrl: 'https://hooks.example.com/api/v1',
    applicationId: 'app_1',
    token: 'tok.en.value',
    fetch,
    ...(onUnauthorized ? { onUnauthorized } : {}),
  });
  return { api, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('console API client', () => {
  it('finds the API beside the console, keeping any stage prefix', () => {
    expect(apiBaseFor('https://h.example.com/console/#/connections')).toBe('https://h.example.com/api/v1');
    expect(apiBaseFor('https://h.example.com/prod/console/')).toBe('https://h.example.com/prod/api/v1');
  });

  it('sends the session token and reads a page of connections', async () => {
    const { api, calls } = client(() => json(200, { data: [], nextCursor: 'c2' }));
    const page = await api.listConnections('c1', 10);
    expect(page.nextCursor).toBe('c2');
    expect(calls[0]!.url).toBe(
      'https://hooks.example.com/api/v1/applications/app_1/connections?cursor=c1&limit=10',
    );
    expect(new Headers(calls[0]!.init?.headers).get('authorization')).toBe('Bearer tok.en.value');
  });

  it('creates a webhook connection with a JSON body', async () => {
    const { api, calls } = client(() => json(201, { connectionId: 'con_1' }));
    await api.createConnection({
      name: 'CRM',
      url: 'https://crm.example.com/h',
      method: 'POST',
      headers: {},
    });
    expect(calls[0]!.init?.method).toBe('POST');
    expect(JSON.parse(String(calls[0]!.init?.body))).toEqual({
      type: 'webhook',
      name: 'CRM',
      url: 'https://crm.example.com/h',
      method: 'POST',
      headers: {},
    });
  });

  it('puts only the set attempt filters in the query and escapes path ids', async () => {
    const { api, calls } = client(() => json(200, { data: [], nextCursor: null }));
    await api.listAttempts('con/../x', { outcome: 'timeout', since: '2026-01-01T00:00:00.000Z', final: '' });
    const url = new URL(calls[0]!.url);
    expect(url.pathname).toBe('/api/v1/applications/app_1/connections/con%2F..%2Fx/attempts');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      outcome: 'timeout',
      since: '2026-01-01T00:00:00.000Z',
      limit: '20',
    });
  });

  it("turns the API's error body into an ApiCallError naming the field", async () => {
    const { api } = client(() =>
      json(422, { error: { code: 'invalid_url', message: 'url must use https', field: 'url' } }),
    );
    const error = await api.createConnection({ name: 'x', url: 'http://x', method: 'POST' }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiCallError);
    expect(error).toMatchObject({
      status: 422,
      code: 'invalid_url',
      field: 'url',
      message: 'url must use https',
    });
  });

  it('reports a 401 once to the app and still rejects the call', async () => {
    const onUnauthorized = jest.fn();
    const { api } = client(
      () => json(401, { error: { code: 'unauthorized', message: 'expired' } }),
      onUnauthorized,
    );
    await expect(api.getConnection('con_1')).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('names a non-JSON failure and a network failure', async () => {
    const { api } = client(
      () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    await expect(api.stats('con_1')).rejects.toMatchObject({
      status: 502,
      message: 'The API answered 502 Bad Gateway',
    });
    const offline = new ApiClient({
      baseUrl: 'https://h/api/v1',
      applicationId: 'app_1',
      token: 't',
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    await expect(offline.sendTest('con_1')).rejects.toMatchObject({ status: 0, code: 'network' });
  });
});
