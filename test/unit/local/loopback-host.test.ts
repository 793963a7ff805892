/**
 * DNS rebinding: local mode's servers listen on 127.0.0.1, and answer only requests addressed to
 * a loopback name (local/listen.ts). A page whose name was re-pointed at 127.0.0.1 sends its own
 * name in `Host` and gets a 421: no metrics, no API, no secrets.
 */

import { request } from 'node:http';
import type { WebhookManagement } from '../../../lambdas/management';
import { type LocalApi, startLocalApi } from '../../../local/api-server';
import { isLoopbackHost } from '../../../local/listen';
import { type LocalSecretsManager, startSecretsManager } from '../../../local/secrets-manager';

/** One request with the `Host` header given (fetch would not let it be set). */
function call(
  origin: string,
  path: string,
  host: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: { ...options.headers, host },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.0.0.1:8790', 'localhost', 'LocalHost:8790', '[::1]', '[::1]:8790'])(
    'accepts %p',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );
  it.each([
    undefined,
    '',
    'evil.example',
    'evil.example:8790',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    '127.0.0.2',
    '::1',
    '[::1]x',
    '127.0.0.1:8790@evil.example',
  ])('refuses %p', (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe("local mode's API server", () => {
  let api: LocalApi;
  beforeAll(async () => {
    // Nothing below reaches the library: a refused request never gets to the API.
    const management = {
      consoleSessionKey: () => ({ get: async () => new Uint8Array(32) }),
    } as unknown as WebhookManagement;
    const metrics = {
      contentType: 'text/plain; version=0.0.4',
      text: async () => 'webhooks_attempts_total 3\n',
    };
    api = await startLocalApi({ management, port: 0, consoleDir: false, metrics });
  });
  afterAll(() => api.close());

  it('serves /metrics to a request addressed to a loopback name', async () => {
    const port = new URL(api.origin).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect(await call(api.origin, '/metrics', host)).toEqual({
        status: 200,
        text: 'webhooks_attempts_total 3\n',
      });
    }
  });

  it.each(['/metrics', '/api/v1', '/console/'])(
    'answers %s for Host: evil.example with 421',
    async (path) => {
      for (const host of ['evil.example', `evil.example:${new URL(api.origin).port}`]) {
        const answer = await call(api.origin, path, host);
        expect(answer.status).toBe(421);
        expect(answer.text).not.toContain('webhooks_attempts_total');
        expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'misdirected_request' } });
      }
    },
  );
});

describe('the local Secrets Manager', () => {
  let sm: LocalSecretsManager;
  beforeAll(async () => {
    sm = await startSecretsManager({});
  });
  afterAll(() => sm.stop());

  const action = (host: string, target: string, input: unknown) =>
    call(sm.endpoint, '/', host, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `secretsmanager.${target}` },
      body: JSON.stringify(input),
    });

  it('answers a request addressed to 127.0.0.1, and refuses Host: evil.example with 421', async () => {
    const own = new URL(sm.endpoint).host;
    const created = await action(own, 'CreateSecret', { Name: 'rebind-test', SecretString: 'whsec_x' });
    expect(created.status).toBe(200);
    const refused = await action('evil.example', 'GetSecretValue', { SecretId: 'rebind-test' });
    expect(refused.status).toBe(421);
    expect(refused.text).not.toContain('whsec_x');
    expect(JSON.parse(refused.text)).toMatchObject({ __type: 'MisdirectedRequestException' });
    expect((await action(own, 'GetSecretValue', { SecretId: 'rebind-test' })).text).toContain('whsec_x');
  });
});
