/**
 * The API's request and response shapes: one set of zod definitions that validates requests
 * and generates the OpenAPI document (`GET /api/v1/openapi.json`). The connection's own
 * (Connection, CreateConnection, UpdateConnection, Health) live in lambdas/shapes/connection.ts,
 * where every other shape of a connection is derived from. Connection rules (HTTPS,
 * ports, refused addresses, header rules, names) are not repeated here: the management
 * library checks them, the same code the CLI and the dispatcher use.
 */

import { z } from '@hono/zod-openapi';
import { MAX_SECRET_OVERLAP_SECONDS } from '../core/constants';
import { APPLICATION_ID, CONNECTION_ID, DELIVERY_ID, EVENT_ID, USER_ID } from '../core/ids';
import { PARK_REASONS } from '../core/parking';
import { HIDDEN_HEADER_VALUE, OUTCOMES } from '../core/types';
import { isSince, SINCE_RULE } from '../management/since';
import { ConnectionSchema } from '../shapes/connection';

export {
  ConnectionSchema,
  CreateConnectionBody,
  HealthSchema,
  UpdateConnectionBody,
} from '../shapes/connection';
export {
  AttemptPageSchema,
  AttemptSchema,
  DeliverySchema,
  DeliverySummaryPageSchema,
  ResendResultSchema,
} from './delivery-schemas';
export { HIDDEN_HEADER_VALUE, OUTCOMES };

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_failed' }),
      message: z.string().openapi({ example: 'url: must use https:, got http:' }),
      field: z.string().optional().openapi({ example: 'url' }),
    }),
  })
  .openapi('Error');

export const ApplicationParams = z.object({
  applicationId: z
    .string()
    .regex(APPLICATION_ID)
    .openapi({ param: { name: 'applicationId', in: 'path' }, example: 'app_demo' }),
});

const connectionIdParam = z
  .string()
  .regex(CONNECTION_ID)
  .openapi({ param: { name: 'connectionId', in: 'path' }, example: 'con_01JD4Z8Q7X2N5M3K9B6V1C0RTY' });

export const ConnectionParams = ApplicationParams.extend({ connectionId: connectionIdParam });

export const DeliveryParams = ApplicationParams.extend({
  deliveryId: z
    .string()
    .regex(DELIVERY_ID)
    .openapi({ param: { name: 'deliveryId', in: 'path' } }),
});

const limitQuery = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_SIZE)
  .optional()
  .openapi({
    param: { name: 'limit', in: 'query' },
    example: 20,
    description: `1-${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}`,
  });
const cursorQuery = z
  .string()
  .max(2048)
  .optional()
  .openapi({ param: { name: 'cursor', in: 'query' }, description: 'nextCursor of the previous page' });

export const PageQuery = z.object({ limit: limitQuery, cursor: cursorQuery });

/** How every `since` and `until` reads, in the OpenAPI document. */
const SINCE_FORMS = 'an ISO 8601 time with a zone, or a duration back from now (30m, 24h, 7d)';

/** A `since`, checked by the rule the management library reads it with (the same on every route). */
const sinceText = () => z.string().max(40).refine(isSince, { message: SINCE_RULE });

const timeQuery = (name: 'since' | 'until', description: string, example: string) =>
  sinceText()
    .optional()
    .openapi({ param: { name, in: 'query' }, description: `${description}: ${SINCE_FORMS}`, example });
const sinceQuery = (description: string) => timeQuery('since', description, '24h');
/** An `until` reads as a `since` does: `until=1h` is an hour before now. */
const untilQuery = (description: string) => timeQuery('until', description, '2026-11-22T10:00:00Z');

export const AttemptQuery = PageQuery.extend({
  outcome: z
    .enum(OUTCOMES)
    .optional()
    .openapi({ param: { name: 'outcome', in: 'query' } }),
  since: sinceQuery('only attempts requested at or after this time'),
  until: untilQuery('only attempts requested before this time'),
  final: z
    .enum(['true', 'false'])
    .optional()
    .openapi({
      param: { name: 'final', in: 'query' },
      description: 'true: only the last attempt of a delivery',
    }),
});

