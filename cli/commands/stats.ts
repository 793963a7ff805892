/** `webhooks stats`: how deliveries went over a window, and what is waiting, for operators. */

import type { Command } from 'commander';
import { OUTCOMES } from '../../lambdas/core/types';
import type { OperatorStats, QueueDepth } from '../../lambdas/management';
import { CliError } from '../errors';
import { keyValues, plural, table } from '../format';
import { handle, leaf } from '../program';
import { parseSince, parseWholeNumber } from '../values';

const DEFAULT_SINCE = '1h';
const DEFAULT_TOP = 5;

export function statsCommand(): Command {
  const cmd = leaf('stats', {
    summary: 'attempts by outcome, the most failing connections, queue depths, DLQ and parked counts',
    usage: '[--since 1h|30m|2d|<ISO date-time>] [--top <n>]',
    details:
      'Attempts are counted by when they were requested, from the attempt log; a connection fails an attempt\nwith any outcome but delivered. Queue figures are now, as SQS counts them (approximate). Local mode only\nfor now: it reads every attempt in the attempt log (docs/operations.md#webhooks-stats).',
    examples: [
      'webhooks --local stats',
      'webhooks --local stats --since 24h --top 10',
      'webhooks --local stats --json',
    ],
  })
    .option(
      '--since <when>',
      `the window's start: 30m, 1h, 2d, 1w back from now, or an ISO date-time (default ${DEFAULT_SINCE})`,
    )
    .option('--top <n>', `how many failing connections to list (default ${DEFAULT_TOP})`);
  return handle(cmd, async (ctx, { flags }) => {
    if (!ctx.globals.local) {
      throw new CliError(
        "webhooks stats reads local mode only for now (--local): a deployed stack's figures are in CloudWatch (docs/operations.md#webhooks-stats)",
      );
    }
    const until = ctx.now();
    const since = parseSince(flags.string('since') ?? DEFAULT_SINCE, until);
    const top = flags.has('top') ? parseWholeNumber(flags.string('top')!, '--top', 1, 100) : DEFAULT_TOP;
    const stats = await (await ctx.management()).stats.read({ since, until, top });
    ctx.printJson(stats);
    ctx.print(statsText(stats));
  });
}

/** The human form: the window, attempts by outcome, failing connections, queues. */
export function statsText(s: OperatorStats): string {
  const { total, byOutcome } = s.attempts;
  const lines = [`Attempts requested from ${s.since} to ${s.until}: ${total}`];
  if (total > 0) {
    const rows = OUTCOMES.filter((o) => byOutcome[o] > 0).map((o) => ({
      outcome: o,
      count: byOutcome[o],
      share: `${Math.round((byOutcome[o] / total) * 1000) / 10} %`,
    }));
    lines.push(
      table(rows, [
        { header: 'OUTCOME', value: (r) => r.outcome },
        { header: 'ATTEMPTS', value: (r) => r.count, align: 'right' },
        { header: 'SHARE', value: (r) => r.share, align: 'right' },
      ]),
    );
  }
  lines.push('');
  if (s.topFailing.length === 0) {
    lines.push('No connection failed an attempt in the window.');
  } else {
    lines.push(`Most failing connections (${plural(s.topFailing.length, 'connection')}):`);
    lines.push(
      table(s.topFailing, [
        { header: 'CONNECTION', value: (r) => r.connectionId },
        { header: 'FAILED', value: (r) => r.failed, align: 'right' },
        { header: 'OF', value: (r) => r.attempts, align: 'right' },
      ]),
    );
  }
  lines.push('', 'Now:');
  lines.push(
    keyValues([
      ['ingress queue', queueLine(s.queues.ingress)],
      ['retry queue', queueLine(s.queues.retry)],
      ['dead-letter queue', plural(s.dlqDepth, 'message')],
      ['parked', s.parked === undefined ? undefined : plural(s.parked, 'delivery', 'deliveries')],
    ]),
  );
  return lines.join('\n');
}

function queueLine(q: QueueDepth): string {
  return `${q.visible} waiting, ${q.delayed} delayed, ${q.inFlight} in flight`;
}
