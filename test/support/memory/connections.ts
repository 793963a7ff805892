/**
 * The connections table in memory (core/stores.ts ConnectionTable), behaving as
 * lambdas/adapters/dynamodb/connections.ts does: listings oldest first by connection id, pages
 * with opaque cursors bound to the application, conditional creates and updates, health written
 * only on the version read (and disabling also sets `enabled` false). The contract suite
 * (test/contract/connections.test.ts) runs the same tests against both.
 *
 * Tests may read and set `items` directly. A write stores a new object; a read returns the
 * stored one, which callers do not change (the core never does).
 */

import { decodeCursor, encodeCursor } from '../../../lambdas/core/cursor';
import type { ConnectionHealth } from '../../../lambdas/core/health';
import type { HealthStore, HealthWrite } from '../../../lambdas/core/ports';
import type {
  ConnectionChanges,
  ConnectionTable,
  Page,
  SecretChange,
  SeenSecrets,
} from '../../../lambdas/core/stores';
import type { Connection } from '../../../lambdas/core/types';
import { checkOutage, noOutage, type Outage } from './outage';

const LISTING = 'connections';

export class MemoryConnections implements ConnectionTable {
  /** The stored connections by id. */
  readonly items: Map<string, Connection>;
  readonly health: HealthStore;

  constructor(
    connections: Connection[] = [],
    /** Operations: get, listByApplication, listAll, page, create, update, setSecret, delete, health.read, health.write. */
    private readonly outage: Outage = noOutage,
  ) {
    this.items = new Map(connections.map((c) => [c.connectionId, c]));
    this.health = {
      read: async (connectionId) => {
        this.check('health.read');
        return this.items.get(connectionId)?.health;
      },
      write: async (connectionId, next, expectedVersion, enable) =>
        this.writeHealth(connectionId, next, expectedVersion, enable),
    };
  }

  private check(operation: string): void {
    checkOutage(this.outage, operation, 'DynamoDB');
  }

  /** Health by connection id, for the connections that have any. */
  healthById(): Map<string, ConnectionHealth> {
    const out = new Map<string, ConnectionHealth>();
    for (const [id, c] of this.items) if (c.health) out.set(id, c.health);
    return out;
  }

  async get(connectionId: string): Promise<Connection | undefined> {
    this.check('get');
    return this.items.get(connectionId);
  }

  async listByApplication(applicationId: string): Promise<Connection[]> {
    this.check('listByApplication');
    return this.ofApplication(applicationId);
  }

  async listAll(): Promise<Connection[]> {
    this.check('listAll');
    return [...this.items.values()];
  }

  async page(applicationId: string, query: { limit: number; cursor?: string }): Promise<Page<Connection>> {
    this.check('page');
    const after = decodeCursor(query.cursor, LISTING, applicationId, 1)?.[0];
    const rest = this.ofApplication(applicationId).filter(
      (c) => after === undefined || c.connectionId > after,
    );
    const items = rest.slice(0, query.limit);
    return rest.length > items.length
      ? { items, nextCursor: encodeCursor(LISTING, applicationId, [items.at(-1)!.connectionId]) }
      : { items };
  }

  private ofApplication(applicationId: string): Connection[] {
    return [...this.items.values()]
      .filter((c) => c.applicationId === applicationId)
      .sort((a, b) => (a.connectionId < b.connectionId ? -1 : 1));
  }

  async create(connection: Connection): Promise<'created' | 'exists'> {
    this.check('create');
    if (this.items.has(connection.connectionId)) return 'exists';
    this.items.set(connection.connectionId, { ...connection });
    return 'created';
  }

  async update(
    connectionId: string,
    changes: ConnectionChanges,
    seenUpdatedAt: string,
  ): Promise<'updated' | 'conflict'> {
    this.check('update');
    const current = this.items.get(connectionId);
    if (!current || current.updatedAt !== seenUpdatedAt) return 'conflict';
    const next: Record<string, unknown> = { ...current, ...defined(changes) };
    // A null clears an optional field, as the adapter's REMOVE does.
    for (const [field, value] of Object.entries(changes)) if (value === null) delete next[field];
    this.items.set(connectionId, next as unknown as Connection);
    return 'updated';
  }

  async setSecret(
    connectionId: string,
    change: SecretChange,
    updatedAt: string,
    seen: SeenSecrets,
  ): Promise<'updated' | 'conflict' | 'missing'> {
    this.check('setSecret');
    const current = this.items.get(connectionId);
    if (!current) return 'missing';
    if (current.secretVersion !== seen.secretVersion || current.nextSecretVersion !== seen.nextSecretVersion)
      return 'conflict';
    const next: Record<string, unknown> = { ...current, ...defined(change), updatedAt };
    // A null removes the field, as the DynamoDB store's REMOVE does.
    for (const [name, value] of Object.entries(change)) if (value === null) delete next[name];
    this.items.set(connectionId, next as unknown as Connection);
    return 'updated';
  }

  async delete(connectionId: string): Promise<Connection | undefined> {
    this.check('delete');
    const current = this.items.get(connectionId);
    this.items.delete(connectionId);
    return current;
  }

  private async writeHealth(
    connectionId: string,
    next: ConnectionHealth,
    expectedVersion: number,
    enable?: boolean,
  ): Promise<HealthWrite> {
    this.check('health.write');
    const current = this.items.get(connectionId);
    if (!current) return 'missing';
    const seen =
      expectedVersion === 0 ? current.health === undefined : current.health?.version === expectedVersion;
    if (!seen) return 'conflict';
    const disabling = next.state === 'disabled';
    this.items.set(connectionId, {
      ...current,
      health: next,
      ...(disabling || enable ? { enabled: !disabling, updatedAt: new Date().toISOString() } : {}),
    });
    return 'written';
  }
}

/** The fields that hold a value (DynamoDB leaves undefined ones out of an update). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
