/**
 * Checks of the request an attempt record keeps (its headers and body), for records read back
 * from the retry queue (envelope.ts): nothing in a queued record is taken on trust.
 */

import { MAX_BODY_BYTES } from './constants';
import { MAX_CUSTOM_HEADERS, MAX_HEADER_NAME_LENGTH } from './headers';

/** Most headers a request carries: the service's 7 and at most MAX_CUSTOM_HEADERS custom ones. */
export const MAX_REQUEST_HEADERS = 7 + MAX_CUSTOM_HEADERS;

/** The rule a record's request headers break, or undefined when they are a short list of `{ name, value }` strings. */
export function requestHeadersRule(headers: unknown, maxValueLength: number): string | undefined {
  if (headers === undefined) return undefined;
  const rule = `must be a list of at most ${MAX_REQUEST_HEADERS} { name, value } strings`;
  if (!Array.isArray(headers) || headers.length > MAX_REQUEST_HEADERS) return rule;
  for (const h of headers as unknown[]) {
    if (typeof h !== 'object' || h === null || Object.keys(h).length !== 2) return rule;
    const { name, value } = h as Record<string, unknown>;
    const ok =
      typeof name === 'string' &&
      typeof value === 'string' &&
      name.length <= MAX_HEADER_NAME_LENGTH &&
      value.length <= maxValueLength;
    if (!ok) return rule;
  }
  return undefined;
}

/** A delivery body as a record may keep it: text of at most MAX_BODY_BYTES bytes. */
export function isBodyText(body: unknown): body is string {
  return typeof body === 'string' && Buffer.byteLength(body, 'utf8') <= MAX_BODY_BYTES;
}
