/**
 * Parked deliveries (docs/design.md §9): what failed for good, or met a disabled connection or a
 * refused destination, kept with its body so the customer can send it again once the endpoint
 * is fixed: list them (per connection, and the application's recent ones), retry one, recover
 * a connection's since a time. Sending again goes through the management library, which
 * claims each parked delivery before it re-queues it, so two clicks never send one twice.
 */

import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { ParkedPageResult } from '../../management/parked';
import {
  ApplicationParams,
  ConnectionParams,
  DEFAULT_PAGE_SIZE,
  DeliveryParams,
  PageQuery,
  ParkedPageSchema,
  ParkedQuery,
  RecoverBody,
  RecoverResultSchema,
  ResendResultSchema,
  RetryResultSchema,
} from '../schemas';
import type { ApiDeps, ApiEnv } from '../types';
import { errorResponses, jsonBody, jsonOk, TAG_PARKED } from './common';

const BASE = '/api/v1/applications/{applicationId}';

const page = (result: ParkedPageResult) => ({ data: result.data, nextCursor: result.nextCursor ?? null });

export function parkedRoutes(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  listFailuresRoute(app, deps);
  listParkedRoute(app, deps);
  recoverConnectionRoute(app, deps);
  retryDeliveryRoute(app, deps);
  resendDeliveryRoute(app, deps);
}

function listFailuresRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'listFailures',
      method: 'get',
      path: `${BASE}/failures`,
      tags: [TAG_PARKED],
      summary:
        "The application's parked deliveries (recent final failures), newest events first (the time in the delivery id; parkedAt can be later)",
      request: { params: ApplicationParams, query: PageQuery },
      responses: {
        200: jsonOk(ParkedPageSchema, 'one page of parked deliveries'),
        ...errorResponses(400, 422),
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const result = await management.listApplicationParked(c.get('applicationId'), {
        limit: q.limit ?? DEFAULT_PAGE_SIZE,
        cursor: q.cursor,
      });
      return c.json(page(result), 200);
    },
  );
}

function listParkedRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'listParked',
      method: 'get',
      path: `${BASE}/connections/{connectionId}/parked`,
      tags: [TAG_PARKED],
      summary:
        "A connection's parked deliveries with reason and last error, newest events first (the time in the delivery id; parkedAt can be later)",
      request: { params: ConnectionParams, query: ParkedQuery },
      responses: {
        200: jsonOk(ParkedPageSchema, 'one page of parked deliveries'),
        ...errorResponses(400, 422),
      },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const q = c.req.valid('query');
      const result = await management.listParked(connectionId, {
        applicationId: c.get('applicationId'),
        since: q.since,
        limit: q.limit ?? DEFAULT_PAGE_SIZE,
        cursor: q.cursor,
      });
      return c.json(page(result), 200);
    },
  );
}

function recoverConnectionRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'recoverConnection',
      method: 'post',
      path: `${BASE}/connections/{connectionId}/recover`,
      tags: [TAG_PARKED],
      summary:
        "Recover: send the connection's parked deliveries again, oldest first, at a bounded rate (same delivery ids and bodies)",
      request: { params: ConnectionParams, body: { ...jsonBody(RecoverBody), required: false } },
      responses: {
        200: jsonOk(RecoverResultSchema, 'how many were re-queued and how many wait'),
        ...errorResponses(400, 413, 422),
      },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const body = c.req.valid('json') ?? {};
      const result = await management.recoverConnection(connectionId, {
        applicationId: c.get('applicationId'),
        since: body.since,
      });
      return c.json(result, 200);
    },
  );
}

function retryDeliveryRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'retryDelivery',
      method: 'post',
      path: `${BASE}/deliveries/{deliveryId}/retry`,
      tags: [TAG_PARKED],
      summary: 'Retry one parked delivery now (same delivery id and body; its attempt numbers continue)',
      request: { params: DeliveryParams },
      responses: {
        200: jsonOk(RetryResultSchema, 'the delivery is queued again'),
        ...errorResponses(413, 422),
      },
    }),
    async (c) => {
      const { deliveryId } = c.req.valid('param');
      return c.json(
        await management.retryDelivery(deliveryId, { applicationId: c.get('applicationId') }),
        200,
      );
    },
  );
}

function resendDeliveryRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'resendDelivery',
      method: 'post',
      path: `${BASE}/deliveries/{deliveryId}/resend`,
      tags: [TAG_PARKED],
      summary:
        'Resend any delivery still in the attempt log, delivered or not: a new attempt of the same delivery (same id and body, the next attempt number, signed afresh), sent through the pipeline; if it fails it is retried and parked like any chain',
      request: { params: DeliveryParams },
      responses: {
        202: jsonOk(ResendResultSchema, 'the new attempt is queued; the dispatcher sends it within seconds'),
        ...errorResponses(409, 413, 422),
      },
    }),
    async (c) => {
      const { deliveryId } = c.req.valid('param');
      return c.json(
        await management.resendDelivery(deliveryId, { applicationId: c.get('applicationId') }),
        202,
      );
    },
  );
}
