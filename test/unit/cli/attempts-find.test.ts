/**
 * `webhooks attempts find` and `attempts failures` over the management library on its memory
 * backend: a delivery found by user, event and delivery id across an application's connections;
 * final failures with where each stands now, the ones delivered later left out and named.
 */

import { PassThrough } from 'node:stream';
import type { AttemptRecord } from '../../../lambdas/core/types';
import { WebhookManagement } from '../../../lambdas/management';
import { runCli } from '../../support/cli-run';
import { attemptAt, connection, id, parkedAt } from '../../support/fixtures';
import { MEMORY_RESOURCES, memoryBackend } from '../../support/memory/backend';

const MINUTE = 60_000;

/**
 * Application `app` with two connections: usr_101's delivered delivery on the first, usr_202's
 * parked one on the second, usr_101's retried-then-delivered one on the second (a final failure
 * a recovery delivered), and another application's delivery for usr_101.
 */
async function seeded() {
  const parts = memoryBackend();
  const app = id('app');
  const [a, b] = [id('con'), id('con')];
  for (const c of [a, b]) await parts.connections.create(connection(c, { applicationId: app }));
  const t0 = Date.now() - 10 * MINUTE;
  const failed = { outcome: 'http_error', statusCode: 503, final: true } as const;
  const delivered = attemptAt(a, app, t0, { userId: 'usr_101' });
  const parked = attemptAt(b, app, t0 + MINUTE, { userId: 'usr_202', ...failed });
  const recovered = attemptAt(b, app, t0 + 2 * MINUTE, { userId: 'usr_101', ...failed });
  const later: AttemptRecord = {
    ...recovered,
    attempt: 2,
    outcome: 'delivered',
    statusCode: 200,
    final: true,
  };
  const other = attemptAt(id('con'), id('app'), t0, { userId: 'usr_101' });
  for (const r of [delivered, parked, recovered, later, other]) await parts.attempts.append(r);
  await parts.parked.park(
    parkedAt(b, app, t0 + MINUTE, { deliveryId: parked.deliveryId, eventId: parked.eventId }),
  );
  const management = new WebhookManagement({ resources: MEMORY_RESOURCES, backend: parts.backend });
  return { app, management, delivered, parked, recovered, other };
}

function cli(management: WebhookManagement, argv: string[]) {
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  return runCli(argv, { stdin, open: async () => management });
}

describe('attempts find', () => {
  it("finds an application's deliveries by user id, across its connections, newest first, with where each stands", async () => {
    const s = await seeded();
    const result = await cli(s.management, ['attempts', 'find', '--application', s.app, '--user', 'usr_101']);
    expect(result.code).toBe(0);
    const rows = result.stdout.split('\n').filter((line) => line.includes('dlv_') && line.includes('usr_'));
    expect(rows.map((line) => /dlv_\S+/.exec(line)![0])).toEqual([
      s.recovered.deliveryId,
      s.delivered.deliveryId,
    ]);
    expect(rows[0]).toMatch(/usr_101 .*delivered/);
    expect(result.stdout).not.toContain(s.other.deliveryId);
    expect(result.stdout).toContain('2 deliveries for user usr_101, newest events first');
  });

  it('finds one by event id and by delivery id, and not another application’s', async () => {
    const s = await seeded();
    const byEvent = await cli(s.management, [
      'attempts',
      'find',
      '--application',
      s.app,
      '--event',
      s.parked.eventId,
    ]);
    expect(byEvent.stdout).toMatch(new RegExp(`${s.parked.deliveryId} +usr_202 .*parked`));
    const byId = await cli(s.management, [
      '--json',
      'attempts',
      'find',
      '--application',
      s.app,
      '--delivery',
      s.parked.deliveryId,
    ]);
    expect(JSON.parse(byId.stdout)).toEqual([
      expect.objectContaining({ deliveryId: s.parked.deliveryId, userId: 'usr_202', state: 'parked' }),
    ]);
    const elsewhere = await cli(s.management, [
      'attempts',
      'find',
      '--application',
      s.app,
      '--delivery',
      s.other.deliveryId,
    ]);
    expect(elsewhere.stdout).toContain(`No deliveries of ${s.app} for delivery ${s.other.deliveryId}`);
  });

  it('asks for exactly one of --user, --event and --delivery, by name', async () => {
    const s = await seeded();
    const none = await cli(s.management, ['attempts', 'find', '--application', s.app]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('--user <usr_id>, --event <evt_id> or --delivery <dlv_id>');
    const two = await cli(s.management, [
      'attempts',
      'find',
      '--application',
      s.app,
      '--user',
      'usr_1',
      '--event',
      'evt_1',
    ]);
    expect(two.stderr).toContain('not --user and --event');
  });

  it('says why a search by user is refused when delivery search is off', async () => {
    const parts = memoryBackend();
    const management = new WebhookManagement({
      resources: { ...MEMORY_RESOURCES, deliverySearch: false },
      backend: parts.backend,
    });
    const result = await cli(management, ['attempts', 'find', '--application', 'app_1', '--user', 'usr_101']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('delivery search is off');
  });
});

describe('attempts failures, where each stands now', () => {
  it('leaves out a final failure a later recovery delivered, names it, and shows the rest as parked', async () => {
    const s = await seeded();
    const result = await cli(s.management, ['attempts', 'failures']);
    expect(result.code).toBe(0);
    const rows = result.stdout
      .split('\n')
      .filter((line) => line.includes('dlv_') && !line.startsWith('Left out'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`${s.parked.deliveryId} +usr_202 +${s.parked.eventId}.* parked$`));
    expect(result.stdout).toContain(
      `Left out: 1 final failure delivered later (a recovery or Resend): ${s.recovered.deliveryId}`,
    );
    const all = await cli(s.management, ['attempts', 'failures', '--all']);
    expect(all.stdout).toMatch(new RegExp(`${s.recovered.deliveryId} .* delivered$`, 'm'));
  });
});

describe('connections parked: newest events first, and says so', () => {
  it('orders by the event time in each delivery id, shows it first, and shows when each was parked beside it', async () => {
    const parts = memoryBackend();
    const app = id('app');
    const con = id('con');
    await parts.connections.create(connection(con, { applicationId: app }));
    const t0 = Date.now() - 60 * MINUTE;
    // The oldest event was parked last (retried since): parking order is not the list's order.
    const items = [0, 1, 2].map((i) =>
      parkedAt(con, app, t0 + i * 10 * MINUTE, {
        parkedAt: new Date(t0 + (i === 0 ? 50 : 20 + i) * MINUTE).toISOString(),
      }),
    );
    for (const item of items) await parts.parked.park(item);
    const management = new WebhookManagement({ resources: MEMORY_RESOURCES, backend: parts.backend });
    const result = await cli(management, ['connections', 'parked', con]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const header = lines.find((line) => line.startsWith('EVENT TIME'));
    const rows = lines.filter((line) => /^\d{4}-/.test(line));
    expect(header).toMatch(/^EVENT TIME +DELIVERY .* PARKED/);
    expect(rows.map((row) => /dlv_\S+/.exec(row)![0])).toEqual(items.map((i) => i.deliveryId).reverse());
    expect(rows[0]).toContain(new Date(t0 + 20 * MINUTE).toISOString());
    expect(result.stdout).toContain(
      '3 parked deliveries, newest events first (EVENT TIME; PARKED is when each was parked).',
    );
  });
});