export const DeliveryListQuery = PageQuery.extend({
  connectionId: z
    .string()
    .regex(CONNECTION_ID)
    .optional()
    .openapi({ param: { name: 'connectionId', in: 'query' }, description: 'only this connection' }),
  userId: z
    .string()
    .regex(USER_ID)
    .optional()
    .openapi({
      param: { name: 'userId', in: 'query' },
      description: 'only deliveries of this user (delivery search)',
    }),
  eventId: z
    .string()
    .regex(EVENT_ID)
    .optional()
    .openapi({
      param: { name: 'eventId', in: 'query' },
      description: 'only deliveries of this event (delivery search)',
    }),
  outcome: z
    .enum(OUTCOMES)
    .optional()
    .openapi({
      param: { name: 'outcome', in: 'query' },
      description: 'only deliveries whose latest attempt had this outcome',
    }),
  since: sinceQuery('only deliveries first attempted at or after this time'),
  until: untilQuery('only deliveries first attempted before this time'),
});

export const STATS_BUCKETS = { '1m': 60, '5m': 300, '15m': 900, '1h': 3_600, '1d': 86_400 } as const;
export const MAX_STATS_BUCKETS = 1_500;

export const StatsQuery = z.object({
  since: sinceQuery('start of the window; default 24 h before until'),
  until: untilQuery('end of the window; default now'),
  bucket: z
    .enum(Object.keys(STATS_BUCKETS) as [keyof typeof STATS_BUCKETS, ...(keyof typeof STATS_BUCKETS)[]])
    .optional()
    .openapi({ param: { name: 'bucket', in: 'query' }, description: 'bucket width; default 1h' }),
});

export const ParkedQuery = PageQuery.extend({
  since: sinceQuery('only deliveries of events since then'),
});

export const RecoverBody = z
  .object({
    since: sinceText()
      .optional()
      .openapi({
        description: `recover deliveries of events since then: ${SINCE_FORMS}; all parked deliveries when absent`,
        example: '24h',
      }),
  })
  .strict()
  .openapi('Recover');

export const RateLimitActivitySchema = z
  .object({
    rateLimit: z.number().int().nullable().openapi({
      description:
        'the limit that applies, deliveries per second (its own, else the stack default); null: none',
    }),
    source: z.enum(['connection', 'default', 'none']).openapi({ description: 'whose limit it is' }),
    seconds: z.number().int().openapi({ description: 'the seconds counted, ending now (60)' }),
    sent: z.number().int().openapi({ description: 'sends let go within the limit in those seconds' }),
    deferred: z.number().int().openapi({
      description:
        'deferrals in those seconds: deliveries put back to wait (one deferred twice counts twice)',
    }),
    waiting: z.boolean().openapi({
      description: 'deliveries are waiting for the rate limit now (a deferral in the last 15 s)',
    }),
    lastDeferredAt: z
      .string()
      .optional()
      .openapi({ description: 'the second of the last deferral in those seconds' }),
  })
  .openapi('RateLimitActivity');

export const ConnectionPageSchema = z
  .object({ data: z.array(ConnectionSchema), nextCursor: z.string().nullable() })
  .openapi('ConnectionPage');

export const SecretSchema = z
  .object({
    secret: z.string().openapi({ example: 'whsec_…', description: 'the secret that signs deliveries now' }),
    secretVersion: z.string().optional(),
    next: z
      .object({
        secret: z.string().openapi({ example: 'whsec_…' }),
        secretVersion: z.string(),
        switchAt: z.string().openapi({ description: 'when it starts signing, instead of `secret`' }),
      })
      .optional()
      .openapi({
        description:
          'a rotated secret that signs from switchAt on: receivers accept both until then; absent: none',
      }),
  })
  .openapi('Secret');

export const RotateSecretBody = z
  .object({
    switchAfter: z
      .number()
      .optional()
      .openapi({
        example: 3600,
        description: `seconds until the new secret starts signing, 0 (at once) to ${MAX_SECRET_OVERLAP_SECONDS} (30 days); absent: the stack's overlap (24 hours unless its operator set secretRotationOverlap)`,
      }),
    switchAt: z.string().optional().openapi({
      example: '2030-01-31T09:00:00Z',
      description: 'when the new secret starts signing (ISO 8601, within 30 days); instead of switchAfter',
    }),
  })
  .strict()
  .openapi('RotateSecret');

