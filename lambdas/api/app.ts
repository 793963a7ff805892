/**
 * The management HTTP API (docs/design.md §8) as one Hono app: the same app runs in the
 * management Lambda (behind API Gateway) and in local mode (on 127.0.0.1). Routes are
 * defined once with @hono/zod-openapi: the definitions validate requests and generate
 * `GET /api/v1/openapi.json`.
 */

import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { ValidationError } from '../core/errors';
import { RESERVED_KEYS } from '../core/payload';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../core/untrusted';
import { requireSession } from './auth';
import { mountConsole } from './console-files';
import { ApiError, ERROR_CODES, toApiError } from './errors';
import { API_TAGS } from './routes/common';
import { connectionRoutes } from './routes/connections';
import { deliveryRoutes } from './routes/deliveries';
import { indexRoute } from './routes/index';
import { logRoutes } from './routes/logs';
import { parkedRoutes } from './routes/parked';
import type { ApiDeps, ApiEnv } from './types';

export const API_BASE = '/api/v1';
export const OPENAPI_PATH = `${API_BASE}/openapi.json`;
export const DEFAULT_MAX_BODY_BYTES = 65_536;
/** POST routes that take a JSON body (the others, test among them, take none). */
const JSON_POST_PATH = /\/connections\/?$/;
/** POST routes whose JSON body is optional: without a body they take no Content-Type, with one only JSON. */
const OPTIONAL_JSON_POST_PATH = /\/(recover|secret\/rotate)\/?$/;

const OPENAPI_INFO = {
  title: 'Webhooks management API',
  version: '1.0.0',
  description:
    'Connections, secrets, test sends and the attempt log of one application. Every route but this document and the index at /api/v1 takes `Authorization: Bearer <session token>` (minted with createConsoleSession or `webhooks console`). Errors are `{ "error": { "code", "message", "field"? } }`.',
  license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
};

const OPENAPI_CONFIG = {
  openapi: '3.1.0',
  info: OPENAPI_INFO,
  security: [{ session: [] }],
  servers: [{ url: '/' }],
  tags: API_TAGS,
};

/** The field a zod issue is about (`headers.X-Api-Key`), as the library names it. */
function fieldOf(error: ZodError): string | undefined {
  const path = error.issues[0]?.path ?? [];
  return path.length ? path.map(String).join('.') : undefined;
}

function validationError(target: string, error: ZodError): ApiError {
  const issue = error.issues[0];
  const field = fieldOf(error);
  // An unknown key in a strict body names itself in `keys`, not in `path`.
  const unknownKey =
    issue?.code === 'unrecognized_keys' ? (issue as { keys?: string[] }).keys?.[0] : undefined;
  const name = unknownKey ?? field;
  const problem = unknownKey ? 'is not a field of this request' : (issue?.message ?? 'is invalid');
  if (target === 'param') return new ApiError(404, ERROR_CODES.notFound, 'not found');
  if (target === 'json') {
    return new ApiError(422, ERROR_CODES.validationFailed, name ? `${name}: ${problem}` : problem, name);
  }
  return new ApiError(400, ERROR_CODES.invalidParameter, name ? `${name}: ${problem}` : problem, name);
}

/**
 * Checks a JSON body's shape before anything walks it. Nesting is counted on the text without
 * parsing or recursion (core/untrusted.ts), so `[[[…]]]` thousands deep is a 422, never a stack
 * overflow; no body this API takes nests deeper than 3.
 *
 * `__proto__` survives JSON.parse as a key of its own but not the copy validation makes, so
 * `{"headers":{"__proto__":"x"}}` would be saved as no header at all. Refused by name before
 * validation, as the core refuses the other reserved names (core/payload.ts RESERVED_KEYS).
 * A body that is not JSON is left to the validator, which says so.
 */
