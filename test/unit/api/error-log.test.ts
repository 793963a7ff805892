/**
 * A 5xx from the management API leaves one error line an operator can query: logged as one object,
 * so Lambda's JSON log format makes its fields the record's `message.*`, which the saved query
 * "management API errors" reads (lib/log-queries.ts).
 */

import { createApi } from '../../../lambdas/api/app';
import type { WebhookManagement } from '../../../lambdas/management';
import { API_ERRORS_QUERY } from '../../../lib/log-queries';

describe("the management API's error line", () => {
  let logged: unknown[][];
  let spy: jest.SpyInstance;
  beforeEach(() => {
    logged = [];
    spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
  });
  afterEach(() => spy.mockRestore());

  it('is one object with the route and the failure, the fields the saved query reads, and never the token', async () => {
    const denied = Object.assign(
      new Error('User is not authorized to perform: secretsmanager:GetSecretValue'),
      {
        name: 'AccessDeniedException',
      },
    );
    const api = createApi({
      management: {} as WebhookManagement,
      sessionKey: {
        get: async () => {
          throw denied;
        },
      },
    });
    const res = await api.request('/api/v1/applications/app_x/connections', {
      headers: { authorization: 'Bearer header.payload.signature-not-for-logs' },
    });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toHaveLength(1);
    const line = logged[0]![0] as Record<string, unknown>;
    expect(line).toMatchObject({
      message: 'management API request failed',
      method: 'GET',
      path: '/api/v1/applications/app_x/connections',
    });
    expect(typeof line.error).toBe('string');
    expect(typeof line.detail).toBe('string');
    for (const field of API_ERRORS_QUERY.query.fields.filter((f) => f.startsWith('message.')))
      expect(line).toHaveProperty(field.slice('message.'.length));
    expect(JSON.stringify(line)).not.toContain('signature-not-for-logs');
  });
});
