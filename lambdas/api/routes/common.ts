/** Pieces every route definition uses: JSON bodies, the error responses, tags. */

import type { z } from '@hono/zod-openapi';
import { ErrorSchema } from '../schemas';

export const TAG_CONNECTIONS = 'Connections';
export const TAG_LOGS = 'Attempt log';
export const TAG_PARKED = 'Parked deliveries';
export const TAG_API = 'API';

/** The document's top-level tags, in the order a reader meets them. */
export const API_TAGS = [
  { name: TAG_API, description: 'where to start: the index of this API (no session needed)' },
  { name: TAG_CONNECTIONS, description: 'webhook connections, their secrets and test sends' },
  { name: TAG_LOGS, description: 'the attempt log: every attempt of every delivery, and chart data' },
  {
    name: TAG_PARKED,
    description: 'deliveries that failed for good or met a disabled connection, kept to be sent again',
  },
];

export function jsonOk<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { 'application/json': { schema } }, required: true };
}

const ERROR_DESCRIPTIONS = {
  400: 'malformed JSON or a bad query parameter',
  401: 'missing, malformed, tampered or expired session token',
  404: 'no such application, connection or delivery for this session',
  409: 'changed meanwhile; read it again and retry',
  413: 'request body too large (every route under /applications takes at most 64 KiB by default)',
  422: 'a field breaks a rule; `field` names it',
  429: 'too many requests (the deployed API throttles)',
} as const;

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** 429 alone: what a route outside the session can answer besides its own (API Gateway throttles every route). */
export function throttledResponse() {
  return {
    429: { content: { 'application/json': { schema: ErrorSchema } }, description: ERROR_DESCRIPTIONS[429] },
  };
}

/** 401, 404 and 429 on every data route, plus the statuses given. */
export function errorResponses(...extra: ErrorStatus[]) {
  const statuses = [...new Set<ErrorStatus>([401, 404, 429, ...extra])].sort();
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { content: { 'application/json': { schema: ErrorSchema } }, description: ERROR_DESCRIPTIONS[s] },
    ]),
  ) as Record<
    ErrorStatus,
    { content: { 'application/json': { schema: typeof ErrorSchema } }; description: string }
  >;
}
