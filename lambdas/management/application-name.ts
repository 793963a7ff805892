/**
 * An application's display name, where the project knows one. Applications are not stored: a
 * connection keeps only its `applicationId`, and the name travels in each event's payload
 * (`application.name`, docs/protocol.md §2). The attempt log keeps the body of a delivery's
 * first attempt (`keepBodies`, docs/design.md §5), so the name the application's events last
 * carried is there. Send Test and `webhooks publish` (without `--application-name`) use it,
 * so a receiver sees the same name a real event of that application carries.
 */

import type { AttemptRecord } from '../core/types';

/** At most this many of the application's connections are read (the one asked about first). */
export const NAME_LOOKUP_CONNECTIONS = 5;
/** The latest attempt records read of each: first attempts keep the body, retries do not. */
export const NAME_LOOKUP_RECORDS = 20;

/** The part of the attempt log the lookup reads. */
export interface RecentAttempts {
  list(query: { connectionId: string; limit: number }): Promise<AttemptRecord[]>;
}

/** The `application.name` a kept body carries, when it is this application's. */
function nameIn(record: AttemptRecord, applicationId: string): string | undefined {
  if (record.test || record.body === undefined || record.applicationId !== applicationId) return undefined;
  try {
    const app = (JSON.parse(record.body) as { application?: { id?: unknown; name?: unknown } }).application;
    return app?.id === applicationId && typeof app.name === 'string' && app.name.trim() !== ''
      ? app.name
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `application.name` of the newest delivery (not a test send) whose body the attempt log
 * keeps, among the latest {@link NAME_LOOKUP_RECORDS} records of each of the first
 * {@link NAME_LOOKUP_CONNECTIONS} connections given. Undefined when none is kept (no event
 * yet, bodies not kept, or expired): the caller then uses the application id. A read that
 * fails counts as nothing found: a name is never worth failing a send for.
 */
export async function lastApplicationName(
  attempts: RecentAttempts,
  applicationId: string,
  connectionIds: readonly string[],
): Promise<string | undefined> {
  const ids = [...new Set(connectionIds)].slice(0, NAME_LOOKUP_CONNECTIONS);
  const reads = await Promise.all(
    ids.map((connectionId) =>
      attempts.list({ connectionId, limit: NAME_LOOKUP_RECORDS }).catch(() => [] as AttemptRecord[]),
    ),
  );
  let newest: { at: string; name: string } | undefined;
  for (const record of reads.flat()) {
    const name = nameIn(record, applicationId);
    if (name !== undefined && (!newest || record.requestedAt > newest.at)) {
      newest = { at: record.requestedAt, name };
    }
  }
  return newest?.name;
}
