/** What the API returns: no secret ARN, no custom header value, no table keys. */

import { ATTEMPT_RECORD_FIELDS, type AttemptRecord, type Connection } from '../core/types';
import { healthView } from '../management/connections';
import { ConnectionSchema } from '../shapes/connection';
import type { ConnectionView } from '../shapes/connection-types';
import { HIDDEN_HEADER_VALUE } from './schemas';

export type { ConnectionView };

/**
 * The fields a connection shows, in order: those its schema declares and no other, so what is
 * stored and never shown (the secret's ARN or ciphertext, shard steps) cannot leak.
 */
const SHOWN = Object.keys(ConnectionSchema.shape) as (keyof ConnectionView)[];

export function connectionView(c: Connection): ConnectionView {
  const shown: Partial<Record<keyof ConnectionView, unknown>> = {
    ...c,
    headers: Object.fromEntries(Object.keys(c.headers ?? {}).map((name) => [name, HIDDEN_HEADER_VALUE])),
    health: healthView(c.health),
  };
  const view: Record<string, unknown> = {};
  for (const field of SHOWN) if (shown[field] !== undefined) view[field] = shown[field];
  return view as ConnectionView;
}

/** An attempt as the API shows it: without the delivery's body, which the delivery view shows once. */
export function attemptView(record: AttemptRecord): Omit<AttemptRecord, 'body'> {
  const out: Record<string, unknown> = {};
  for (const field of ATTEMPT_RECORD_FIELDS) {
    if (field !== 'body' && record[field] !== undefined) out[field] = record[field];
  }
  return out as unknown as AttemptRecord;
}
