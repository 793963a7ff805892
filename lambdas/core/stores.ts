/**
 * The three stores as a whole: the core's ports of them (core/ports.ts: ConnectionStore,
 * HealthStore, AttemptLog, ParkedDeliveries) plus what the management library reads and writes. Each
 * has one production implementation (a module per DynamoDB table under adapters/dynamodb/,
 * which alone knows its key names, indexes and expressions) and one in memory for tests
 * (test/support/memory/); the contract suite (test/contract/) holds both to the same behaviour.
 * Callers speak of connections, deliveries and attempts; pages resume from opaque cursors
 * (core/cursor.ts).
 */

import type { SettingsChange } from '../shapes/connection-types';
import type { ConnectionHealth } from './health';
import type { ParkedDelivery, ParkedItem } from './parking';
import type { AttemptLog, ConnectionStore, HealthStore, ParkedDeliveries } from './ports';
import type { AttemptRecord, Connection, Outcome } from './types';

/** One page of a listing; `nextCursor` resumes after its last item (absent: nothing follows). */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * A connection's secret fields: a Secrets Manager store leaves `secretCiphertext` out
 * (docs/design.md §5 "The KMS secret store").
 */
export interface SecretFields {
  secretArn: string;
  secretVersion: string;
  secretCiphertext?: string;
}

/**
 * What a rotation writes (core/secret-switch.ts): the current secret's fields and the pending
 * one's, which signs from `secretSwitchAt` on; null removes them (no switch ahead).
 */
export type SecretChange = SecretFields & {
  nextSecretVersion: string | null;
  nextSecretCiphertext?: string | null;
  secretSwitchAt: string | null;
};

/** The secret versions a rotation read: its write is refused when either changed meanwhile. */
export interface SeenSecrets {
  secretVersion: string | undefined;
  nextSecretVersion: string | undefined;
}

/**
 * What an update may change: any of the owner's settings (lambdas/shapes/connection.ts), health
 * and shards; `updatedAt` is always written. A null clears an optional setting (`rateLimit: null`
 * removes the connection's own limit: the stack default applies again).
 */
export type ConnectionChanges = SettingsChange &
  Partial<Pick<Connection, 'attemptShards'> & { health: ConnectionHealth }> & { updatedAt: string };

/** The connections (docs/design.md §5), their health (§9) included. */
export interface ConnectionTable extends ConnectionStore {
  /** The connection, or undefined; `consistent` reads the latest write (management), else a cheaper read. */
  get(connectionId: string, options?: { consistent?: boolean }): Promise<Connection | undefined>;
  /** Every connection of an application, oldest first (connection ids are time-ordered). */
  listByApplication(applicationId: string): Promise<Connection[]>;
  /** Every connection of every application, in no particular order (operators). */
  listAll(): Promise<Connection[]>;
  /** One page of an application's connections, oldest first. */
  page(applicationId: string, query: { limit: number; cursor?: string }): Promise<Page<Connection>>;
  /** Saves a new connection; `exists` (nothing written) when its id is taken. */
  create(connection: Connection): Promise<'created' | 'exists'>;
  /**
   * Writes the changes if the connection is still as read (its `updatedAt` is `seenUpdatedAt`);
   * `conflict` (nothing written) when it changed meanwhile or is gone.
   */
  update(
    connectionId: string,
    changes: ConnectionChanges,
    seenUpdatedAt: string,
  ): Promise<'updated' | 'conflict'>;
  /**
   * Writes a rotation's secrets if the connection still names the versions the rotation read
   * (`seen`): `conflict` when another rotation got there first, `missing` when the connection no
   * longer exists.
   */
  setSecret(
    connectionId: string,
    change: SecretChange,
    updatedAt: string,
    seen: SeenSecrets,
  ): Promise<'updated' | 'conflict' | 'missing'>;
  /** Deletes it; the connection as it was, or undefined when there was none. */
  delete(connectionId: string): Promise<Connection | undefined>;
  /** Its health, read and compare-and-written on the version (core/health.ts). */
  readonly health: HealthStore;
}

/** The filters of a connection's attempt log page (the HTTP API). */
export interface AttemptPageQuery {
  connectionId: string;
  outcome?: Outcome;
  /** Requested at or after. */
  since?: Date;
  /** Requested before. */
  until?: Date;
  final?: boolean;
  limit: number;
  cursor?: string;
}

/**
 * A delivery as an application's deliveries page lists it: the ids and time of its first attempt
 * (the management library reads the rest of its attempts for where it stands now).
 */
export type DeliveryRef = Pick<
  AttemptRecord,
  'deliveryId' | 'connectionId' | 'eventId' | 'userId' | 'requestedAt'
>;

