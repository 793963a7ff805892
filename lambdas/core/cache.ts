/**
 * A small TTL + LRU cache with an injectable clock, for connection and secret lookups. With
 * `refreshAfterMs`, an entry older than that is still served while one load replaces it in the
 * background (refresh-ahead): steady traffic never waits for a re-read, and no entry is served
 * past its TTL, so staleness stays bounded by it.
 */

import type { Clock } from './ports';

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly clock: Clock,
    /** Age after which a hit also starts a background reload; absent: never. */
    private readonly refreshAfterMs?: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert to mark as most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** Returns the cached value or loads, caches and returns it. Concurrent misses share one load. */
  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) {
      if (this.dueForRefresh(key) && !this.pending.has(key)) {
        // Served now; a failed refresh leaves the entry to expire and be loaded in the open.
        this.load(key, load).catch(() => {});
      }
      return hit;
    }
    return this.pending.get(key) ?? this.load(key, load);
  }

  private dueForRefresh(key: string): boolean {
    if (this.refreshAfterMs === undefined) return false;
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt - this.ttlMs + this.refreshAfterMs <= this.clock.now();
  }

  private load(key: string, load: () => Promise<V>): Promise<V> {
    let pending = this.pending.get(key);
    if (!pending) {
      pending = load().then(
        (value) => {
          this.pending.delete(key);
          this.set(key, value);
          return value;
        },
        (error: unknown) => {
          this.pending.delete(key);
          throw error;
        },
      );
      this.pending.set(key, pending);
    }
    return pending;
  }

  private readonly pending = new Map<string, Promise<V>>();
}
