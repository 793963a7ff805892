/** `webhooks publish`: validate and enqueue one `user.identified` event, as an upstream service would. */

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { WebhookManagement } from '../../lambdas/management';
import type { PublishInput } from '../../lambdas/publisher';
import { CliError, UsageError } from '../errors';
import { handle, leaf } from '../program';
import { parseJsonObject } from '../values';

const FILE_FIELDS = ['user', 'application', 'occurredAt', 'connectionIds'];
const HELP = 'webhooks publish --help';
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
  readFile?: (path: string) => string;
}): PublishInput {
  if (flags.file !== undefined) {
    if (
      flags.userJson !== undefined ||
      flags.application !== undefined ||
      flags.applicationName !== undefined
    ) {
      throw new UsageError(
        '--file holds the whole event: use it without --application, --application-name or --user-json',
        HELP,
      );
    }
    const event = parseJsonObject((flags.readFile ?? readFile)(flags.file), '--file');
    const unknown = Object.keys(event).filter((k) => !FILE_FIELDS.includes(k));
    if (unknown.length) {
      throw new UsageError(
        `--file: unknown field ${unknown.join(', ')} (expected ${FILE_FIELDS.join(', ')})`,
        HELP,
      );
    }
    return event as unknown as PublishInput;
  }
  if (flags.userJson === undefined)
    throw new UsageError('give --user-json with --application, or --file', HELP);
  if (flags.application === undefined)
    throw new UsageError('--application is required with --user-json', HELP);
  return {
    user: parseJsonObject(flags.userJson, '--user-json'),
    // The payload needs a name; the id is an honest stand-in when none is given.
    application: { id: flags.application, name: flags.applicationName ?? flags.application },
  };
}

/** The connections an event of this application fans out to; undefined if they cannot be read. */
async function enabledConnections(
  webhooks: WebhookManagement,
  applicationId: string,
): Promise<string[] | undefined> {
  try {
    const all = await webhooks.connections.list({ applicationId });
    return all.filter((c) => c.enabled).map((c) => c.connectionId);
  } catch {
    return undefined; // Only a hint: the event is published either way.
  }
}

export function publishCommand(): Command {
  const cmd = leaf('publish', {
    summary: 'validate and enqueue a user.identified event; prints its event id',
    usage: "--application <app_id> [--application-name <name>] --user-json '<json>' | --file <event.json>",
    details:
      'The event is checked exactly as the dispatcher will check it (an error names the field), then goes to\nevery enabled webhook connection of the application, or only to connectionIds when the file lists them.',
    examples: [
      'webhooks publish --application app_42 --application-name \'Acme Extension\' --user-json \'{"id":"usr_123","email":"ada@example.com"}\'',
      'webhooks publish --file event.json',
    ],
  })
    .option('--application <app_id>', 'application the user identified with (app_…)')
    .option('--application-name <name>', 'its display name in the payload (default: the application id)')
    .option(
      '--user-json <json>',
      'the user, e.g. \'{"id":"usr_123","email":"ada@example.com","name":"Ada Lovelace"}\'',
    )
    .option(
      '--file <path>',
      'a JSON file (or - for stdin) with { user, application, occurredAt?, connectionIds? }',
    );
  return handle(cmd, async (ctx, { flags }) => {
    const input = publishInput({
      file: flags.string('file'),
      application: flags.string('application'),
      applicationName: flags.string('application-name'),
      userJson: flags.string('user-json'),
    });
    const webhooks = await ctx.management();
    const { eventId, messageId } = await webhooks.publisher.publishUserIdentified(input);
    const app = String((input.application as { id?: unknown }).id);
    const user = String((input.user as { id?: unknown }).id);
    const targets = input.connectionIds ?? (await enabledConnections(webhooks, app));
    ctx.printJson({
      eventId,
      messageId,
      applicationId: app,
      ...(input.connectionIds ? { connectionIds: targets } : {}),
    });
    ctx.print(`Published event ${eventId} (user ${user}, application ${app}).`);
    if (targets === undefined) return;
    if (targets.length === 0) {
      ctx.print(`Note: ${app} has no enabled webhook connection, so this event goes nowhere. Add one with:
  ${ctx.suggest(`connections create --application ${app} --name … --url https://…`)}`);
      return;
    }
    ctx.print(`It goes to ${targets.join(', ')}. Follow it with:
  ${ctx.suggest(`attempts list --connection ${targets[0]} --since 5m`)}`);
  });
}
