/**
 * `webhooks connections parked` and `connections recover`: the deliveries a connection parked (its
 * 4th attempt failed, it was disabled, or the egress policy refused it), and sending them again.
 */

import type { Command } from 'commander';
import { recoveryStatus } from '../../lambdas/core/recovery-status';
import { DEFAULT_RECOVERY_RATE_PER_SECOND } from '../../lambdas/management/parked';
import { plural, relativeTime, table, truncate, when } from '../format';
import { handle, leaf } from '../program';
import { parseSince, parseWholeNumber } from '../values';
import { eventTime } from '../views';

const ID = '<connection-id>';
const MAX_PARKED_LIMIT = 200;

export function parked(): Command {
  const cmd = leaf('parked', {
    summary: "a connection's parked deliveries (failed, disabled or blocked), newest events first",
    usage: `${ID} [--since 1h|24h|7d|<ISO date-time>] [--limit <n>]`,
    details:
      'A delivery is parked when its 4th attempt failed (exhausted), when it met the connection disabled\n(connection_disabled) or when the egress policy refused its URL (blocked). Bodies are kept, never shown.\nSend them again with `connections recover` (all since a time) or `attempts retry` (one).',
    examples: ['webhooks connections parked con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --since 24h'],
  })
    .argument(ID)
    .option('--since <when>', 'only deliveries of events since then: 30m, 24h, 7d, or an ISO date-time')
    .option('--limit <n>', `at most n (default 50, at most ${MAX_PARKED_LIMIT})`);
  return handle(cmd, async (ctx, { flags, positionals }) => {
    const connectionId = positionals[0]!;
    const since = flags.has('since')
      ? parseSince(flags.string('since')!, ctx.now()).toISOString()
      : undefined;
    const limit = flags.has('limit')
      ? parseWholeNumber(flags.string('limit')!, '--limit', 1, MAX_PARKED_LIMIT)
      : 50;
    const webhooks = await ctx.management();
    const page = await webhooks.listParked(connectionId, { since, limit });
    ctx.printJson(page);
    const connection = await webhooks.connections.get(connectionId);
    const status = recoveryStatus(connection.health, (iso) => when(iso, ctx.now()) ?? iso, {
      probesOff: connection.recoveryProbes === false,
    });
    if (page.data.length === 0) {
      ctx.print(`No parked deliveries for ${connectionId}${since ? ` since ${since}` : ''}.`);
      return;
    }
    ctx.print(
      table(page.data, [
        // The order: by delivery id, whose time is the event's (PARKED can be later, after a retry).
        { header: 'EVENT TIME', value: (d) => eventTime(d.deliveryId, ctx.now()) },
        { header: 'DELIVERY', value: (d) => d.deliveryId },
        { header: 'REASON', value: (d) => d.reason },
        { header: 'ATTEMPTS', value: (d) => d.attempts, align: 'right' },
        { header: 'PARKED', value: (d) => relativeTime(d.parkedAt, ctx.now()) },
        { header: 'LAST ERROR', value: (d) => truncate(d.lastError, 60) },
      ]),
    );
    ctx.print(`
${plural(page.data.length, 'parked delivery', 'parked deliveries')}${page.nextCursor ? ' (more: --limit)' : ''}, newest events first (EVENT TIME; PARKED is when each was parked).
Send them again: ${ctx.suggest(`connections recover ${connectionId}${since ? ` --since ${flags.string('since')}` : ''}`)}
One of them:     ${ctx.suggest(`attempts retry ${page.data[0]!.deliveryId}`)}${status ? `\n\n${status}` : ''}`);
  });
}

export function recover(): Command {
  const cmd = leaf('recover', {
    summary: "send a connection's parked deliveries again, oldest first, at a bounded rate",
    usage: `${ID} [--since 24h|30m|7d|<ISO date-time>] [--rate <per-second>]`,
    details:
      'Each parked delivery goes back on the internal retry queue as a new chain of 4 attempts: the same\ndelivery id (receivers de-duplicate on it), the byte-identical body, attempt numbers continuing.\nThey are spread over time (--rate a second, default 10) so a recovering endpoint is not flooded.\nA delivery is taken off the parked list as it is queued: running recover twice never sends one twice.\nA disabled connection parks what it gets: enable it first (`connections enable`).',
    examples: [
      'webhooks connections recover con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --since 24h',
      'webhooks connections recover con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --rate 50',
    ],
  })
    .argument(ID)
    .option(
      '--since <when>',
      'only deliveries of events since then: 30m, 24h, 7d, or an ISO date-time (default: all)',
    )
    .option('--rate <n>', `deliveries a second (default ${DEFAULT_RECOVERY_RATE_PER_SECOND}, at most 500)`);
  return handle(cmd, async (ctx, { flags, positionals }) => {
    const webhooks = await ctx.management();
    const connection = await webhooks.connections.get(positionals[0]!);
    const id = connection.connectionId;
    const since = flags.has('since')
      ? parseSince(flags.string('since')!, ctx.now()).toISOString()
      : undefined;
    const rate = flags.has('rate') ? parseWholeNumber(flags.string('rate')!, '--rate', 1, 500) : undefined;
    const result = await webhooks.recoverConnection(id, { since, ratePerSecond: rate });
    ctx.printJson({ connectionId: id, ...result });
    const perSecond = rate ?? DEFAULT_RECOVERY_RATE_PER_SECOND;
    const spread = Math.ceil(result.requeued / perSecond);
    ctx.print(
      result.requeued === 0
        ? `Nothing to recover for ${id}${since ? ` since ${since}` : ''}: no parked deliveries${result.remaining ? ` free to take (${result.remaining} held by another recovery; they are freed after 5 minutes)` : ''}.`
        : `Re-queued ${plural(result.requeued, 'parked delivery', 'parked deliveries')} of ${id}, oldest first, over about ${spread} s.${result.remaining ? `\n${result.remaining} remain parked: run the same command again once these are sent.` : ''}
Watch them: ${ctx.suggest(`attempts list --connection ${id} --since 10m`)}`,
    );
    if (connection.enabled !== true) {
      ctx.print(
        `\nNote: ${id} is disabled, so these will be parked again. Enable it first: ${ctx.suggest(`connections enable ${id}`)}`,
      );
    }
  });
}
