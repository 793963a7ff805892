/** The attempt log: a connection's attempts, its chart data, one delivery. */

import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { connectionIdOf } from '../../core/ids';
import { bodyOfDelivery } from '../../core/resend';
import { parseSince, windowProblem } from '../../management/since';
import { ApiError, ERROR_CODES, notFound } from '../errors';
import {
  AttemptPageSchema,
  AttemptQuery,
  ConnectionParams,
  DEFAULT_PAGE_SIZE,
  DeliveryParams,
  DeliverySchema,
  MAX_STATS_BUCKETS,
  STATS_BUCKETS,
  StatsQuery,
  StatsSchema,
} from '../schemas';
import { bucketStats } from '../stats';
import type { ApiDeps, ApiEnv } from '../types';
import { attemptView } from '../views';
import { errorResponses, jsonOk, TAG_LOGS } from './common';
import { ownedConnection } from './connections';

const BASE = '/api/v1/applications/{applicationId}';
const DAY_MS = 86_400_000;

const badParameter = (field: string, problem: string) =>
  new ApiError(400, ERROR_CODES.invalidParameter, `${field}: ${problem}`, field);

export function logRoutes(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  listAttemptsRoute(app, deps);
  getStatsRoute(app, deps);
  getDeliveryRoute(app, deps);
}

function listAttemptsRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  const now = () => new Date((deps.clock ?? Date.now)());
  app.openapi(
    createRoute({
      operationId: 'listAttempts',
      method: 'get',
      path: `${BASE}/connections/{connectionId}/attempts`,
      tags: [TAG_LOGS],
      summary: 'Attempt log of a connection, by attempt time, newest first, with filters',
      request: { params: ConnectionParams, query: AttemptQuery },
      responses: { 200: jsonOk(AttemptPageSchema, 'one page of attempts'), ...errorResponses(400) },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const q = c.req.valid('query');
      await ownedConnection(deps, c.get('applicationId'), connectionId);
      const page = await management.attempts.page({
        connectionId,
        outcome: q.outcome,
        since: q.since ? new Date(parseSince(q.since, now().getTime())!) : undefined,
        until: q.until ? new Date(parseSince(q.until, now().getTime())!) : undefined,
        final: q.final === undefined ? undefined : q.final === 'true',
        limit: q.limit ?? DEFAULT_PAGE_SIZE,
        cursor: q.cursor,
      });
      return c.json({ data: page.items.map(attemptView), nextCursor: page.nextCursor ?? null }, 200);
    },
  );
}

function getStatsRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  const now = () => new Date((deps.clock ?? Date.now)());
  app.openapi(
    createRoute({
      operationId: 'getStats',
      method: 'get',
      path: `${BASE}/connections/{connectionId}/stats`,
      tags: [TAG_LOGS],
      summary:
        'Per time bucket: attempts by outcome and latency p50/p95 (read from the attempt log; no write per delivery)',
      request: { params: ConnectionParams, query: StatsQuery },
      responses: { 200: jsonOk(StatsSchema, 'chart data'), ...errorResponses(400) },
    }),
    async (c) => {
      const { connectionId } = c.req.valid('param');
      const q = c.req.valid('query');
      await ownedConnection(deps, c.get('applicationId'), connectionId);
      const at = now();
      const until = q.until ? new Date(parseSince(q.until, at.getTime())!) : at;
      const since = q.since
        ? new Date(parseSince(q.since, at.getTime())!)
        : new Date(until.getTime() - DAY_MS);
      const problem = windowProblem(since.getTime(), until.getTime());
      if (problem) throw badParameter('since', problem);
      const bucketSeconds = STATS_BUCKETS[q.bucket ?? '1h'];
      if ((until.getTime() - since.getTime()) / (bucketSeconds * 1000) > MAX_STATS_BUCKETS) {
        throw badParameter(
          'bucket',
          `the window holds more than ${MAX_STATS_BUCKETS} buckets; choose a wider bucket`,
        );
      }
      const read = await management.attempts.inRange({ connectionId, since, until });
      const { buckets, totals } = bucketStats(read.items, { since, until, bucketSeconds });
      return c.json(
        {
          since: since.toISOString(),
          until: until.toISOString(),
          bucketSeconds,
          buckets,
          totals,
          read: { items: read.scanned, readUnits: read.readUnits, truncated: read.truncated },
        },
        200,
      );
    },
  );
}

function getDeliveryRoute(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  app.openapi(
    createRoute({
      operationId: 'getDelivery',
      method: 'get',
      path: `${BASE}/deliveries/{deliveryId}`,
      tags: [TAG_LOGS],
      summary: 'Every attempt of one delivery, oldest first',
      request: { params: DeliveryParams },
      responses: { 200: jsonOk(DeliverySchema, 'the delivery'), ...errorResponses() },
    }),
    async (c) => {
      const { deliveryId } = c.req.valid('param');
      const connectionId = connectionIdOf(deliveryId);
      const applicationId = c.get('applicationId');
      await ownedConnection(deps, applicationId, connectionId).catch(() => {
        throw notFound('delivery');
      });
      const attempts = (await management.attempts.ofDelivery(deliveryId)).filter(
        (a) => a.applicationId === applicationId,
      );
      if (attempts.length === 0) throw notFound('delivery');
      const body = bodyOfDelivery(attempts);
      return c.json(
        {
          deliveryId,
          connectionId,
          attempts: attempts.map(attemptView),
          ...('body' in body
            ? { body: body.body }
            : { bodyUnavailable: { reason: body.missing, message: body.message } }),
        },
        200,
      );
    },
  );
}
