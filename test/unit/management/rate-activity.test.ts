/** A connection's live rate-limit state (management/rate-activity.ts) from the counter items alone. */

import { RateLimitActivityReader, RateWindowsUnknownError } from '../../../lambdas/management/rate-activity';
import type { WebhookResources } from '../../../lambdas/management/types';
import { connection } from '../../support/fixtures';
import { MemoryRateWindows } from '../../support/memory';

const NOW = Date.parse('2026-11-25T12:00:30.000Z');
const SECOND = NOW / 1000;
const resources = { rateWindowsTable: 'rate-windows' } as WebhookResources;

async function counted(windows: MemoryRateWindows, connectionId: string, second: number, n: number) {
  for (let i = 0; i < n; i++) await windows.increment(connectionId, second, 0);
}

it("reads the connection's own limit against its windows: deferrals over the quota, waiting when recent", async () => {
  const windows = new MemoryRateWindows();
  await counted(windows, 'con_a', SECOND - 1, 26);
  await counted(windows, 'con_a', SECOND - 40, 10);
  const reader = new RateLimitActivityReader({ resources }, windows, () => NOW);
  expect(await reader.of(connection('con_a', { rateLimit: 20 }))).toEqual({
    rateLimit: 20,
    source: 'connection',
    seconds: 60,
    sent: 30,
    deferred: 6,
    waiting: true,
    lastDeferredAtMs: (SECOND - 1) * 1000,
  });
});

it("uses the stack's default when the connection sets none, and reads nothing when no limit applies", async () => {
  const windows = new MemoryRateWindows();
  await counted(windows, 'con_a', SECOND - 30, 7);
  const byDefault = new RateLimitActivityReader(
    { resources: { ...resources, defaultRateLimit: 5 } },
    windows,
    () => NOW,
  );
  expect(await byDefault.of(connection('con_a'))).toMatchObject({
    rateLimit: 5,
    source: 'default',
    deferred: 2,
    waiting: false,
  });
  // A counter whose reads fail: none is made.
  const broken = new MemoryRateWindows((op) => op === 'read');
  const none = new RateLimitActivityReader({ resources }, broken, () => NOW);
  expect(await none.of(connection('con_a'))).toEqual({
    rateLimit: null,
    source: 'none',
    seconds: 60,
    sent: 0,
    deferred: 0,
    waiting: false,
  });
});

it('says by name that the deployment names no rate-windows table, for a limited connection', async () => {
  const reader = new RateLimitActivityReader({ resources: {} as WebhookResources }, undefined, () => NOW);
  await expect(reader.of(connection('con_a', { rateLimit: 3 }))).rejects.toThrow(RateWindowsUnknownError);
  await expect(reader.of(connection('con_a'))).resolves.toMatchObject({ rateLimit: null });
});
