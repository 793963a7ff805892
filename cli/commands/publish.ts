/** `webhooks publish`: validate and enqueue one `user.identified` event, as an upstream service would. */

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isParkReason } from '../../lambdas/core/parking';
import { fansOutTo, judgeTarget, type Target } from '../../lambdas/core/targets';
import type { Connection } from '../../lambdas/core/types';
import { NotFoundError, type WebhookManagement } from '../../lambdas/management';
import type { PublishInput } from '../../lambdas/publisher';
import type { Context } from '../context';
import { CliError, UsageError } from '../errors';
import { visible } from '../format';
import { handle, leaf, repeatableOption } from '../program';
import { parseJsonObject } from '../values';

/** What an event file may hold: an `eventId` of its own republishes that event (docs/publishing.md). */
const FILE_FIELDS = ['eventId', 'user', 'application', 'occurredAt', 'connectionIds'];
const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
};

function readFile(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const why = READ_ERRORS[code] ?? (error as Error).message;
    throw new CliError(`--file: cannot read ${path}: ${why}`, { cause: error });
  }
}

/** The event to publish, from `--file` or from `--application` and `--user-json`. */
export function publishInput(flags: {
  file?: string;
  application?: string;
  applicationName?: string;
  userJson?: string;
  /** `--connection`, repeated: deliver to these connections only (the event's connectionIds). */
  connections?: readonly string[];
  readFile?: (path: string) => string;
}): PublishInput {
  const input = eventInput(flags);
  const named = flags.connections ?? [];
  if (named.length === 0) return input;
  if (input.connectionIds !== undefined) {
    throw new UsageError("--connection and the file's connectionIds both name targets: use one of them");
  }
  return { ...input, connectionIds: [...new Set(named)] };
}

function eventInput(flags: Parameters<typeof publishInput>[0]): PublishInput {
  if (flags.file !== undefined) {
    if (
      flags.userJson !== undefined ||
      flags.application !== undefined ||
      flags.applicationName !== undefined
    ) {
      throw new UsageError(
        '--file holds the whole event: use it without --application, --application-name or --user-json',
      );
    }
    const event = parseJsonObject((flags.readFile ?? readFile)(flags.file), '--file');
    const unknown = Object.keys(event).filter((k) => !FILE_FIELDS.includes(k));
    if (unknown.length) {
      throw new UsageError(
        `--file: unknown field ${unknown.join(', ')} (expected ${FILE_FIELDS.join(', ')})`,
      );
    }
    return event as unknown as PublishInput;
  }
  if (flags.userJson === undefined) throw new UsageError('give --user-json with --application, or --file');
  if (flags.application === undefined) throw new UsageError('--application is required with --user-json');
  return {
    user: parseJsonObject(flags.userJson, '--user-json'),
    // The payload needs a name; the id is an honest stand-in when none is given (the command
    // looks for the one the application's events last carried first: namedAfterLastEvent).
    application: { id: flags.application, name: flags.applicationName ?? flags.application },
  };
}

/**
 * Without `--application-name`, the name the application's events last carried, as Send Test
 * names it (WebhookManagement.applicationName); the id when none is known. Says which, on stderr.
 */
async function namedAfterLastEvent(
  ctx: Context,
  webhooks: WebhookManagement,
  input: PublishInput,
): Promise<PublishInput> {
  const id = String((input.application as { id?: unknown }).id);
  let known: string | undefined;
  try {
    known = await webhooks.applicationName(id);
  } catch {
    known = undefined; // Only a name: the event is published with its id then.
  }
  ctx.stderr.write(
    known !== undefined
      ? `Application name: ${JSON.stringify(visible(known))}, the name ${id}'s events last carried (--application-name sets another).\n`
      : `Application name: ${id}, its id: no kept delivery of ${id} names it (--application-name sets one).\n`,
  );
  return known === undefined ? input : { ...input, application: { id, name: known } };
}

/** Where an event's deliveries go, as the dispatcher will judge its connections (core/fan-out.ts, core/targets.ts). */
export interface Destinations {
  /** Enabled: sent. */
  sent: string[];
  /** Disabled (by health, or by hand when the event names it): parked as connection_disabled. */
  parked: string[];
  /** Named by the event but missing or another application's: dead-lettered. */
  refused: { connectionId: string; why: string }[];
}

/**
 * Where an event's deliveries go: the application's connections its events fan out to, or each
 * connection the event names, judged as the dispatcher judges them (core/targets.ts) and sorted
 * by what settling does with each refusal. Undefined if they cannot be read.
 */
