/**
 * Session check for every data route: `Authorization: Bearer <token>`, verified with the
 * stack's signing key. A token names one application; any other application's path answers
 * 404, as if it did not exist (a token holder learns nothing about other applications).
 */

import type { MiddlewareHandler } from 'hono';
import { verifySessionToken } from '../management/console-session';
import { ApiError, ERROR_CODES, notFound, toApiError } from './errors';
import type { ApiEnv } from './types';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;
const APPLICATION_PATH = /^\/api\/v1\/applications\/([^/]*)/;

export function requireSession(deps: {
  sessionKey: { get(): Promise<Uint8Array> };
  clock: () => number;
}): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const token = header ? BEARER.exec(header.trim())?.[1] : undefined;
    if (header && !token) {
      throw new ApiError(401, ERROR_CODES.unauthenticated, 'Authorization must be "Bearer <session token>"');
    }
    let applicationId: string;
    try {
      ({ applicationId } = await verifySessionToken(await deps.sessionKey.get(), token, deps.clock()));
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status === 401) c.header('WWW-Authenticate', 'Bearer realm="webhooks"');
      throw apiError;
    }
    const match = APPLICATION_PATH.exec(c.req.path);
    let pathApplication: string | undefined;
    try {
      pathApplication = match ? decodeURIComponent(match[1]!) : undefined;
    } catch {
      pathApplication = undefined;
    }
    if (pathApplication !== applicationId) throw notFound('application');
    c.set('applicationId', applicationId);
    await next();
  };
}