export const RotatedSecretSchema = z
  .object({
    secret: z.string().openapi({ example: 'whsec_…', description: 'the new secret' }),
    secretVersion: z.string(),
    switchAt: z.string().openapi({
      description: 'when the new secret starts signing; until then previousVersion signs (now: at once)',
    }),
    previousVersion: z.string().optional(),
  })
  .openapi('RotatedSecret');

export const ParkedSchema = z
  .object({
    deliveryId: z.string(),
    connectionId: z.string(),
    applicationId: z.string(),
    eventId: z.string(),
    reason: z.enum(PARK_REASONS).openapi({
      description:
        'exhausted: every attempt failed; connection_disabled: the connection was disabled; blocked: the egress policy refused the destination',
    }),
    lastError: z.string().optional(),
    lastOutcome: z.enum(OUTCOMES).optional(),
    lastStatusCode: z.number().int().optional(),
    attempts: z.number().int().openapi({ description: 'attempts made so far; a retry continues after them' }),
    parkedAt: z.string(),
  })
  .openapi('ParkedDelivery');

export const ParkedPageSchema = z
  .object({ data: z.array(ParkedSchema), nextCursor: z.string().nullable() })
  .openapi('ParkedPage');

export const RecoverResultSchema = z
  .object({
    requeued: z
      .number()
      .int()
      .openapi({ description: 'deliveries put back on the retry queue by this call' }),
    remaining: z
      .number()
      .int()
      .openapi({ description: 'parked deliveries in the range still waiting; call again to take them' }),
  })
  .openapi('RecoverResult');

export const RetryResultSchema = z
  .object({ requeued: z.literal(true), connectionId: z.string() })
  .openapi('RetryResult');

const outcomeCounts = z.object(
  Object.fromEntries(OUTCOMES.map((o) => [o, z.number().int()])) as Record<
    (typeof OUTCOMES)[number],
    z.ZodNumber
  >,
);

export const StatsSchema = z
  .object({
    since: z.string(),
    until: z.string(),
    bucketSeconds: z.number().int(),
    buckets: z.array(
      z.object({
        start: z.string(),
        total: z.number().int(),
        outcomes: outcomeCounts,
        latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
      }),
    ),
    totals: z.object({
      total: z.number().int(),
      outcomes: outcomeCounts,
      latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
    }),
    read: z
      .object({
        items: z.number().int(),
        readUnits: z.number(),
        truncated: z.boolean(),
      })
      .openapi({ description: 'what computing this answer read from the attempt log (it writes nothing)' }),
  })
  .openapi('Stats');

// The shapes above as types, written out without zod into lambdas/shapes/resource-types.ts by
// `npm run openapi` (scripts/shape-types.ts): the core and the console read them from there.

/** The API's error body: `{ error: { code, message, field? } }`. */
export type ErrorView = z.infer<typeof ErrorSchema>;
/** A connection's rate limit and its last minute, from the dispatchers' counters. */
export type RateLimitActivityView = z.infer<typeof RateLimitActivitySchema>;
/** Show Secret. */
export type SecretView = z.infer<typeof SecretSchema>;
/** What a rotation answers. */
export type RotatedSecretView = z.infer<typeof RotatedSecretSchema>;
/** When a rotation switches: `switchAfter` seconds (0: at once) or `switchAt`; neither: the stack's overlap. */
export type RotateSecretRequest = z.infer<typeof RotateSecretBody>;
/** A delivery kept for the customer to send again: never its body. */
export type ParkedView = z.infer<typeof ParkedSchema>;
export type RecoverResultView = z.infer<typeof RecoverResultSchema>;
export type RetryResultView = z.infer<typeof RetryResultSchema>;
/** `…/stats`: counts by outcome and latency percentiles, in time buckets and in total. */
export type StatsView = z.infer<typeof StatsSchema>;
