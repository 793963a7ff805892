/** `webhooks dlq …`: what is in the dead-letter queue and why, sending it back, and clearing it. */

import type { Command } from 'commander';
import { isDeliveryId } from '../../lambdas/core/ids';
import type { DeadLetterEntry, SkippedEntry } from '../../lambdas/management';
import { confirm } from '../confirm';
import type { Context } from '../context';
import { CliError, UsageError } from '../errors';
import { plural, table } from '../format';
import { group, handle, leaf } from '../program';
import { progress } from '../progress';
import { deadLetterColumns } from '../views';

function list(): Command {
  const cmd = leaf('list', {
    summary: 'what is in the dead-letter queue, oldest first, with the reason',
    details:
      'One DLQ serves the ingress queue (events) and the internal retry queue (deliveries); REDRIVE TO\nnames the queue a redrive returns each message to.\nReasons: exhausted (4 attempts failed), blocked, connection_missing, connection_disabled,\nconnection_invalid, invalid_message, invalid_payload, max_receives (infrastructure errors).',
    examples: ['webhooks dlq list'],
  });
  return handle(cmd, async (ctx) => {
    const entries = await (await ctx.management()).deadLetters.list();
    ctx.printJson(entries);
    if (entries.length === 0) {
      ctx.print('The dead-letter queue is empty.');
      return;
    }
    ctx.print(table(entries, deadLetterColumns(ctx.now())));
    ctx.print(`\n${plural(entries.length, 'message')} in the dead-letter queue. Send deliveries back with:`);
    ctx.print(`  ${ctx.suggest('dlq redrive <delivery-id>…')}   or   ${ctx.suggest('dlq redrive --all')}`);
    ctx.print(`Clear what cannot be sent back with: ${ctx.suggest('dlq delete <message-id|delivery-id>…')}`);
  });
}

function redrive(): Command {
  const cmd = leaf('redrive', {
    summary: 'send dead-lettered deliveries back to the delivery queue',
    usage: '<delivery-id>… | --all',
    details:
      'A redriven delivery starts a fresh chain of 4 attempts with the same delivery id and body. Each message\nleaves the DLQ only once it is safely back on its queue: deliveries on the internal retry queue, events\non the ingress queue. Poison messages (invalid_message,\ninvalid_payload) stay where they are. Exits with status 1 when a delivery id asked for is not in the DLQ.',
    examples: [
      'webhooks dlq redrive dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
      'webhooks dlq redrive --all',
    ],
  })
    .argument('[delivery-id...]')
    .option('--all', 'redrive everything that can be redriven');
  return handle(cmd, async (ctx, { flags, positionals }) => {
    const all = flags.bool('all');
    if (all && positionals.length) throw new UsageError('give delivery ids or --all, not both');
    if (!all && positionals.length === 0) {
      throw new UsageError('which deliveries? give their ids, or --all');
    }
    const bad = positionals.find((id) => !isDeliveryId(id));
    if (bad) throw new UsageError(`"${bad}" is not a delivery id (dlv_<ulid>_con_<id>)`);

    const stream = ctx.stderr as NodeJS.WriteStream;
    const indicator = progress(stream, {
      describe: (n) => `redriving… ${n} sent back`,
      isTTY: stream.isTTY === true,
    });
    const result = await (await ctx.management()).deadLetters.redrive({
      ...(all ? { all: true } : { deliveryIds: positionals }),
      onProgress: (done) => indicator.update(done),
    });
    indicator.finish(result.redriven.length);

    ctx.printJson(result);
    if (result.redriven.length) {
      ctx.print(
        `Redriven ${plural(result.redriven.length, 'delivery', 'deliveries')}; each starts a fresh chain of 4 attempts:`,
      );
      ctx.print(table(result.redriven, deadLetterColumns(ctx.now())));
    } else {
      ctx.print('Nothing was redriven.');
    }
    if (result.skipped.length) printSkipped(ctx, result.skipped);
    if (result.notFound.length) {
      throw new CliError(`not in the dead-letter queue: ${result.notFound.join(', ')}`);
    }
  });
}

/** Each message a redrive left behind, with why, and how to clear it. */
function printSkipped(ctx: Context, skipped: readonly SkippedEntry[]): void {
  ctx.print(`\nLeft ${plural(skipped.length, 'message')} in the DLQ:`);
  for (const entry of skipped) ctx.print(`  ${nameOf(entry)}: ${entry.why}`);
  ctx.print(`Delete one with: ${ctx.suggest('dlq delete <message-id|delivery-id>')}`);
}

const nameOf = (entry: DeadLetterEntry) => entry.deliveryId ?? `message ${entry.messageId}`;

function remove(): Command {
  const cmd = leaf('delete', {
    summary: 'delete dead-lettered messages for good (asks first; --yes to skip)',
    usage: '<message-id|delivery-id>… | --all [--yes]',
    details:
      'A deleted message is gone: its delivery is never attempted again. Name messages by the delivery id\nor, for a message without one (poison), the message id dlq list shows as (message <id>). Asks for\nconfirmation on a terminal; in scripts and CI (no terminal) give --yes. Exits with status 1 when an\nid asked for is not in the DLQ.',
    examples: [
      'webhooks dlq delete dlv_01JD8X4AZ3K5M7N9P1Q3R5S7T9_con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
      'webhooks dlq delete --all --yes',
    ],
  })
    .argument('[id...]')
    .option('--all', 'delete everything in the dead-letter queue')
    .option('-y, --yes', 'delete without asking');
  return handle(cmd, async (ctx, { flags, positionals }) => {
    const all = flags.bool('all');
    if (all && positionals.length) throw new UsageError('give message or delivery ids or --all, not both');
    if (!all && positionals.length === 0) throw new UsageError('which messages? give their ids, or --all');
    const what = all ? 'everything in the dead-letter queue' : plural(positionals.length, 'message');
    if (!flags.bool('yes')) {
      await confirm(ctx, `Delete ${what} for good? The deliveries are never attempted again.`, {
        refusal: `not deleting ${what}`,
        retry: ctx.suggest(`dlq delete ${all ? '--all' : positionals.join(' ')} --yes`),
        declined: 'nothing deleted: the dead-letter queue is unchanged',
      });
    }
    const result = await (await ctx.management()).deadLetters.delete(
      all ? { all: true } : { ids: positionals },
    );
    ctx.printJson(result);
    if (result.deleted.length) {
      ctx.print(`Deleted ${plural(result.deleted.length, 'message')} from the dead-letter queue:`);
      for (const entry of result.deleted) ctx.print(`  ${nameOf(entry)} (${entry.reason})`);
    } else {
      ctx.print(all ? 'Nothing was deleted: the dead-letter queue is empty.' : 'Nothing was deleted.');
    }
    if (result.notFound.length) {
      throw new CliError(`not in the dead-letter queue: ${result.notFound.join(', ')}`);
    }
  });
}

export function dlqCommand(): Command {
  const cmd = group('dlq', 'see what is in the dead-letter queue, send it back for delivery, or clear it');
  for (const sub of [list(), redrive(), remove()]) cmd.addCommand(sub);
  return cmd;
}
