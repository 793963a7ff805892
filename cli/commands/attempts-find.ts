/**
 * `webhooks attempts find` and `attempts failures`: which deliveries there are for a user, an
 * event or a delivery id, and which deliveries failed for good, each with where it stands now
 * (management/deliveries.ts), so a failure a recovery later delivered does not read as failed.
 */

import type { Command } from 'commander';
import type { DeliveryState, DeliverySummary, FailureNow } from '../../lambdas/management';
import { UsageError } from '../errors';
import { type Column, plural, table, when } from '../format';
import { handle, leaf } from '../program';
import { parseSince, parseWholeNumber } from '../values';
import { attemptColumns } from '../views';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;
/** Pages read at most for one `find`: a filter that matches little still ends. */
const MAX_PAGES = 20;

/** How each state reads in a table. */
export const STATE_WORDS: Record<DeliveryState, string> = {
  delivered: 'delivered',
  retrying: 'retrying',
  parked: 'parked',
  dead_lettered: 'dead-lettered',
  failed: 'failed (test send)',
};

function summaryColumns(now: Date): Column<DeliverySummary>[] {
  return [
    { header: 'FIRST ATTEMPT', value: (d) => when(d.firstAttemptAt, now) },
    { header: 'DELIVERY', value: (d) => d.deliveryId },
    { header: 'USER', value: (d) => d.userId },
    { header: 'EVENT', value: (d) => d.eventId },
    { header: '#', value: (d) => d.attempts, align: 'right' },
    { header: 'LAST OUTCOME', value: (d) => d.outcome },
    { header: 'STATE', value: (d) => STATE_WORDS[d.state] },
  ];
}

export function find(): Command {
  const cmd = leaf('find', {
    summary: "an application's deliveries for a user, an event or a delivery id, and where each stands now",
    usage:
      '--application <app_id> (--user <usr_id> | --event <evt_id> | --delivery <dlv_id>) [--connection <con_id>] [--since <when>] [--limit <n>]',
    details:
      'Newest first (by when each delivery was created), across every connection of the application.\nBy user or event needs delivery search (on unless the stack runs the lean profile or deliverySearch: false).',
    examples: [
      'webhooks attempts find --application app_demo --user usr_101',
      'webhooks attempts find --application app_demo --event evt_01JD8X4AZ3K5M7N9P1Q3R5S7T9',
    ],
  })
    .option('--application <app_id>', 'the application (app_…)')
    .option('--user <usr_id>', "the user's deliveries (usr_…)")
    .option('--event <evt_id>', "the event's deliveries, one per connection (evt_…)")
    .option('--delivery <dlv_id>', 'one delivery (dlv_…, the X-Service-Delivery header)')
    .option('--connection <con_id>', 'only this connection (con_…)')
    .option('--since <when>', 'only deliveries first attempted since then: 30m, 1h, 2d, or an ISO time')
    .option('--limit <n>', `show at most n deliveries (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`);
  return handle(cmd, async (ctx, { flags }) => {
    const applicationId = flags.required('application', 'the app_… id whose deliveries to search');
    const by = (['user', 'event', 'delivery'] as const).filter((name) => flags.has(name));
    if (by.length !== 1) {
      throw new UsageError(
        by.length === 0
          ? 'say what to find: --user <usr_id>, --event <evt_id> or --delivery <dlv_id>'
          : `give one of --user, --event and --delivery, not ${by.map((b) => `--${b}`).join(' and ')}`,
        'webhooks attempts find --help',
      );
    }
    const limit = flags.has('limit')
      ? parseWholeNumber(flags.string('limit')!, '--limit', 1, MAX_LIMIT)
      : DEFAULT_LIMIT;
    const webhooks = await ctx.management();
    let found: DeliverySummary[] = [];
    let more = false;
    if (by[0] === 'delivery') {
      const one = await webhooks.deliveries.one(flags.string('delivery')!, applicationId);
      found = one ? [one] : [];
    } else {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await webhooks.deliveries.list({
          applicationId,
          userId: flags.string('user'),
          eventId: flags.string('event'),
          connectionId: flags.string('connection'),
          since: flags.has('since') ? parseSince(flags.string('since')!, ctx.now()) : undefined,
          limit: Math.min(100, limit - found.length),
          cursor,
        });
        found.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor && found.length < limit && ++pages < MAX_PAGES);
      more = cursor !== undefined;
    }
    ctx.printJson(found);
    const what = `${by[0]} ${flags.string(by[0]!)}`;
    if (found.length === 0) {
      ctx.print(
        `No deliveries of ${applicationId} for ${what}${more ? ' in the newest pages read (narrow it with --since or --connection)' : ''}. Attempts are kept 30 days by default.`,
      );
      return;
    }
    ctx.print(table(found, summaryColumns(ctx.now())));
    ctx.print(
      `\n${plural(found.length, 'delivery', 'deliveries')} for ${what}, newest events first${more ? ` (more: --limit above ${limit})` : ''}. Every attempt of one:`,
    );
    ctx.print(`  ${ctx.suggest(`attempts get ${found[0]!.deliveryId}`)}`);
  });
}

