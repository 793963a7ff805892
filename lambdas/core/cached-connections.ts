/**
 * Caches connection lookups in the warm Lambda (docs/design.md §5): steady traffic reads
 * DynamoDB at most once per connection and per application every `ttlMs` (≤ 30 s), and a
 * change (disable, rotation that bumps `secretVersion`) is seen within that time. An entry past
 * {@link REFRESH_AFTER} of its TTL is served while it is read again (refresh-ahead, cache.ts), so a
 * batch of steady traffic never waits for a connection listing; none is served past its TTL. `fresh`
 * reads past the cache, for the one verdict a stale entry must not give (core/batch.ts).
 */

import { TtlCache } from './cache';
import type { Clock, ConnectionStore } from './ports';
import type { Connection } from './types';

const MAX_ENTRIES = 5_000;
/** The share of the TTL after which a hit also re-reads: steady traffic reads 1 ÷ 0.8 as often. */
export const REFRESH_AFTER = 0.8;

export function cachedConnections(store: ConnectionStore, ttlMs: number, clock: Clock): ConnectionStore {
  if (ttlMs <= 0) return store;
  // Absence is cached too (wrapped), so a flood of events for a deleted connection stays cheap.
  const refreshAfter = ttlMs * REFRESH_AFTER;
  const byId = new TtlCache<{ connection: Connection | undefined }>(ttlMs, MAX_ENTRIES, clock, refreshAfter);
  const byApplication = new TtlCache<Connection[]>(ttlMs, MAX_ENTRIES, clock, refreshAfter);
  return {
    async get(connectionId) {
      const entry = await byId.getOrLoad(connectionId, async () => ({
        connection: await store.get(connectionId),
      }));
      return entry.connection;
    },
    async fresh(connectionId) {
      const connection = await store.get(connectionId);
      byId.set(connectionId, { connection });
      return connection;
    },
    listByApplication(applicationId) {
      return byApplication.getOrLoad(applicationId, () => store.listByApplication(applicationId));
    },
  };
}
