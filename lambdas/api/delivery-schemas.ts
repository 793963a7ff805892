/**
 * The API's shapes of the attempt log: an attempt with the request it sent, a page of them, a
 * delivery with its body (or why it is not kept), and what a Resend answers. schemas.ts
 * re-exports them beside the other shapes.
 */

import { z } from '@hono/zod-openapi';
import { HIDDEN_HEADER_VALUE, OUTCOMES } from '../core/types';
import { DELIVERY_STATES } from '../management/deliveries';

export const AttemptSchema = z
  .object({
    deliveryId: z.string(),
    attempt: z.number().int(),
    eventId: z.string(),
    connectionId: z.string(),
    applicationId: z.string(),
    userId: z.string(),
    event: z.string(),
    method: z.string(),
    target: z.string().openapi({ description: 'origin and path of the URL, never the query string' }),
    requestedAt: z.string(),
    durationMs: z.number(),
    outcome: z.enum(OUTCOMES),
    statusCode: z.number().int().optional(),
    responseSnippet: z.string().optional(),
    error: z.string().optional(),
    nextAttemptAt: z.string().optional(),
    final: z.boolean(),
    test: z.boolean().optional(),
    traceId: z
      .string()
      .optional()
      .openapi({ description: "the attempt's X-Ray trace id, when the dispatcher runs with tracing on" }),
    sendId: z.string().optional().openapi({
      description:
        'tells two sends of the same attempt apart (a queue message delivered twice is two records)',
    }),
    expiresAt: z.number().int().openapi({ description: 'epoch seconds when the record ages out' }),
    requestHeaders: z
      .array(z.object({ name: z.string(), value: z.string() }))
      .optional()
      .openapi({
        description: `the request headers as sent, in order; a custom header's value reads ${HIDDEN_HEADER_VALUE}. Absent when nothing was sent (a refusal)`,
      }),
    resentAs: z.number().int().optional().openapi({
      description: 'a Resend queued the delivery again after this attempt, as this attempt number',
    }),
    trigger: z.enum(['probe']).optional().openapi({
      description:
        'probe: an automatic recovery check sent this attempt while the endpoint was down (docs/operations.md)',
    }),
  })
  .openapi('Attempt');

export const AttemptPageSchema = z
  .object({ data: z.array(AttemptSchema), nextCursor: z.string().nullable() })
  .openapi('AttemptPage');

export const DeliverySchema = z
  .object({
    deliveryId: z.string(),
    connectionId: z.string(),
    attempts: z.array(AttemptSchema),
    body: z.string().optional().openapi({
      description:
        'the exact request body every attempt sent (absent when it is not kept: see bodyUnavailable)',
    }),
    bodyUnavailable: z
      .object({ reason: z.enum(['not_kept', 'aged_out']), message: z.string() })
      .optional()
      .openapi({ description: 'why the body is not shown, in words for the reader' }),
  })
  .openapi('Delivery');

export const ResendResultSchema = z
  .object({
    deliveryId: z.string(),
    connectionId: z.string(),
    attempt: z
      .number()
      .int()
      .openapi({ description: 'the number of the new attempt (the last one plus one)' }),
  })
  .openapi('ResendResult');

export const DeliverySummarySchema = z
  .object({
    deliveryId: z.string(),
    connectionId: z.string(),
    eventId: z.string(),
    userId: z.string(),
    event: z.string(),
    firstAttemptAt: z.string(),
    lastAttemptAt: z.string(),
    attempts: z.number().int().openapi({ description: 'the number of its latest attempt' }),
    outcome: z.enum(OUTCOMES).openapi({ description: "its latest attempt's outcome" }),
    statusCode: z.number().int().optional(),
    state: z.enum(DELIVERY_STATES).openapi({
      description:
        'where it stands now: delivered; retrying (a retry is scheduled, or it was sent again); parked (failed for good, kept to send again); dead_lettered (failed for good, not parked); failed (a test send, never retried)',
    }),
    test: z.boolean().optional(),
  })
  .openapi('DeliverySummary');

export const DeliverySummaryPageSchema = z
  .object({
    data: z.array(DeliverySummarySchema),
    nextCursor: z.string().nullable().openapi({
      description:
        'more may follow even when data holds fewer than limit (filters are applied as pages are read)',
    }),
  })
  .openapi('DeliverySummaryPage');

// The shapes above as types, written out without zod into lambdas/shapes/resource-types.ts by
// `npm run openapi` (scripts/shape-types.ts): the core and the console read them from there.

/** One attempt of one delivery, as the attempt log keeps it and the API shows it. */
export type AttemptView = z.infer<typeof AttemptSchema>;
/** Every attempt of one delivery, with its body when kept. */
export type DeliveryView = z.infer<typeof DeliverySchema>;
/** What a Resend answers: the new attempt's number. */
export type ResendResultView = z.infer<typeof ResendResultSchema>;
/** One delivery of an application's deliveries list, with where it stands now. */
export type DeliverySummaryView = z.infer<typeof DeliverySummarySchema>;