export async function destinations(
  webhooks: WebhookManagement,
  applicationId: string,
  connectionIds: readonly string[] | undefined,
): Promise<Destinations | undefined> {
  let targets: Target[];
  try {
    if (!connectionIds) {
      const all = await webhooks.connections.list({ applicationId });
      targets = all.filter(fansOutTo).map((c) => judgeTarget(c.connectionId, c));
    } else {
      targets = [];
      for (const id of connectionIds) targets.push(judgeTarget(id, await found(webhooks, id), applicationId));
    }
  } catch {
    return undefined; // Only a hint: the event is published either way.
  }
  const to: Destinations = { sent: [], parked: [], refused: [] };
  for (const { id, refusal } of targets) {
    if (!refusal) to.sent.push(id);
    else if (isParkReason(refusal[0])) to.parked.push(id);
    else {
      const why =
        refusal[0] === 'connection_missing'
          ? 'does not exist'
          : `belongs to another application, not ${applicationId}`;
      to.refused.push({ connectionId: id, why });
    }
  }
  return to;
}

/** A connection, or undefined when it does not exist. */
async function found(webhooks: WebhookManagement, connectionId: string): Promise<Connection | undefined> {
  try {
    return await webhooks.connections.get(connectionId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** What the operator should know about where the event goes, and how to follow it. */
function printDestinations(ctx: Context, app: string, to: Destinations): void {
  if (to.sent.length + to.parked.length + to.refused.length === 0) {
    ctx.print(`Note: ${app} has no enabled webhook connection, so this event goes nowhere. Add one with:
  ${ctx.suggest(`connections create --application ${app} --name … --url https://…`)}`);
    return;
  }
  if (to.sent.length) {
    const follow = to.sent.map((id) => `  ${ctx.suggest(`attempts list --connection ${id} --since 5m`)}`);
    ctx.print(`It goes to ${to.sent.join(', ')}. Follow it with:\n${follow.join('\n')}`);
  }
  for (const id of to.parked) {
    ctx.print(`${id} is disabled: its delivery will be parked, not sent. Enable it, then send what was parked:
  ${ctx.suggest(`connections enable ${id}`)}
  ${ctx.suggest(`connections recover ${id}`)}`);
  }
  for (const { connectionId, why } of to.refused) {
    ctx.print(`${connectionId} ${why}: its delivery will go to the dead-letter queue, not to a receiver.`);
  }
}

export function publishCommand(): Command {
  const cmd = leaf('publish', {
    summary: 'validate and enqueue a user.identified event; prints its event id',
    usage:
      "--application <app_id> [--application-name <name>] --user-json '<json>' [--connection <con_id>]… | --file <event.json>",
    details:
      'The event is checked exactly as the dispatcher will check it (an error names the field), then goes to\nevery enabled webhook connection of the application, or only to the connections --connection names (or\nconnectionIds in the file).\nA delivery to a disabled connection is parked until it is enabled and recovered; the output says so.',
    examples: [
      'webhooks publish --application app_42 --application-name \'Acme Extension\' --user-json \'{"id":"usr_123","email":"ada@example.com"}\'',
      'webhooks publish --application app_42 --user-json \'{"id":"usr_123"}\' --connection con_A --connection con_B',
      'webhooks publish --file event.json',
    ],
  })
    .option('--application <app_id>', 'application the user identified with (app_…)')
    .option(
      '--application-name <name>',
      "its display name in the payload (default: the name the application's events last carried, from the deliveries the attempt log keeps; else the application id)",
    )
    .option(
      '--user-json <json>',
      'the user, e.g. \'{"id":"usr_123","email":"ada@example.com","name":"Ada Lovelace"}\'',
    )
    .option(
      '--file <path>',
      'a JSON file (or - for stdin) with { eventId?, user, application, occurredAt?, connectionIds? }; the same eventId again republishes that event',
    )
    .addOption(
      repeatableOption('--connection <con_id>', 'deliver to this connection only (con_…); repeat for more'),
    );
  return handle(cmd, async (ctx, { flags }) => {
    const input = publishInput({
      file: flags.string('file'),
      application: flags.string('application'),
      applicationName: flags.string('application-name'),
      userJson: flags.string('user-json'),
      connections: flags.strings('connection'),
    });
    const webhooks = await ctx.management();
    const named =
      flags.has('application') && !flags.has('application-name')
        ? await namedAfterLastEvent(ctx, webhooks, input)
        : input;
    const { eventId, messageId } = await webhooks.publisher.publishUserIdentified(named);
    const app = String((input.application as { id?: unknown }).id);
    const user = String((input.user as { id?: unknown }).id);
    ctx.printJson({
      eventId,
      messageId,
      applicationId: app,
      ...(input.connectionIds ? { connectionIds: input.connectionIds } : {}),
    });
    ctx.print(`Published event ${eventId} (user ${user}, application ${app}).`);
    if (ctx.globals.json) return;
    const to = await destinations(webhooks, app, input.connectionIds);
    if (to) printDestinations(ctx, app, to);
  });
}
