/**
 * Key schema of the two DynamoDB tables. One definition, read by the CDK construct,
 * the local emulator bootstrap and the adapters, so the three can never drift apart.
 * Pure constants: no SDK imports.
 */

import { ATTEMPT_RECORD_FIELDS } from '../../core/types';

/** Connections table (docs/design.md §5). */
export const CONNECTIONS_TABLE = {
  partitionKey: 'connectionId',
  /** GSI used by fan-out: every connection of an application. */
  byApplicationIndex: {
    name: 'byApplication',
    partitionKey: 'applicationId',
    sortKey: 'connectionId',
  },
} as const;

/**
 * Attempt log table (docs/design.md §5).
 *
 * - Partition key `connectionId`, sort key `sk` = `<deliveryId>#<attempt, 4 digits>`:
 *   "recent attempts of a connection" is a Query on the partition, newest first because
 *   delivery ids are ULID-ordered; "all attempts of a delivery" is a Query with
 *   `begins_with(sk, deliveryId)`, the partition coming from the delivery id itself
 *   (a delivery id carries its connection id, see core/ids.ts).
 * - Shards (docs/design.md §5 "Shards"): a connection's attempts may be spread over several
 *   partitions, `connectionId` for shard 0 (every item written before sharding, and every
 *   attempt of an unsharded connection) and `connectionId#<shard>` for the others; the shard
 *   comes from the delivery id (core/ids.ts deliveryShard), so all attempts of one delivery
 *   placed under one count share a partition.
 * - `byAttemptTime` orders a connection's log by attempt time: partition the same `connectionId`
 *   (shard) value, sort key the record's own `requestedAt`, so records written before the index
 *   existed are indexed too. Every record writes one entry (one write unit: the projection leaves
 *   out the body); attempts that start in the same millisecond tie on its key, and reads order
 *   them by `sk` (attempt-log-reads.ts). No other item of the table has a `requestedAt`.
 * - `finalFailures` is sparse: only items of a final failed attempt carry its keys.
 *   Its partition is the UTC day of the failure and a shard of it (`YYYY-MM-DD` for shard 0,
 *   as items written before sharding have it; `YYYY-MM-DD#<shard>` for the others), the shard
 *   from the delivery id, so reading "recent final failures" is `finalFailuresShards` Queries
 *   per day, merged newest first.
 * - Delivery search (docs/cost.md "Delivery search", `deliverySearch`): a delivery's first attempt
 *   also writes two small lookup items, partition `<applicationId>#user#<userId>` and
 *   `<applicationId>#event#<eventId>` (application ids start `app_`, so they never meet a
 *   connection's), sort key the delivery id: "an application's deliveries for a user (or an
 *   event), newest first" is one Query. They expire with the first attempt's record. Their time
 *   is `firstAttemptAt`, not `requestedAt`, so they never reach `byAttemptTime`.
 */
export const ATTEMPTS_TABLE = {
  partitionKey: 'connectionId',
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
  finalFailuresIndex: {
    name: 'finalFailures',
    partitionKey: 'failedOn',
    sortKey: 'failedKey',
  },
  /** The log in attempt-time order; it carries every field of an attempt but its body. */
  byTimeIndex: {
    name: 'byAttemptTime',
    partitionKey: 'connectionId',
    sortKey: 'requestedAt',
    /** Non-key attributes the index carries: the API's attempt (api/delivery-schemas.ts AttemptSchema). */
    projected: ATTEMPT_RECORD_FIELDS.filter(
      (field) => field !== 'connectionId' && field !== 'requestedAt' && field !== 'body',
    ),
  },
  /** Partitions of each day of the final-failures index: 8 × ~900 final failures/s (docs/scale.md). */
  finalFailuresShards: 8,
  /** The lookup items' own attribute: the connection of the delivery (the key holds the lookup). */
  lookupConnectionAttribute: 'ofConnection',
  /** The lookup items' time: their first attempt's `requestedAt`, under a name no index reads. */
  lookupTimeAttribute: 'firstAttemptAt',
} as const;

/**
 * Parked deliveries (docs/design.md §9).
 *
 * - Partition key `connectionId`, sort key `deliveryId`: one item per delivery (parking it
 *   again after a recovery replaces it). Delivery ids are time-ordered, so "since a time,
 *   oldest first" (recover) and "newest first" (listings) are one Query each, and retrying one
 *   delivery is a GetItem (the delivery id carries its connection id, core/ids.ts).
 * - `byApplication` serves the application's failures page; it projects the listing fields
 *   only, never the body, so listing costs read units by the small projection.
 * - The TTL is the attempt log's: a parked delivery lives as long as its attempts.
 */
export const PARKED_TABLE = {
  partitionKey: 'connectionId',
  sortKey: 'deliveryId',
  ttlAttribute: 'expiresAt',
  byApplicationIndex: {
    name: 'byApplication',
    partitionKey: 'applicationId',
    sortKey: 'deliveryId',
    /** Non-key attributes the index carries: the listing (core/parking.ts ParkedDelivery). */
    projected: [
      'connectionId',
      'eventId',
      'reason',
      'lastError',
      'lastOutcome',
      'lastStatusCode',
      'attempts',
      'parkedAt',
    ],
  },
} as const;

/**
 * Rate-limit windows (core/rate-limit.ts, docs/design.md §4 "Rate limits"): one item per rate-limited
 * connection, second and shard, key `<connectionId>#<epoch second>#<shard>`, holding the sends
 * counted in that second. Written only for connections with a limit; each item expires a few
 * minutes after its second (TTL deletes are free), so the table holds a few minutes of windows.
 */
export const RATE_WINDOWS_TABLE = {
  partitionKey: 'window',
  countAttribute: 'sends',
  ttlAttribute: 'expiresAt',
  /** Seconds an item is kept after its window: long enough for any clock skew, short enough to cost nothing. */
  keepSeconds: 300,
} as const;

/**
 * Claims of events' deliveries (core/claims.ts, docs/reliability.md "Republished events"), kept in
 * the rate-windows table: one small item per application, event and connection, key
 * `claim#<applicationId>#<eventId>#<connectionId>` (a window's key begins `con_`, so the two never
 * meet), expiring a day after the event was first seen. The table is a store of short-lived
 * dispatcher items that every dispatcher shares; one more table would be one more thing to deploy,
 * grant and watch for no gain.
 */
export const DELIVERY_CLAIMS = {
  keyPrefix: 'claim#',
  stateAttribute: 'state',
  leaseAttribute: 'leaseUntil',
  timeAttribute: 'idTime',
} as const;
