/** CRM Connections: list, add, read, edit, delete; Show Secret, rotate; Send Test. */

import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Connection } from '../../core/types';
import { ApiError, ERROR_CODES, notFound } from '../errors';
import {
  ApplicationParams,
  AttemptSchema,
  ConnectionPageSchema,
  ConnectionParams,
  ConnectionSchema,
  CreateConnectionBody,
  DEFAULT_PAGE_SIZE,
  PageQuery,
  RateLimitActivitySchema,
  RotatedSecretSchema,
  RotateSecretBody,
  SecretSchema,
  UpdateConnectionBody,
} from '../schemas';
import type { ApiDeps, ApiEnv } from '../types';
import { attemptView, connectionView } from '../views';
import { errorResponses, jsonBody, jsonOk, TAG_CONNECTIONS } from './common';

const BASE = '/api/v1/applications/{applicationId}/connections';

/** The connection, if it belongs to the caller's application; any other answer is 404. */
export async function ownedConnection(
  deps: ApiDeps,
  applicationId: string,
  connectionId: string,
): Promise<Connection> {
  const connection = await deps.management.connections.get(connectionId);
  if (connection.applicationId !== applicationId) throw notFound('connection');
  return connection;
}

/** PATCH headers: a null value keeps the stored value of that header (values are never shown). */
function mergeHeaders(
  stored: Record<string, string>,
  patch: Record<string, string | null>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(patch)) {
    if (value !== null) {
      out[name] = value;
      continue;
    }
    const kept = Object.entries(stored).find(([n]) => n.toLowerCase() === name.toLowerCase());
    if (!kept) {
      throw new ApiError(
        422,
        ERROR_CODES.validationFailed,
        `headers.${name}: has no stored value to keep`,
        `headers.${name}`,
      );
    }
    out[name] = kept[1];
  }
  return out;
}

export function connectionRoutes(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  listConnectionsRoute(app, deps);
  createConnectionRoute(app, deps);
  getConnectionRoute(app, deps);
  getRateLimitActivityRoute(app, deps);
  updateConnectionRoute(app, deps);
  deleteConnectionRoute(app, deps);
  showSecretRoute(app, deps);
  rotateSecretRoute(app, deps);
  sendTestRoute(app, deps);
}

function listConnectionsRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'listConnections',
      method: 'get',
      path: BASE,
      tags: [TAG_CONNECTIONS],
      summary: "List the application's connections, oldest first",
      request: { params: ApplicationParams, query: PageQuery },
      responses: { 200: jsonOk(ConnectionPageSchema, 'one page of connections'), ...errorResponses(400) },
    }),
    async (c) => {
      const { limit, cursor } = c.req.valid('query');
      const page = await management.connections.page({
        applicationId: c.get('applicationId'),
        limit: limit ?? DEFAULT_PAGE_SIZE,
        cursor,
      });
      return c.json({ data: page.items.map(connectionView), nextCursor: page.nextCursor ?? null }, 200);
    },
  );
}

function createConnectionRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'createConnection',
      method: 'post',
      path: BASE,
      tags: [TAG_CONNECTIONS],
      summary: 'Add a connection of type Webhook (Name, URL, Method, Headers); its secret is created with it',
      request: { params: ApplicationParams, body: jsonBody(CreateConnectionBody) },
      responses: {
        201: {
          ...jsonOk(ConnectionSchema, 'the new connection'),
          headers: {
            Location: {
              description: 'the path of the new connection',
              schema: { type: 'string', example: '/api/v1/applications/app_1/connections/con_1' },
            },
          },
        },
        ...errorResponses(400, 413, 422),
      },
    }),
    async (c) => {
      // Every setting the body declares (lambdas/shapes/connection.ts) goes on as it came.
      const { type: _webhook, ...settings } = c.req.valid('json');
      const applicationId = c.get('applicationId');
      const created = await management.connections.create({ ...settings, applicationId });
      c.header('Location', `/api/v1/applications/${applicationId}/connections/${created.connectionId}`);
      return c.json(connectionView(created), 201);
    },
  );
}

function getConnectionRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  app.openapi(
    createRoute({
      operationId: 'getConnection',
      method: 'get',
      path: `${BASE}/{connectionId}`,
      tags: [TAG_CONNECTIONS],
      summary: 'Read one connection (custom header values are hidden)',
      request: { params: ConnectionParams },
      responses: { 200: jsonOk(ConnectionSchema, 'the connection'), ...errorResponses() },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      return c.json(connectionView(await ownedConnection(deps, c.get('applicationId'), connectionId)), 200);
    },
  );
}

function getRateLimitActivityRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'getRateLimitActivity',
      method: 'get',
      path: `${BASE}/{connectionId}/rate-limit`,
      tags: [TAG_CONNECTIONS],
      summary: "Waiting for the rate limit? The limit that applies and the last minute's sends and deferrals",
      request: { params: ConnectionParams },
      responses: {
        200: jsonOk(RateLimitActivitySchema, 'the rate limit and its last minute'),
        ...errorResponses(),
      },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const { lastDeferredAtMs, ...activity } = await management.rateLimitActivity(connectionId, {
        applicationId: c.get('applicationId'),
      });
      return c.json(
        {
          ...activity,
          ...(lastDeferredAtMs !== undefined
            ? { lastDeferredAt: new Date(lastDeferredAtMs).toISOString() }
            : {}),
        },
        200,
      );
    },
  );
}

function updateConnectionRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'updateConnection',
      method: 'patch',
      path: `${BASE}/{connectionId}`,
      tags: [TAG_CONNECTIONS],
      summary: 'Edit name, URL, method, headers, enabled or rate limit; every rule is checked again',
      request: { params: ConnectionParams, body: jsonBody(UpdateConnectionBody) },
      responses: {
        200: jsonOk(ConnectionSchema, 'the updated connection'),
        ...errorResponses(400, 409, 413, 422),
      },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const body = c.req.valid('json');
      const current = await ownedConnection(deps, c.get('applicationId'), connectionId);
      const updated = await management.connections.update(connectionId, {
        ...body,
        headers: body.headers ? mergeHeaders(current.headers ?? {}, body.headers) : undefined,
      });
      return c.json(connectionView(updated), 200);
    },
  );
}

function deleteConnectionRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'deleteConnection',
      method: 'delete',
      path: `${BASE}/{connectionId}`,
      tags: [TAG_CONNECTIONS],
      summary: 'Delete a connection and its secret',
      request: { params: ConnectionParams },
      responses: { 204: { description: 'deleted' }, ...errorResponses() },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      await ownedConnection(deps, c.get('applicationId'), connectionId);
      await management.connections.delete(connectionId);
      return c.body(null, 204);
    },
  );
}

function showSecretRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'showSecret',
      method: 'get',
      path: `${BASE}/{connectionId}/secret`,
      tags: [TAG_CONNECTIONS],
      summary:
        'Show Secret: the secret deliveries are signed with now, and a rotated one waiting for its switch time',
      request: { params: ConnectionParams },
      responses: { 200: jsonOk(SecretSchema, 'the signing secret'), ...errorResponses() },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      await ownedConnection(deps, c.get('applicationId'), connectionId);
      return c.json(await management.connections.showSecret(connectionId), 200);
    },
  );
}

function rotateSecretRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'rotateSecret',
      method: 'post',
      path: `${BASE}/{connectionId}/secret/rotate`,
      tags: [TAG_CONNECTIONS],
      summary:
        'New secret, shown now; the current one keeps signing until the switch time (24 hours unless the body or the stack says otherwise)',
      request: { params: ConnectionParams, body: { ...jsonBody(RotateSecretBody), required: false } },
      responses: {
        200: jsonOk(RotatedSecretSchema, 'the new secret'),
        ...errorResponses(400, 409, 413, 422),
      },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const body = c.req.valid('json') ?? {};
      await ownedConnection(deps, c.get('applicationId'), connectionId);
      return c.json(await management.connections.rotateSecret(connectionId, body), 200);
    },
  );
}

function sendTestRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'sendTest',
      method: 'post',
      path: `${BASE}/{connectionId}/test`,
      tags: [TAG_CONNECTIONS],
      summary: 'Send Test: one signed test delivery now (never retried); its attempt record',
      request: { params: ConnectionParams },
      responses: { 200: jsonOk(AttemptSchema, 'the attempt, whatever its outcome'), ...errorResponses(413) },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      await ownedConnection(deps, c.get('applicationId'), connectionId);
      return c.json(attemptView(await management.sendTest(connectionId)), 200);
    },
  );
}