/**
 * One page of an application's deliveries, newest first (by delivery id: when the delivery was
 * created). Without `userId` or `eventId` the store reads the logs of `connectionIds`, merged;
 * with one, the delivery search (written once per delivery, docs/cost.md "Delivery search").
 */
export interface DeliveryPageQuery {
  applicationId: string;
  connectionIds: readonly string[];
  /** With `userId` or `eventId`: only this connection's deliveries. */
  connectionId?: string;
  userId?: string;
  eventId?: string;
  /** First attempt requested at or after. */
  since?: Date;
  /** First attempt requested before. */
  until?: Date;
  limit: number;
  cursor?: string;
}

/** Records a chart reads at most; past it the answer says `truncated`. */
export const MAX_RANGE_ITEMS = 20_000;

/** A chart's read of the attempt log: the attempts in its window and what the read cost. */
export interface RangeRead {
  items: AttemptRecord[];
  /** Records read (before the time filter). */
  scanned: number;
  /** Read capacity units the store reported for the whole read (0 when it reports none). */
  readUnits: number;
  /** The read stopped at its cap: more attempts may be in the window. */
  truncated: boolean;
}

/** The attempt log (docs/design.md §5): appended by dispatchers, read by operators. */
export interface AttemptTable extends AttemptLog {
  /** Every attempt of one delivery, oldest first. */
  ofDelivery(deliveryId: string): Promise<AttemptRecord[]>;
  /**
   * Marks a delivery's attempt as resent as the next number (`resentAs`), unless it is marked
   * already or does not exist: true only for the one call that marked it. Two Resends that
   * read the same last attempt race here, and one wins (docs/api.md).
   */
  markResent(deliveryId: string, attempt: number): Promise<boolean>;
  /** Takes back a mark whose Resend could not be queued, if it is still that mark. */
  unmarkResent(deliveryId: string, attempt: number): Promise<void>;
  /** A connection's recent attempts, newest first (by delivery, then attempt). */
  recent(query: {
    connectionId: string;
    since?: Date;
    failed?: boolean;
    limit: number;
  }): Promise<AttemptRecord[]>;
  /** Final failures (test sends included) of every connection over the last `days` UTC days, newest first. */
  finalFailures(query: { days: number; limit: number; now: Date }): Promise<AttemptRecord[]>;
  /** One page of a connection's attempts, newest first, filtered. */
  page(query: AttemptPageQuery): Promise<Page<AttemptRecord>>;
  /** One page of an application's deliveries (their first attempts), newest first, filtered. */
  deliveries(query: DeliveryPageQuery): Promise<Page<DeliveryRef>>;
  /** Every attempt of a connection requested in [since, until), for charts. */
  inRange(query: { connectionId: string; since: Date; until: Date }): Promise<RangeRead>;
}

/** A parked delivery claimed for re-queueing until `claimedUntil` (epoch ms). */
export type ClaimedDelivery = ParkedItem & { claimedUntil: number };

/** Parked deliveries (docs/design.md §9): parked by dispatchers, listed and recovered by operators. */
export interface ParkedTable extends ParkedDeliveries {
  /** One parked delivery with its body, or undefined. */
  get(connectionId: string, deliveryId: string): Promise<ParkedItem | undefined>;
  /** One parked delivery as listings show it (never the body), or undefined. */
  find(connectionId: string, deliveryId: string): Promise<ParkedDelivery | undefined>;
  /** A connection's parked deliveries, newest first; `afterDeliveryId` keeps those after it. */
  listByConnection(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; cursor?: string },
  ): Promise<Page<ParkedDelivery>>;
  /** An application's parked deliveries, newest first. */
  listByApplication(
    applicationId: string,
    query: { limit: number; cursor?: string },
  ): Promise<Page<ParkedDelivery>>;
  /** Delivery ids of a connection's parked deliveries after `afterDeliveryId`, oldest first (a recovery's work list). */
  idsOldestFirst(
    connectionId: string,
    query: { afterDeliveryId?: string; limit: number; cursor?: string },
  ): Promise<Page<string>>;
  /**
   * Claims one for re-queueing until `untilMs`: the delivery with its body, unless it is not
   * parked or another claim on it has not expired at `nowMs` (undefined).
   */
  claim(
    connectionId: string,
    deliveryId: string,
    nowMs: number,
    untilMs: number,
  ): Promise<ClaimedDelivery | undefined>;
  /** Removes a re-queued delivery, unless it was parked again since the claim (which that replaced). */
  release(connectionId: string, deliveryId: string, claimedUntil: number): Promise<void>;
  /** How many a connection has after `afterDeliveryId` (all when absent). */
  count(connectionId: string, afterDeliveryId?: string): Promise<number>;
}
