/** `webhooks dlq …`: what is in the dead-letter queue and why, and sending it back. */

import type { Command } from 'commander';
import { isDeliveryId } from '../../lambdas/core/ids';
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
    if (result.skipped.length) {
      ctx.print(
        `\nLeft ${plural(result.skipped.length, 'poison message')} in the DLQ (they would only fail again).`,
      );
    }
    if (result.notFound.length) {
      throw new CliError(`not in the dead-letter queue: ${result.notFound.join(', ')}`);
    }
  });
}

export function dlqCommand(): Command {
  const cmd = group('dlq', 'see what is in the dead-letter queue and send it back for delivery');
  for (const sub of [list(), redrive()]) cmd.addCommand(sub);
  return cmd;
}