function checkJsonBody(text: string): void {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError(
      422,
      ERROR_CODES.validationFailed,
      `the request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  const path = protoKeyPath(body);
  if (path)
    throw new ValidationError(path, `is a reserved name (${[...RESERVED_KEYS].join(', ')} cannot be keys)`);
}

/** The path of the first `__proto__` key in a parsed body, walked with a queue of its own (no recursion). */
function protoKeyPath(body: unknown): string | undefined {
  const pending: Array<[unknown, string[]]> = [[body, []]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) return [...path, '__proto__'].join('.');
    const entries = Object.entries(value);
    // Pushed in reverse so the first key is looked at first, as a reader would expect.
    for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i]![1], [...path, entries[i]![0]]]);
  }
  return undefined;
}

/** Every error as the API's error body; a 5xx logged with what an operator needs. */
function answerError(error: Error, c: Context<ApiEnv>) {
  let apiError: ApiError;
  if (error instanceof HTTPException && error.status === 400) {
    apiError = new ApiError(400, ERROR_CODES.invalidJson, 'the request body is not valid JSON');
  } else {
    apiError = toApiError(error);
  }
  if (apiError.status >= 500) {
    // What an operator needs to act on: the failing call and the dependency's own error
    // (AWS SDK messages name resources, never secret values). Never the request body.
    // One object: Lambda's JSON log format makes it the record's `message`, fields and all, which
    // the saved query "management API errors" reads (lib/log-queries.ts).
    console.error({
      message: 'management API request failed',
      method: c.req.method,
      path: c.req.path,
      error: error?.name,
      detail: error?.message,
    });
  }
  c.header('Cache-Control', 'no-store');
  return c.json(apiError.body(), apiError.status);
}

/** Routes that take a body take JSON and nothing else (an absent body is not an empty patch). */
async function checkBody(c: Context<ApiEnv>, next: Next): Promise<void> {
  const contentType = c.req.header('content-type');
  const takesBody =
    c.req.method === 'PATCH' ||
    (c.req.method === 'POST' &&
      (JSON_POST_PATH.test(c.req.path) ||
        (OPTIONAL_JSON_POST_PATH.test(c.req.path) && contentType !== undefined)));
  if (takesBody && !/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
    throw new ApiError(
      400,
      ERROR_CODES.invalidRequest,
      'the request body must be application/json (Content-Type: application/json)',
    );
  }
  if (takesBody) checkJsonBody(await c.req.text());
  await next();
}

export function createApi(deps: ApiDeps): OpenAPIHono<ApiEnv> {
  const clock = deps.clock ?? Date.now;
  const app = new OpenAPIHono<ApiEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.target, result.error as ZodError);
    },
  });

  app.onError(answerError);
  app.notFound((c) => c.json(new ApiError(404, ERROR_CODES.notFound, 'no such route').body(), 404));

  app.use(`${API_BASE}/*`, async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  });
  app.use(
    `${API_BASE}/applications/*`,
    requireSession({ sessionKey: deps.sessionKey, clock }),
    bodyLimit({
      maxSize: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError(
          413,
          ERROR_CODES.payloadTooLarge,
          `the request body is larger than ${deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`,
        );
      },
    }),
    checkBody,
  );

  indexRoute(app, {
    console: deps.consoleDir !== undefined && deps.consoleDir !== false,
    mode: deps.mode ?? 'deployed',
    recoveryChecks: deps.recoveryChecks ?? true,
  });
  connectionRoutes(app, deps);
  logRoutes(app, deps);
  deliveryRoutes(app, deps);
  parkedRoutes(app, deps);

  app.doc31(OPENAPI_PATH, OPENAPI_CONFIG);
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'console session token (1 h by default, at most 24 h), one application',
  });

  mountConsole(app as never, deps.consoleDir ?? false);
  return app;
}

/** The OpenAPI 3.1 document of {@link createApi}'s routes (what `GET /api/v1/openapi.json` answers). */
export function openApiDocument(app: OpenAPIHono<ApiEnv>) {
  return app.getOpenAPI31Document(OPENAPI_CONFIG);
}
