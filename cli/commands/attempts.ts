/** `webhooks attempts …`: the operator's questions of the attempt log (docs/operations.md). */

import type { Command } from 'commander';
import { RESPONSE_SNIPPET_BYTES } from '../../lambdas/core/constants';
import { bodyOfDelivery } from '../../lambdas/core/resend';
import type { AttemptRecord } from '../../lambdas/core/types';
import { NotFoundError, type ParkReason, type WebhookManagement } from '../../lambdas/management';
import type { Context } from '../context';
import { CliError } from '../errors';
import { keyValues, plural, table, truncate, visible } from '../format';
import { group, handle, leaf } from '../program';
import { parseSince, parseWholeNumber } from '../values';
import { attemptColumns, deliveryState, type FinalPlace, failureAdvice } from '../views';
import { failures, find } from './attempts-find';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;
const LIMIT_FLAG = [
  '--limit <n>',
  `show at most n attempts, newest first (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
] as const;
/** How often `attempts tail` asks the attempt log for news. */
const TAIL_INTERVAL_MS = 1_000;
/**
 * How far back each poll of `attempts tail` looks: more than an attempt can last (30 s timeout),
 * since an attempt is logged when it ends but listed by when it was requested.
 */
const TAIL_LOOKBACK_MS = 60_000;

function list(): Command {
  const cmd = leaf('list', {
    summary: "a connection's recent attempts, newest first",
    usage: '--connection <connection-id> [--since 1h|30m|2d|<ISO date-time>] [--failed] [--limit <n>]',
    examples: ['webhooks attempts list --connection con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --since 1h --failed'],
  })
    .option('--connection <connection-id>', 'the connection (con_…)')
    .option(
      '--since <when>',
      'only attempts since then: 30m, 1h, 2d, 1w back from now, or 2026-11-21T14:00:00Z',
    )
    .option('--failed', 'only attempts that did not deliver')
    .option(...LIMIT_FLAG);
  return handle(cmd, async (ctx, { flags }) => {
    const connectionId = flags.required('connection', 'the con_… id whose attempts to list');
    const since = flags.has('since') ? parseSince(flags.string('since')!, ctx.now()) : undefined;
    const limit = flags.has('limit')
      ? parseWholeNumber(flags.string('limit')!, '--limit', 1, MAX_LIMIT)
      : DEFAULT_LIMIT;
    const failed = flags.bool('failed');
    const attempts = await (await ctx.management()).attempts.list({ connectionId, since, failed, limit });
    ctx.printJson(attempts);
    const scope = `${failed ? 'failed attempts' : 'attempts'} of ${connectionId}${since ? ` since ${since.toISOString()}` : ''}`;
    if (attempts.length === 0) {
      ctx.print(`No ${scope}.`);
      return;
    }
    ctx.print(table(attempts, attemptColumns(ctx.now(), { delivery: true })));
    const more = attempts.length === limit ? ` (the newest ${limit}; --limit shows more)` : '';
    ctx.print(`\n${plural(attempts.length, 'attempt')}${more}, newest attempt first. One delivery in full:`);
    ctx.print(`  ${ctx.suggest(`attempts get ${attempts[0]!.deliveryId}`)}`);
  });
}

function get(): Command {
  const cmd = leaf('get', {
    summary: 'every attempt of one delivery, and where it stands',
    usage: '<delivery-id>',
    details: 'The delivery id is the X-Service-Delivery header the receiver got (dlv_…_con_…).',
    examples: ['webhooks attempts get dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  }).argument('<delivery-id>');
  return handle(cmd, async (ctx, { positionals }) => {
    const deliveryId = positionals[0]!;
    const webhooks = await ctx.management();
    const attempts = await webhooks.attempts.ofDelivery(deliveryId);
    const first = attempts[0];
    if (!first) {
      throw new CliError(
        `no attempts of ${deliveryId} in the attempt log (not attempted yet, or older than its retention, 30 days by default)`,
      );
    }
    ctx.printJson(attempts);
    const last = attempts[attempts.length - 1]!;
    const failedForGood = last.final && last.outcome !== 'delivered' && !last.test;
    const found = failedForGood ? await finalPlace(webhooks, deliveryId) : undefined;
    const place = found?.place;
    ctx.print(`Delivery ${deliveryId}\n`);
    ctx.print(
      keyValues([
        ['state', deliveryState(attempts, place, ctx.suggest)],
        ['connection', first.connectionId],
        ['event', `${first.eventId} (${first.event})`],
        ['user', first.userId],
        ['application', first.applicationId],
        ['target', `${first.method} ${first.target}`],
      ]),
    );
    const traces = attempts.some((a) => a.traceId !== undefined);
    ctx.print(`\n${table(attempts, attemptColumns(ctx.now(), { delivery: false, traces }))}`);
    if (last.responseSnippet)
      ctx.print(
        `\nLast response (attempt ${last.attempt}):\n  ${visible(truncate(last.responseSnippet, RESPONSE_SNIPPET_BYTES) ?? '')}`,
      );
    ctx.print(`\n${requestView(attempts)}`);
    const advice = failureAdvice(last, { local: ctx.globals.local, suggest: ctx.suggest });
    if (advice) ctx.print(`\nWhat to do: ${advice}`);
    if (place === 'parked') {
      // A retry while the connection is still disabled would only park it again.
      const once =
        found?.reason === 'connection_disabled'
          ? `once ${first.connectionId} is enabled (${ctx.suggest(`connections enable ${first.connectionId}`)})`
          : 'once the receiver is fixed';
      ctx.print(`\nSend it again, ${once}:\n  ${ctx.suggest(`attempts retry ${deliveryId}`)}`);
    } else if (place === 'not-parked') {
      ctx.print(
        `\nIf it is in the dead-letter queue (${ctx.suggest('dlq list')}), send it again, once the receiver is fixed:\n  ${ctx.suggest(`dlq redrive ${deliveryId}`)}`,
      );
    }
  });
}

/**
 * Where a delivery that failed for good is: the parked table says, without touching the DLQ.
 * Undefined when it cannot be read (the attempts are shown either way).
 */
async function finalPlace(
  webhooks: WebhookManagement,
  deliveryId: string,
): Promise<{ place: FinalPlace; reason?: ParkReason } | undefined> {
  try {
    const parked = await webhooks.parked.get(deliveryId);
    return parked ? { place: 'parked', reason: parked.reason } : { place: 'not-parked' };
  } catch (error) {
    // Without a scope, a delivery is not found only when its connection does not exist.
    return error instanceof NotFoundError ? { place: 'connection-gone' } : undefined;
  }
}

/** Each attempt once, by delivery id and attempt number. */
function attemptKey(r: AttemptRecord): string {
  return `${r.deliveryId}#${r.attempt}#${r.test ? 't' : ''}`;
}

