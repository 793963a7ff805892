import { TtlCache } from '../../../lambdas/core/cache';
import { cachedConnections } from '../../../lambdas/core/cached-connections';
import type { ConnectionStore } from '../../../lambdas/core/ports';
import type { Connection } from '../../../lambdas/core/types';

function clock(start = 0) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('TtlCache', () => {
  it('serves a value until its TTL passes, then loads again', async () => {
    const c = clock();
    const cache = new TtlCache<string>(1000, 10, c);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.getOrLoad('k', load)).toBe('v1');
    c.t = 999;
    expect(await cache.getOrLoad('k', load)).toBe('v1');
    c.t = 1000;
    expect(await cache.getOrLoad('k', load)).toBe('v2');
  });

  it('shares one load between concurrent misses', async () => {
    const cache = new TtlCache<number>(1000, 10, clock());
    let loads = 0;
    const load = () => new Promise<number>((r) => setTimeout(() => r(++loads), 5));
    const values = await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)]);
    expect(values).toEqual([1, 1]);
    expect(loads).toBe(1);
  });

  it('does not cache a failed load', async () => {
    const cache = new TtlCache<number>(1000, 10, clock());
    await expect(cache.getOrLoad('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.getOrLoad('k', async () => 7)).toBe(7);
  });

  it('evicts the least recently used entry beyond its size', async () => {
    const cache = new TtlCache<number>(1000, 2, clock());
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
  });
});

describe('TtlCache refresh-ahead', () => {
  it('serves an entry past refreshAfter at once while one load replaces it, never past its TTL', async () => {
    const c = clock();
    const cache = new TtlCache<string>(1000, 10, c, 800);
    let release: (value: string) => void = () => {};
    let loads = 0;
    const slow = () => {
      loads++;
      return new Promise<string>((r) => {
        release = r;
      });
    };
    expect(await cache.getOrLoad('k', async () => 'v1')).toBe('v1');
    c.t = 799;
    expect(await cache.getOrLoad('k', slow)).toBe('v1');
    expect(loads).toBe(0);
    c.t = 800;
    // Due: served now, reloaded behind it, one load however many ask.
    expect(await cache.getOrLoad('k', slow)).toBe('v1');
    expect(await cache.getOrLoad('k', slow)).toBe('v1');
    expect(loads).toBe(1);
    release('v2');
    await Promise.resolve();
    expect(await cache.getOrLoad('k', slow)).toBe('v2');
    // A failed refresh keeps the entry until its TTL, then the next read waits for a load.
    c.t = 1700;
    expect(await cache.getOrLoad('k', () => Promise.reject(new Error('down')))).toBe('v2');
    c.t = 1800;
    expect(await cache.getOrLoad('k', async () => 'v3')).toBe('v3');
  });
});

describe('cachedConnections', () => {
  const con = { connectionId: 'con_a', applicationId: 'app_1' } as Connection;

  it('reads the store at most once per TTL for steady traffic, and sees changes after it', async () => {
    const c = clock();
    let gets = 0;
    let current: Connection | undefined = con;
    const store: ConnectionStore = {
      get: async () => {
        gets++;
        return current;
      },
      listByApplication: async () => [],
    };
    const cached = cachedConnections(store, 30_000, c);
    for (let i = 0; i < 100; i++) await cached.get('con_a');
    expect(gets).toBe(1);
    current = undefined;
    c.t = 29_999;
    expect(await cached.get('con_a')).toBe(con);
    c.t = 30_000;
    expect(await cached.get('con_a')).toBeUndefined();
    expect(gets).toBe(2);
    c.t = 40_000;
    await cached.get('con_a');
    expect(gets).toBe(2); // absence is cached too
  });
});
