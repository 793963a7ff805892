/**
 * `webhooks connections shards`: how many attempt-log partitions a connection's attempts are
 * spread over, and raising it (docs/operations.md "A connection past ~900 deliveries/s",
 * docs/design.md §5 "Shards"). A separate command, not an `update` flag: a raise cannot be
 * undone and changes no delivery, so it is asked for by name.
 */

import type { Command } from 'commander';
import { currentAttemptShards, MAX_ATTEMPT_SHARDS, RAISE_DELAY_MS } from '../../lambdas/core/attempt-shards';
import type { Connection } from '../../lambdas/core/types';
import type { Context } from '../context';
import { keyValues, plural } from '../format';
import { handle, leaf } from '../program';
import { parseWholeNumber } from '../values';

const ID = '<connection-id>';

/** The steps a connection has had, oldest first, as lines. */
function stepsBlock(connection: Connection): string {
  const steps = connection.attemptShards ?? [];
  return keyValues([
    ['connection', connection.connectionId],
    ['attempt shards', currentAttemptShards(connection)],
    [
      'history',
      steps.length
        ? steps.map((s) => `${s.count} from ${s.from.startsWith('1970') ? 'the start' : s.from}`).join('; ')
        : '1 (never raised)',
    ],
  ]);
}

export function shards(): Command {
  const cmd = leaf('shards', {
    summary: "show or raise how many attempt-log partitions a connection's attempts spread over",
    usage: `${ID} [--raise-to <n>]`,
    details: `One partition takes about 900 healthy deliveries a second (docs/scale.md). Raising to n spreads the
deliveries created from a minute later over n partitions; earlier deliveries and their retries stay
where they are, and every attempt query reads all of them. A raise cannot be undone. Listings of the
connection read one Query per partition. At most ${MAX_ATTEMPT_SHARDS}.`,
    examples: [
      'webhooks connections shards con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
      'webhooks connections shards con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --raise-to 4',
    ],
  })
    .argument(ID)
    .option(
      '--raise-to <n>',
      `spread new deliveries over n partitions (above the current count, at most ${MAX_ATTEMPT_SHARDS})`,
    );
  return handle(cmd, async (ctx: Context, { flags, positionals }) => {
    const webhooks = await ctx.management();
    const id = positionals[0]!;
    if (!flags.has('raise-to')) {
      const connection = await webhooks.connections.get(id);
      ctx.printJson({ connectionId: connection.connectionId, attemptShards: connection.attemptShards ?? [] });
      ctx.print(stepsBlock(connection));
      return;
    }
    const to = parseWholeNumber(flags.string('raise-to')!, '--raise-to', 2, MAX_ATTEMPT_SHARDS);
    const connection = await webhooks.connections.raiseAttemptShards(id, to);
    ctx.printJson({ connectionId: connection.connectionId, attemptShards: connection.attemptShards });
    ctx.print(`Raised ${connection.connectionId} to ${plural(to, 'attempt-log partition', 'attempt-log partitions')}: deliveries created from ${connection.attemptShards!.at(-1)!.from} (in ${RAISE_DELAY_MS / 1000} s) spread over them.

${stepsBlock(connection)}`);
  });
}