function tail(): Command {
  const cmd = leaf('tail', {
    summary: 'follow new attempts as they are logged (all connections, or one); Ctrl-C stops',
    usage: '[--connection <connection-id>] [--application <app_id>]',
    details:
      'Prints each attempt once, oldest first, with its full delivery id (paste it into `webhooks attempts get`).\nWith --json, one JSON object per line.',
    examples: [
      'webhooks attempts tail',
      'webhooks attempts tail --connection con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
    ],
  })
    .option('--connection <connection-id>', 'only this connection (con_…)')
    .option('--application <app_id>', 'only the connections of this application');
  return handle(cmd, async (ctx, { flags }) => {
    const webhooks = await ctx.management();
    const only = flags.string('connection');
    const applicationId = flags.string('application');
    /** Attempts already printed, with when they were requested (forgotten once out of the window). */
    const seen = new Map<string, string>();
    let since = new Date(ctx.now().getTime() - TAIL_LOOKBACK_MS);
    let header = false;
    ctx.stderr.write(
      `Following attempts${only ? ` of ${only}` : applicationId ? ` of ${applicationId}` : ''}; Ctrl-C stops.\n`,
    );
    do {
      const ids = only
        ? [only]
        : (await webhooks.connections.list(applicationId ? { applicationId } : {})).map(
            (c) => c.connectionId,
          );
      const polledAt = ctx.now();
      const fresh: AttemptRecord[] = [];
      for (const connectionId of ids) {
        const found = await webhooks.attempts.list({ connectionId, since, limit: MAX_LIMIT });
        for (const r of found) if (!seen.has(attemptKey(r))) fresh.push(r);
      }
      fresh.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
      for (const r of fresh) seen.set(attemptKey(r), r.requestedAt);
      if (ctx.globals.json) {
        for (const r of fresh) ctx.printJsonLine(r);
      } else if (fresh.length) {
        const columns = attemptColumns(ctx.now(), { delivery: true, fixedWidths: true });
        const lines = table(fresh, columns).split('\n');
        ctx.print((header ? lines.slice(1) : lines).join('\n'));
        header = true;
      }
      // An attempt is logged when it ends, up to its timeout after its requestedAt: look back
      // that far on every poll (seen drops the repeats), so a slow attempt is not missed.
      since = new Date(polledAt.getTime() - TAIL_LOOKBACK_MS);
      for (const [key, at] of seen) if (at < since.toISOString()) seen.delete(key);
    } while (await ctx.sleep(TAIL_INTERVAL_MS));
  });
}

