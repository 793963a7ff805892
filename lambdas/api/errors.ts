/**
 * The API's one error shape (docs/design.md §8): `{ "error": { "code", "message", "field"? } }`.
 * Every failure becomes an {@link ApiError}; {@link toApiError} is the single place that maps
 * the management library's errors to HTTP. Messages name the field and never echo a secret
 * or a custom header value (the library's messages already follow that rule).
 */

import { type ErrorStage, InvalidCursorError, WebhookError } from '../core/errors';
import { SessionError } from '../management/console-session';
import { ConflictError, NotFoundError, ValidationError } from '../management/errors';

export type ApiStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503;

export const ERROR_CODES = {
  invalidJson: 'invalid_json',
  invalidRequest: 'invalid_request',
  invalidParameter: 'invalid_parameter',
  validationFailed: 'validation_failed',
  unauthenticated: 'unauthenticated',
  sessionExpired: 'session_expired',
  notFound: 'not_found',
  conflict: 'conflict',
  payloadTooLarge: 'payload_too_large',
  tooManyRequests: 'too_many_requests',
  internal: 'internal_error',
  unavailable: 'unavailable',
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

export class ApiError extends WebhookError {
  constructor(
    readonly status: ApiStatus,
    override readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(code, message);
    this.name = 'ApiError';
  }

  /** A 5xx is the service's own failure; every other status answers what the caller sent. */
  get stage(): ErrorStage {
    return this.status >= 500 ? 'infrastructure' : 'input';
  }

  body(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) },
    };
  }
}

export const notFound = (what: string) => new ApiError(404, ERROR_CODES.notFound, `${what} not found`);

/** Maps any thrown value to the API error it means; unknown errors are a 500 with a generic message. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof SessionError) {
    return new ApiError(
      401,
      error.reason === 'expired' ? ERROR_CODES.sessionExpired : ERROR_CODES.unauthenticated,
      error.message,
    );
  }
  // A cursor is a query parameter: one the API did not hand out for this listing is a bad request.
  if (error instanceof InvalidCursorError) {
    return new ApiError(400, ERROR_CODES.invalidParameter, error.message, error.field);
  }
  if (error instanceof ValidationError) {
    return new ApiError(422, ERROR_CODES.validationFailed, error.message, error.field);
  }
  // Ids are validated before the library sees them, so "not found" never names another application's id.
  if (error instanceof NotFoundError) return notFound(error.kind);
  if (error instanceof ConflictError) return new ApiError(409, ERROR_CODES.conflict, error.message);
  if (error instanceof WebhookError) return new ApiError(500, ERROR_CODES.internal, 'internal error');
  return new ApiError(500, ERROR_CODES.internal, 'internal error');
}
