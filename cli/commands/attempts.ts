/** `webhooks attempts …`: the operator's questions of the attempt log (README "Operate"). */

import { CliError } from '../errors';
import { keyValues, plural, table, truncate } from '../format';
import type { CommandSpec } from '../types';
import { parseSince, parseWholeNumber } from '../values';
import { attemptColumns, attemptJson, deliveryState } from '../views';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;
const limitFlag = {
  type: 'string',
  value: 'n',
  description: `show at most n attempts, newest first (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
} as const;

const list: CommandSpec = {
  name: ['attempts', 'list'],
  summary: "a connection's recent attempts, newest first",
  usage: '--connection <connection-id> [--since 1h|30m|2d|<ISO date-time>] [--failed] [--limit <n>]',
  flags: {
    connection: { type: 'string', value: 'connection-id', description: 'the connection (con_…)' },
    since: {
      type: 'string',
      value: 'when',
      description: 'only attempts since then: 30m, 1h, 2d, 1w back from now, or 2026-11-21T14:00:00Z',
    },
    failed: { type: 'boolean', description: 'only attempts that did not deliver' },
    limit: limitFlag,
  },
  examples: ['webhooks attempts list --connection con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --since 1h --failed'],
  async run(ctx, { flags }) {
    const connectionId = flags.required('connection', 'the con_… id whose attempts to list');
    const since = flags.has('since') ? parseSince(flags.string('since')!, ctx.now()) : undefined;
    const limit = flags.has('limit')
      ? parseWholeNumber(flags.string('limit')!, '--limit', 1, MAX_LIMIT)
      : DEFAULT_LIMIT;
    const failed = flags.bool('failed');
    const attempts = await (await ctx.management()).attempts.list({ connectionId, since, failed, limit });
    ctx.printJson(attempts.map(attemptJson));
    const scope = `${failed ? 'failed attempts' : 'attempts'} of ${connectionId}${since ? ` since ${since.toISOString()}` : ''}`;
    if (attempts.length === 0) {
      ctx.print(`No ${scope}.`);
      return;
    }
    ctx.print(table(attempts, attemptColumns(ctx.now(), { delivery: true })));
    const more = attempts.length === limit ? ` (the newest ${limit}; --limit shows more)` : '';
    ctx.print(`\n${plural(attempts.length, 'attempt')}${more}, newest first. One delivery in full:`);
    ctx.print(`  ${ctx.suggest(`attempts get ${attempts[0]!.deliveryId}`)}`);
  },
};

const get: CommandSpec = {
  name: ['attempts', 'get'],
  summary: 'every attempt of one delivery, and where it stands',
  usage: '<delivery-id>',
  positionals: { min: 1, max: 1, name: '<delivery-id>' },
  flags: {},
  details: 'The delivery id is the X-Service-Delivery header the receiver got (dlv_…_con_…).',
  examples: ['webhooks attempts get dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  async run(ctx, { positionals }) {
    const deliveryId = positionals[0]!;
    const attempts = await (await ctx.management()).attempts.ofDelivery(deliveryId);
    const first = attempts[0];
    if (!first) {
      throw new CliError(
        `no attempts of ${deliveryId} in the attempt log (not attempted yet, or older than its retention, 30 days by default)`,
      );
    }
    ctx.printJson(attempts.map(attemptJson));
    const last = attempts[attempts.length - 1]!;
    ctx.print(`Delivery ${deliveryId}\n`);
    ctx.print(
      keyValues([
        ['state', deliveryState(attempts)],
        ['connection', first.connectionId],
        ['event', `${first.eventId} (${first.event})`],
        ['user', first.userId],
        ['application', first.applicationId],
        ['target', `${first.method} ${first.target}`],
      ]),
    );
    ctx.print(`\n${table(attempts, attemptColumns(ctx.now(), { delivery: false }))}`);
    if (last.responseSnippet)
      ctx.print(`\nLast response (attempt ${last.attempt}):\n  ${truncate(last.responseSnippet, 1024)}`);
    if (last.final && last.outcome !== 'delivered' && !last.test) {
      ctx.print(
        `\nSend it again, once the receiver is fixed:\n  ${ctx.suggest(`dlq redrive ${deliveryId}`)}`,
      );
    }
  },
};

const failures: CommandSpec = {
  name: ['attempts', 'failures'],
  summary: 'deliveries that failed for good (went to the dead-letter queue), newest first',
  usage: '[--days <n>] [--limit <n>]',
  flags: {
    days: { type: 'string', value: 'n', description: 'look back n days, today included (default 1)' },
    limit: limitFlag,
  },
  examples: ['webhooks attempts failures --days 7'],
  async run(ctx, { flags }) {
    const days = flags.has('days') ? parseWholeNumber(flags.string('days')!, '--days', 1, 365) : 1;
    const limit = flags.has('limit')
      ? parseWholeNumber(flags.string('limit')!, '--limit', 1, MAX_LIMIT)
      : DEFAULT_LIMIT;
    const found = await (await ctx.management()).attempts.finalFailures({ days, limit, now: ctx.now() });
    ctx.printJson(found.map(attemptJson));
    const period = days === 1 ? 'today (UTC)' : `in the last ${days} days`;
    if (found.length === 0) {
      ctx.print(`No final failures ${period}.`);
      return;
    }
    ctx.print(table(found, attemptColumns(ctx.now(), { delivery: true })));
    const more = found.length === limit ? ` (the newest ${limit}; --limit shows more)` : '';
    ctx.print(
      `\n${plural(found.length, 'final failure')} ${period}${more}. What is still in the DLQ: ${ctx.suggest('dlq list')}`,
    );
  },
};

export const attemptCommands: CommandSpec[] = [list, get, failures];
