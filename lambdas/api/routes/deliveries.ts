/** An application's deliveries across its connections: found by user, event, connection, outcome and time. */

import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { parseSince } from '../../management/since';
import {
  ApplicationParams,
  DEFAULT_PAGE_SIZE,
  DeliveryListQuery,
  DeliverySummaryPageSchema,
} from '../schemas';
import type { ApiDeps, ApiEnv } from '../types';
import { errorResponses, jsonOk, TAG_LOGS } from './common';

export function deliveryRoutes(app: OpenAPIHono<ApiEnv>, deps: ApiDeps): void {
  const { management } = deps;
  const now = () => (deps.clock ?? Date.now)();
  const time = (text: string | undefined) => (text ? new Date(parseSince(text, now())!) : undefined);
  app.openapi(
    createRoute({
      operationId: 'listDeliveries',
      method: 'get',
      path: '/api/v1/applications/{applicationId}/deliveries',
      tags: [TAG_LOGS],
      summary:
        "An application's deliveries across its connections, newest first (by when each was created), with where each stands now; by userId or eventId when delivery search is on",
      request: { params: ApplicationParams, query: DeliveryListQuery },
      responses: {
        200: jsonOk(DeliverySummaryPageSchema, 'one page of deliveries'),
        ...errorResponses(400, 422),
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const page = await management.deliveries.list({
        applicationId: c.get('applicationId'),
        connectionId: q.connectionId,
        userId: q.userId,
        eventId: q.eventId,
        outcome: q.outcome,
        since: time(q.since),
        until: time(q.until),
        limit: q.limit ?? DEFAULT_PAGE_SIZE,
        cursor: q.cursor,
      });
      return c.json({ data: page.items, nextCursor: page.nextCursor ?? null }, 200);
    },
  );
}
