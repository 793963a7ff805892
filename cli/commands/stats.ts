/** `webhooks stats`: how deliveries went over a window, and what is waiting, for operators. */

import type { Command } from 'commander';
import { OUTCOMES } from '../../lambdas/core/types';
import type { OperatorStats, QueueDepth } from '../../lambdas/management';
import { keyValues, plural, table } from '../format';
import { handle, leaf } from '../program';
import { parseWholeNumber, parseWindowStart } from '../values';

const DEFAULT_SINCE = '1h';
const DEFAULT_TOP = 5;

export function statsCommand(): Command {
  const cmd = leaf('stats', {
    summary:
      'attempts by outcome, the most failing connections, queue depths and ages, DLQ and parked counts',
    usage: '[--since 1h|30m|2d|<ISO date-time>] [--top <n>]',
    details:
      "A connection fails an attempt with any outcome but delivered. Local mode counts the attempt log by when\neach attempt was requested; a deployed stack reads CloudWatch: the Webhooks Attempts metric by outcome,\nthe failed-attempts Contributor Insights rule and the queues' ApproximateAgeOfOldestMessage. Queue depths\nare now, as SQS counts them (approximate). IAM actions needed: docs/operations.md#webhooks-stats.",
    examples: [
      'webhooks --local stats',
      'webhooks --local stats --since 24h --top 10',
      'webhooks --stack Webhooks --region eu-west-1 stats --since 1d',
      'webhooks --local stats --json',
    ],
  })
    .option(
      '--since <when>',
      `the window's start: 30m, 1h, 2d, 1w back from now, or an ISO date-time (default ${DEFAULT_SINCE})`,
    )
    .option('--top <n>', `how many failing connections to list (default ${DEFAULT_TOP})`);
  return handle(cmd, async (ctx, { flags }) => {
    const until = ctx.now();
    const since = parseWindowStart(flags.string('since') ?? DEFAULT_SINCE, until);
    const top = flags.has('top') ? parseWholeNumber(flags.string('top')!, '--top', 1, 100) : DEFAULT_TOP;
    const stats = await (await ctx.management()).stats.read({ since, until, top });
    ctx.printJson(stats);
    ctx.print(statsText(stats));
  });
}

/** The human form: the window, attempts by outcome, failing connections, queues. */
export function statsText(s: OperatorStats): string {
  const { total, byOutcome } = s.attempts;
  const what = s.source === 'cloudwatch' ? 'Attempts (CloudWatch)' : 'Attempts requested';
  const lines = [`${what} from ${s.since} to ${s.until}: ${total}`];
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
    // The attempt log knows each connection's attempts; the Contributor Insights rule only its failures.
    const withTotals = s.topFailing.every((r) => r.attempts !== undefined);
    lines.push(
      table(s.topFailing, [
        { header: 'CONNECTION', value: (r) => r.connectionId },
        { header: 'FAILED', value: (r) => r.failed, align: 'right' },
        ...(withTotals
          ? [
              {
                header: 'OF',
                value: (r: (typeof s.topFailing)[number]) => r.attempts,
                align: 'right' as const,
              },
            ]
          : []),
      ]),
    );
  }
  lines.push('', 'Now:');
  lines.push(
    keyValues([
      ['ingress queue', queueLine(s.queues.ingress)],
      ['retry queue', queueLine(s.queues.retry)],
      ['dead-letter queue', `${plural(s.dlqDepth, 'message')}${age(s.queues.deadLetter)}`],
      ['parked', s.parked === undefined ? undefined : plural(s.parked, 'delivery', 'deliveries')],
    ]),
  );
  return lines.join('\n');
}

function queueLine(q: QueueDepth): string {
  return `${q.visible} waiting, ${q.delayed} delayed, ${q.inFlight} in flight${age(q)}`;
}

/** ", oldest 42 s" (whole seconds, then minutes, hours or days), ", oldest unknown", or nothing on an empty queue. */
function age(q: QueueDepth): string {
  if (q.oldestAgeSeconds === null) return ', oldest unknown';
  if (q.visible + q.delayed + q.inFlight === 0 && q.oldestAgeSeconds === 0) return '';
  return `, oldest ${duration(q.oldestAgeSeconds)}`;
}

/** 42 s, 3 min, 5 h, 2 d: the largest unit that fits, rounded down. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7_200) return `${Math.floor(s / 60)} min`;
  if (s < 172_800) return `${Math.floor(s / 3_600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}
