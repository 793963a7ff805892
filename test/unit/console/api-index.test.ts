/**
 * The pages shown without a session print the command that mints a new link where this API
 * runs: the API's index (`GET /api/v1`, no session) says which, and the console reads it.
 */

import { consoleCommandFor, DEFAULT_CONSOLE_COMMAND, fetchApiIndex } from '../../../console/api';
import { recoverySetting } from '../../../console/format';
import { createApi } from '../../../lambdas/api/app';
import type { ApiDeps } from '../../../lambdas/api/types';
import type { WebhookManagement } from '../../../lambdas/management';

function api(deps: Partial<ApiDeps>) {
  return createApi({
    management: {} as WebhookManagement,
    sessionKey: { get: async () => new Uint8Array(32) },
    ...deps,
  });
}

/** The console's fetch, answered by the API in process. */
const fetchFrom = (app: ReturnType<typeof api>) => (url: string, init?: RequestInit) =>
  Promise.resolve(app.request(new URL(url).pathname, init));

describe("the API's index tells the console where it runs", () => {
  it('says deployed, with the command without --local, unless told otherwise', async () => {
    const body = await (await api({}).request('/api/v1')).json();
    expect(body).toMatchObject({
      mode: 'deployed',
      consoleCommand: 'npx webhooks console --application {applicationId}',
    });
  });

  it("says local for local mode's API, with --local", async () => {
    const index = await fetchApiIndex('http://127.0.0.1:8790/api/v1', fetchFrom(api({ mode: 'local' })));
    expect(index).toEqual({
      mode: 'local',
      consoleCommand: 'npx webhooks --local console --application {applicationId}',
      recoveryChecks: true,
    });
    expect(consoleCommandFor(index!.consoleCommand, 'app_demo')).toBe(
      'npx webhooks --local console --application app_demo',
    );
    expect(consoleCommandFor(index!.consoleCommand)).toBe('npx webhooks --local console --application app_…');
  });

  it('is undefined when the index cannot be read, and the console then prints the deployed form', async () => {
    expect(await fetchApiIndex('https://h/api/v1', async () => new Response('nope', { status: 502 }))).toBe(
      undefined,
    );
    expect(
      await fetchApiIndex('https://h/api/v1', async () => {
        throw new TypeError('offline');
      }),
    ).toBeUndefined();
    expect(consoleCommandFor(DEFAULT_CONSOLE_COMMAND, 'app_x')).toBe(
      'npx webhooks console --application app_x',
    );
  });
});

describe("the API's index tells the console whether the deployment recovers by itself", () => {
  it('says so, and the connection page says what it means for the connection', async () => {
    const on = await fetchApiIndex('https://h/api/v1', fetchFrom(api({})));
    const off = await fetchApiIndex('https://h/api/v1', fetchFrom(api({ recoveryChecks: false })));
    expect([on?.recoveryChecks, off?.recoveryChecks]).toEqual([true, false]);
    expect(recoverySetting(undefined, on!)).toMatch(/^on: a down endpoint is checked again by itself/);
    expect(recoverySetting(false, on!)).toBe('off: parked deliveries wait for Recover');
    expect(recoverySetting(true, off!)).toBe(
      'off for this deployment (recoveryProbes): parked deliveries wait for Recover',
    );
    // While the index loads or cannot be read, the connection's own setting is what is known.
    expect(recoverySetting(undefined, 'unknown')).toMatch(/^on:/);
  });
});
