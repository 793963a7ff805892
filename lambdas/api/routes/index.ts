/**
 * `GET /api/v1`: where a newcomer with only the base URL starts. No session needed: it names
 * the routes, the document that describes them and how to authenticate, and nothing of any
 * application.
 */

import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { ApiEnv, ApiMode } from '../types';
import { jsonOk, TAG_API, throttledResponse } from './common';

const BASE = '/api/v1';

export const ApiIndexSchema = z
  .object({
    name: z.string(),
    version: z.string(),
    openapi: z.string().openapi({ description: 'the OpenAPI 3.1 document of every route' }),
    console: z.string().nullable().openapi({ description: 'the web console, when this server serves it' }),
    mode: z.enum(['local', 'deployed']).openapi({
      description: 'where this API runs: local mode (`npm start` on one machine) or a deployed stack',
    }),
    consoleCommand: z.string().openapi({
      description:
        'the CLI command that prints a new console link here; put the application id in place of {applicationId}',
      example: 'npx webhooks console --application {applicationId}',
    }),
    recoveryChecks: z.boolean().openapi({
      description:
        "whether this deployment checks a down endpoint again by itself and recovers its parked deliveries (docs/operations.md); a connection's own `recoveryProbes: false` still turns it off for that connection",
    }),
    authentication: z.string(),
    routes: z.record(z.string(), z.string()).openapi({ description: 'where each resource lives' }),
  })
  .openapi('ApiIndex');

/** The command that mints a console link for this API: local mode's needs `--local`. */
export function consoleCommandFor(mode: ApiMode): string {
  return `npx webhooks${mode === 'local' ? ' --local' : ''} console --application {applicationId}`;
}

export function indexRoute(
  app: OpenAPIHono<ApiEnv>,
  options: { console: boolean; mode: ApiMode; recoveryChecks: boolean },
): void {
  app.openapi(
    createRoute({
      operationId: 'apiIndex',
      method: 'get',
      path: BASE,
      tags: [TAG_API],
      security: [],
      summary: 'The index of this API: its routes, its OpenAPI document and how to authenticate',
      responses: { 200: jsonOk(ApiIndexSchema, 'the index'), ...throttledResponse() },
    }),
    (c) =>
      c.json(
        {
          name: 'Webhooks management API',
          version: '1.0.0',
          openapi: `${BASE}/openapi.json`,
          console: options.console ? '/console/' : null,
          mode: options.mode,
          consoleCommand: consoleCommandFor(options.mode),
          recoveryChecks: options.recoveryChecks,
          authentication:
            'Authorization: Bearer <session token>, minted for one application by createConsoleSession or `npx webhooks console --application app_…`',
          routes: {
            connections: `${BASE}/applications/{applicationId}/connections`,
            attempts: `${BASE}/applications/{applicationId}/connections/{connectionId}/attempts`,
            stats: `${BASE}/applications/{applicationId}/connections/{connectionId}/stats`,
            deliveries: `${BASE}/applications/{applicationId}/deliveries`,
            delivery: `${BASE}/applications/{applicationId}/deliveries/{deliveryId}`,
            failures: `${BASE}/applications/{applicationId}/failures`,
            parked: `${BASE}/applications/{applicationId}/connections/{connectionId}/parked`,
          },
        },
        200,
      ),
  );
}
