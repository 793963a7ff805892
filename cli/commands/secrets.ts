/** `webhooks connections show-secret | rotate-secret`: the signing secret and its rotation with overlap. */

import type { Command } from 'commander';
import type { Context } from '../context';
import { when } from '../format';
import { handle, leaf } from '../program';
import { parseSwitchAfter } from '../values';
import { cacheTime } from './cache-time';

const ID = '<connection-id>';

export function showSecret(): Command {
  const cmd = leaf('show-secret', {
    summary: 'print the signing secret the receiver verifies with',
    usage: ID,
    details:
      'Prints only the secret that signs now, so it can be captured: SECRET=$(webhooks connections show-secret <id>).\nWhile a rotated secret waits for its switch time, it and the time follow on stderr (--json: `next`).\nThe HMAC key is the whole string, whsec_ prefix included, as UTF-8 bytes (do not base64-decode it).',
    examples: ['webhooks connections show-secret con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  }).argument(ID);
  return handle(cmd, async (ctx, { positionals }) => {
    const connectionId = positionals[0]!;
    const shown = await (await ctx.management()).connections.showSecret(connectionId);
    ctx.printJson({ connectionId, ...shown });
    ctx.print(shown.secret);
    if (shown.next && !ctx.globals.json) ctx.stderr.write(`${nextSecretNote(ctx, shown.next)}\n`);
  });
}

/** The pending secret of a rotation, in the words show-secret and rotate-secret share. */
function nextSecretNote(ctx: Context, next: { secret: string; switchAt: string }): string {
  return `Next secret, signing from ${when(next.switchAt, ctx.now())}:

  ${next.secret}

Until then the secret above signs. Have the receiver accept both now:
  verifyWebhook({ rawBody, headers, secret: [currentSecret, nextSecret] })`;
}

export function rotateSecret(): Command {
  const cmd = leaf('rotate-secret', {
    summary: 'make a new signing secret, print it, and switch deliveries to it later (24 hours by default)',
    usage: `${ID} [--switch-after <time> | --switch-at <iso>]`,
    details:
      "The new secret is shown now; deliveries keep being signed with the current one until the switch\ntime: --switch-after (45s, 30m, 2h, 1d; 0 switches at once), --switch-at, or the stack's\nsecretRotationOverlap (24 hours unless its operator changed it). Rotating again before the switch\nreplaces the waiting secret; the current one keeps signing. Until the switch, the receiver should\naccept both: verifyWebhook({ rawBody, headers, secret: [currentSecret, nextSecret] }).",
    examples: [
      'webhooks connections rotate-secret con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
      'webhooks connections rotate-secret con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --switch-after 0',
    ],
  })
    .argument(ID)
    .option(
      '--switch-after <time>',
      'when the new secret starts signing, from now: 45s, 30m, 2h, 1d; 0: at once',
    )
    .option('--switch-at <iso>', 'when the new secret starts signing: an ISO 8601 time within 30 days');
  return handle(cmd, async (ctx, { positionals, flags }) => {
    const connectionId = positionals[0]!;
    const after = flags.string('switch-after');
    const at = flags.string('switch-at');
    const webhooks = await ctx.management();
    const rotated = await webhooks.connections.rotateSecret(connectionId, {
      ...(after !== undefined ? { switchAfter: parseSwitchAfter(after) } : {}),
      ...(at !== undefined ? { switchAt: at } : {}),
    });
    ctx.printJson({ connectionId, ...rotated });
    const atOnce = Date.parse(rotated.switchAt) <= ctx.now().getTime();
    ctx.print(
      atOnce
        ? `New signing secret of ${connectionId}, in use at once:

  ${rotated.secret}

Deliveries switch to it within the dispatcher's connection cache time (${cacheTime(ctx, webhooks)}); the old
secret no longer signs after that.`
        : `New signing secret of ${connectionId}, signing from ${when(rotated.switchAt, ctx.now())}:

  ${rotated.secret}

Until then the current secret keeps signing. Have the receiver accept both now:
  verifyWebhook({ rawBody, headers, secret: [currentSecret, nextSecret] })
Both, with the switch time: ${ctx.suggest(`connections show-secret ${connectionId}`)}`,
    );
  });
}