export function failures(): Command {
  const cmd = leaf('failures', {
    summary:
      'final failures, newest first, and where each delivery stands now (delivered later, parked, dead-lettered)',
    usage: '[--days <n>] [--limit <n>] [--all]',
    details:
      'A delivery counts once its last attempt failed: it was parked for its connection (connections parked <id>),\nor dead-lettered. One that a recovery or a Resend delivered later is left out and named (--all shows it).\nA failed test send (connections send-test) is listed too, marked "test, not retried".',
    examples: ['webhooks attempts failures --days 7'],
  })
    .option('--days <n>', 'look back n days, today included (default 1)')
    .option('--limit <n>', `show at most n final failures (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`)
    .option('--all', 'also list the final failures delivered later');
  return handle(cmd, async (ctx, { flags }) => {
    const days = flags.has('days') ? parseWholeNumber(flags.string('days')!, '--days', 1, 365) : 1;
    const limit = flags.has('limit')
      ? parseWholeNumber(flags.string('limit')!, '--limit', 1, MAX_LIMIT)
      : DEFAULT_LIMIT;
    const webhooks = await ctx.management();
    const read = await webhooks.attempts.finalFailures({ days, limit, now: ctx.now() });
    const all = await webhooks.deliveries.failuresNow(read);
    const later = all.filter((f) => f.now === 'delivered');
    const found = flags.bool('all') ? all : all.filter((f) => f.now !== 'delivered');
    ctx.printJson(found);
    const period = days === 1 ? 'today (UTC)' : `in the last ${days} days`;
    const leftOut = flags.bool('all') || later.length === 0 ? '' : `\n${leftOutLine(later)}`;
    if (found.length === 0) {
      ctx.print(`No final failures ${period} that are still failed.${leftOut}`);
      return;
    }
    const columns = attemptColumns(ctx.now(), { delivery: true });
    ctx.print(table(found, [...columns, { header: 'NOW', value: (f: FailureNow) => STATE_WORDS[f.now] }]));
    const more = read.length === limit ? ` (the newest ${limit}; --limit shows more)` : '';
    const tests = found.filter((r) => r.test).length;
    const split = tests
      ? ` (${plural(found.length - tests, 'failed delivery', 'failed deliveries')}, ${plural(tests, 'failed test send')}; test sends are never retried)`
      : ' (failed deliveries)';
    ctx.print(
      `\n${plural(found.length, 'final failure')} ${period}${split}${more}. Parked for a connection: ${ctx.suggest('connections parked <id>')}; in the DLQ: ${ctx.suggest('dlq list')}${leftOut}`,
    );
  });
}

/** The final failures left out because a later attempt delivered them, by id. */
function leftOutLine(later: readonly FailureNow[]): string {
  const ids = later.slice(0, 5).map((f) => f.deliveryId);
  const rest = later.length > ids.length ? ` and ${later.length - ids.length} more` : '';
  return `Left out: ${plural(later.length, 'final failure')} delivered later (a recovery or Resend): ${ids.join(', ')}${rest} (--all lists them).`;
}