/**
 * The request the latest attempt sent, as the attempt log keeps it (docs/design.md §5): method
 * and target, every header (custom values hidden, the signature shown), and the body, kept once
 * per delivery, or the plain reason it is not there.
 */
export function requestView(attempts: readonly AttemptRecord[]): string {
  const sent = [...attempts].reverse().find((a) => a.requestHeaders !== undefined) ?? attempts.at(-1)!;
  const lines = [`Request (attempt ${sent.attempt}):`, `  ${sent.method} ${sent.target}`];
  if (sent.requestHeaders) {
    for (const h of sent.requestHeaders) lines.push(`  ${visible(h.name)}: ${visible(h.value)}`);
  } else {
    lines.push('  (headers not recorded: nothing was sent, or the attempt predates request records)');
  }
  const body = bodyOfDelivery(attempts);
  lines.push('', 'body' in body ? `  ${visible(body.body)}` : `  (no body: ${body.message})`);
  return lines.join('\n');
}

function resend(): Command {
  const cmd = leaf('resend', {
    summary: 'send any delivery again, delivered or not, as its next attempt',
    usage: '<delivery-id>',
    details:
      'The delivery goes back on the internal retry queue with the same delivery id and body, as attempt\nlast + 1, signed afresh when the dispatcher sends it; if that attempt fails it is retried after\n1 s, 2 s and 4 s, then parked. Refused while a retry of it is still scheduled, or when its body\nis no longer kept (see `attempts get <id>`).',
    examples: ['webhooks attempts resend dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  }).argument('<delivery-id>');
  return handle(cmd, async (ctx, { positionals }) => {
    const deliveryId = positionals[0]!;
    const result = await (await ctx.management()).resendDelivery(deliveryId);
    ctx.printJson(result);
    ctx.print(
      `Queued ${deliveryId} again as attempt ${result.attempt} for ${result.connectionId}. Follow it: ${ctx.suggest(`attempts get ${deliveryId}`)}`,
    );
  });
}

function retry(): Command {
  const cmd = leaf('retry', {
    summary: 'send one parked delivery again now (a new chain of 4 attempts)',
    usage: '<delivery-id>',
    details:
      'The delivery must be parked (see `connections parked <id>`). It goes back on the internal retry queue\nwith the same delivery id and byte-identical body; its attempt numbers continue.\nA delivery that is not parked (delivered, or failed and sent again since) is sent again with `attempts resend`.',
    examples: ['webhooks attempts retry dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  }).argument('<delivery-id>');
  return handle(cmd, async (ctx, { positionals }) => {
    const deliveryId = positionals[0]!;
    const webhooks = await ctx.management();
    let result: Awaited<ReturnType<WebhookManagement['retryDelivery']>>;
    try {
      result = await webhooks.retryDelivery(deliveryId);
    } catch (error) {
      if (error instanceof NotFoundError && error.kind === 'delivery')
        throw await notParked(ctx, webhooks, deliveryId, error);
      throw error;
    }
    ctx.printJson({ deliveryId, ...result });
    ctx.print(
      `Re-queued ${deliveryId} for ${result.connectionId}. Follow it: ${ctx.suggest(`attempts get ${deliveryId}`)}`,
    );
  });
}

/**
 * Why `attempts retry` found nothing to retry, when the attempt log knows the delivery: it is
 * not parked (delivered, still retrying, or sent again since), and Resend is what sends any
 * delivery again. The library's own error when the log does not know it either.
 */
async function notParked(
  ctx: Context,
  webhooks: WebhookManagement,
  deliveryId: string,
  notFound: NotFoundError,
): Promise<Error> {
  const attempts = await webhooks.attempts.ofDelivery(deliveryId).catch(() => []);
  const last = attempts.at(-1);
  if (!last) return notFound;
  const state = deliveryState(attempts, 'not-parked', ctx.suggest);
  if (last.nextAttemptAt) {
    return new CliError(
      `${deliveryId} is not parked, so there is nothing to retry: it is ${state}. Follow it: ${ctx.suggest(`attempts get ${deliveryId}`)}`,
    );
  }
  return new CliError(
    `${deliveryId} is not parked, so there is nothing to retry (attempts retry sends parked deliveries only): ${state}. To send it again anyway, as its next attempt: ${ctx.suggest(`attempts resend ${deliveryId}`)}`,
  );
}

export function attemptsCommand(): Command {
  const cmd = group(
    'attempts',
    'read the attempt log: every delivery attempt, its request, outcome and response; retry a parked delivery, resend any',
  );
  for (const sub of [list(), get(), find(), failures(), tail(), retry(), resend()]) cmd.addCommand(sub);
  return cmd;
}
