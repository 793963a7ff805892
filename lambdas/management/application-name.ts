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
/** The latest attempt records read of each. */
export const NAME_LOOKUP_RECORDS = 20;
/** The newest of the application's deliveries among them whose kept body is looked for. */
export const NAME_LOOKUP_DELIVERIES = 5;

/** The part of the attempt log the lookup reads: listings carry no body, a delivery's attempts do. */
export interface RecentAttempts {
  list(query: { connectionId: string; limit: number }): Promise<AttemptRecord[]>;
  ofDelivery(deliveryId: string): Promise<AttemptRecord[]>;
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
 * keeps, among the {@link NAME_LOOKUP_DELIVERIES} newest deliveries in the latest
 * {@link NAME_LOOKUP_RECORDS} records of each of the first {@link NAME_LOOKUP_CONNECTIONS}
 * connections given. Undefined when none is kept (no event yet, bodies not kept, or expired):
 * the caller then uses the application id. A read that fails counts as nothing found: a name is
 * never worth failing a send for.
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
  const newestFirst = reads
    .flat()
    .filter((r) => !r.test && r.applicationId === applicationId)
    .sort((a, b) => (a.requestedAt < b.requestedAt ? 1 : -1));
  const deliveries = [...new Set(newestFirst.map((r) => r.deliveryId))].slice(0, NAME_LOOKUP_DELIVERIES);
  for (const deliveryId of deliveries) {
    const kept = await attempts.ofDelivery(deliveryId).catch(() => [] as AttemptRecord[]);
    for (const record of kept) {
      const name = nameIn(record, applicationId);
      if (name !== undefined) return name;
    }
  }
  return undefined;
}
