/**
 * The rate-limit windows' contract (core/ports.ts RateCounter), run against
 * test/support/memory/rate-windows.ts and lambdas/adapters/dynamodb/rate-windows.ts on dynalite:
 * every send counted once, concurrent sends from any number of callers included.
 */

import { DynamoRateWindows } from '../../lambdas/adapters/dynamodb/rate-windows';
import { ENV } from '../../lambdas/config';
import type { RateCounter, RateWindowReader } from '../../lambdas/core/ports';
import { id } from '../support/fixtures';
import { MemoryRateWindows } from '../support/memory';
import { contract, lightClient } from './contract';

const SECOND = Math.floor(Date.parse('2026-11-25T12:00:00Z') / 1000);

contract<RateCounter & RateWindowReader>(
  'RateCounter',
  {
    memory: () => new MemoryRateWindows(),
    emulators: () => new DynamoRateWindows({ tableName: process.env[ENV.rateWindowsTable]! }),
    light: () =>
      new DynamoRateWindows({ tableName: process.env[ENV.rateWindowsTable]!, client: lightClient() }),
  },
  (make) => {
    it('counts sends one by one from 1 in a window of its own', async () => {
      const counter = make();
      const connectionId = id('con');
      expect(await counter.increment(connectionId, SECOND, 0)).toBe(1);
      expect(await counter.increment(connectionId, SECOND, 0)).toBe(2);
      expect(await counter.increment(connectionId, SECOND, 0)).toBe(3);
    });

    it('keeps each connection, second and shard apart', async () => {
      const counter = make();
      const a = id('con');
      const b = id('con');
      await counter.increment(a, SECOND, 0);
      await counter.increment(a, SECOND, 0);
      expect(await counter.increment(b, SECOND, 0)).toBe(1);
      expect(await counter.increment(a, SECOND + 1, 0)).toBe(1);
      expect(await counter.increment(a, SECOND, 1)).toBe(1);
      expect(await counter.increment(a, SECOND, 0)).toBe(3);
    });

    it('counts every one of many concurrent sends exactly once', async () => {
      const counter = make();
      const connectionId = id('con');
      const counts = await Promise.all(
        Array.from({ length: 40 }, () => counter.increment(connectionId, SECOND, 0)),
      );
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    });

    it('reads back the counts of the windows asked for, leaving out those nothing was counted in', async () => {
      const counter = make();
      const a = id('con');
      for (let i = 0; i < 3; i++) await counter.increment(a, SECOND, 0);
      await counter.increment(a, SECOND + 1, 1);
      await counter.increment(id('con'), SECOND, 0);
      // More windows than one BatchGetItem takes (100): the read goes in chunks.
      const windows = Array.from({ length: 150 }, (_, i) => ({ second: SECOND - 148 + i, shard: i % 2 }));
      expect(await counter.read(a, windows)).toEqual([
        { second: SECOND, shard: 0, sends: 3 },
        { second: SECOND + 1, shard: 1, sends: 1 },
      ]);
      expect(await counter.read(id('con'), [{ second: SECOND, shard: 0 }])).toEqual([]);
    });
  },
);
