/** What the API returns: no secret ARN, no custom header value, no table keys. */

import { ATTEMPT_RECORD_FIELDS, type AttemptRecord, type Connection } from '../core/types';
import { type HealthView, healthView } from '../management/connections';
import { HIDDEN_HEADER_VALUE } from './schemas';

export interface ConnectionView {
  connectionId: string;
  applicationId: string;
  type: 'webhook';
  name: string;
  url: string;
  method: Connection['method'];
  headers: Record<string, string>;
  enabled: boolean;
  rateLimit?: number;
  health: HealthView;
  secretVersion?: string;
  createdAt: string;
  updatedAt: string;
}

export function connectionView(c: Connection): ConnectionView {
  return {
    connectionId: c.connectionId,
    applicationId: c.applicationId,
    type: c.type,
    name: c.name,
    url: c.url,
    method: c.method,
    headers: Object.fromEntries(Object.keys(c.headers ?? {}).map((name) => [name, HIDDEN_HEADER_VALUE])),
    enabled: c.enabled,
    ...(c.rateLimit !== undefined ? { rateLimit: c.rateLimit } : {}),
    health: healthView(c.health),
    ...(c.secretVersion ? { secretVersion: c.secretVersion } : {}),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** An attempt as the API shows it: without the delivery's body, which the delivery view shows once. */
export function attemptView(record: AttemptRecord): Omit<AttemptRecord, 'body'> {
  const out: Record<string, unknown> = {};
  for (const field of ATTEMPT_RECORD_FIELDS) {
    if (field !== 'body' && record[field] !== undefined) out[field] = record[field];
  }
  return out as unknown as AttemptRecord;
}
