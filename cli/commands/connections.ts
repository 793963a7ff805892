/** `webhooks connections …`: the "CRM Connections" actions of docs/protocol.md §1, and rotation. */

import { type Command, Option } from 'commander';
import type { Connection } from '../../lambdas/core/types';
import type { WebhookManagement } from '../../lambdas/management';
import { confirm } from '../confirm';
import type { Context } from '../context';
import { CliError, UsageError } from '../errors';
import { keyValues, plural, table, truncate, visible } from '../format';
import { group, handle, leaf, repeatableOption } from '../program';
import { collectHeaders, parseRateLimit } from '../values';
import { connectionBlock, connectionColumns, connectionJson, failureAdvice, outcomeDetail } from '../views';
import { cacheTime } from './cache-time';
import { parked, recover } from './parked';
import { rotateSecret, showSecret } from './secrets';
import { shards } from './shards';

const ID = '<connection-id>';

/** What the operator should expect after a change (the dispatcher caches connections). */
function cacheNote(ctx: Context, webhooks: WebhookManagement): string {
  return `the dispatcher picks the change up within its connection cache time (${cacheTime(ctx, webhooks)})`;
}

/** --name, --url, --method, --header, --headers-json: shared by create and update. */
function urlOptions(): Option[] {
  return [
    new Option('--name <name>', 'friendly name shown to operators'),
    new Option(
      '--url <https-url>',
      'receiver URL; https only, public address, port 443 (local mode: any loopback port too)',
    ),
    new Option('--method <POST|PUT|PATCH>', 'HTTP method of deliveries (default POST)'),
    repeatableOption(
      '--header <name:value>',
      'custom header sent with every delivery, e.g. Authorization; repeat for more',
    ),
    new Option(
      '--headers-json <json>',
      'custom headers as a JSON object, e.g. \'{"Authorization":"Bearer …"}\'',
    ),
    new Option(
      '--rate-limit <N|none>',
      'deliveries per second this receiver gets at most (1 to 10000), across every dispatcher; none: no limit of its own (the stack default, if any)',
    ),
    new Option(
      '--recovery-probes <on|off>',
      'off: never check the endpoint automatically while deliveries are parked (recover by hand); on (default): checked on the stack schedule',
    ).choices(['on', 'off']),
  ];
}

function withOptions(cmd: Command, options: Option[]): Command {
  for (const option of options) cmd.addOption(option);
  return cmd;
}

function printConnection(
  ctx: Context,
  webhooks: WebhookManagement,
  title: string,
  connection: Connection,
): void {
  ctx.printJson(connectionJson(connection));
  const target = { local: ctx.globals.local, defaultRateLimit: webhooks.defaultRateLimit };
  ctx.print(`${title}\n\n${connectionBlock(connection, ctx.now(), target)}`);
}

function create(): Command {
  const cmd = leaf('create', {
    summary: 'add a webhook connection and generate its signing secret',
    usage:
      "--application <app_id> --name <name> --url <https-url> [--method POST|PUT|PATCH] [--header 'Name: value']… [--rate-limit N]",
    details:
      'Every rule is checked before anything is saved; an error names the field at fault.\nThe secret is never printed here: read it with `webhooks connections show-secret <id>`.',
    examples: [
      "webhooks connections create --application app_42 --name 'Acme CRM' --url https://crm.example.com/hooks --header 'Authorization: Bearer s3cr3t'",
    ],
  }).option('--application <app_id>', 'application the webhook belongs to (app_…)');
  return handle(withOptions(cmd, urlOptions()), async (ctx, { flags }) => {
    const webhooks = await ctx.management();
    const connection = await webhooks.connections.create({
      applicationId: flags.required('application', 'the app_… id the webhook belongs to'),
      name: flags.required('name', 'a friendly name for the webhook'),
      url: flags.required('url', 'the https:// URL deliveries go to'),
      method: flags.string('method')?.toUpperCase(),
      headers: collectHeaders(flags.strings('header'), flags.string('headers-json')),
      ...(flags.has('rate-limit') ? { rateLimit: parseRateLimit(flags.string('rate-limit') ?? '') } : {}),
      ...(flags.has('recovery-probes') ? { recoveryProbes: flags.string('recovery-probes') === 'on' } : {}),
    });
    printConnection(ctx, webhooks, `Created connection ${connection.connectionId}.`, connection);
    ctx.print(`
Its signing secret is ${secretKeptIn(connection)}. Give it to the receiver; show it with:
  ${ctx.suggest(`connections show-secret ${connection.connectionId}`)}
Then check the endpoint with a signed test delivery:
  ${ctx.suggest(`connections send-test ${connection.connectionId}`)}`);
  });
}

function list(): Command {
  const cmd = leaf('list', {
    summary: 'list connections, of one application or of all',
    usage: '[--application <app_id>]',
    examples: ['webhooks connections list --application app_42'],
  }).option('--application <app_id>', 'only the connections of this application');
  return handle(cmd, async (ctx, { flags }) => {
    const applicationId = flags.string('application');
    const connections = await (await ctx.management()).connections.list(
      applicationId ? { applicationId } : {},
    );
    ctx.printJson(connections.map(connectionJson));
    if (connections.length === 0) {
      ctx.print(`No connections${applicationId ? ` for ${applicationId}` : ''}. Add one with:
  ${ctx.suggest(`connections create --application ${applicationId ?? 'app_…'} --name … --url https://…`)}`);
      return;
    }
    ctx.print(table(connections, connectionColumns(ctx.now())));
    ctx.print(
      `\n${plural(connections.length, 'connection')}. Details: ${ctx.suggest('connections get <id>')}`,
    );
  });
}

function get(): Command {
  const cmd = leaf('get', {
    summary: 'show one connection (never its secret or header values)',
    usage: ID,
    examples: ['webhooks connections get con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  }).argument(ID);
  return handle(cmd, async (ctx, { positionals }) => {
    const webhooks = await ctx.management();
    const connection = await webhooks.connections.get(positionals[0]!);
    printConnection(ctx, webhooks, `Connection ${connection.connectionId}`, connection);
    if (connection.health && connection.health.state !== 'healthy') {
      ctx.print(`
Its failed deliveries are parked. List them:  ${ctx.suggest(`connections parked ${connection.connectionId}`)}
Once the endpoint works again${connection.health.state === 'disabled' ? `, enable it (${ctx.suggest(`connections enable ${connection.connectionId}`)}) and` : ''} recover them:
  ${ctx.suggest(`connections recover ${connection.connectionId} --since 24h`)}`);
    }
  });
}

function update(): Command {
  const cmd = leaf('update', {
    summary: 'change name, URL, method, custom headers or rate limit',
    usage:
      "<connection-id> [--name <name>] [--url <https-url>] [--method POST|PUT|PATCH] [--header 'Name: value']… [--rate-limit N|none]",
    details:
      "--header / --headers-json replace the whole set of custom headers; --headers-json '{}' removes them all.\nEvery rule is checked again, as at create.",
    examples: [
      'webhooks connections update con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --url https://crm.example.com/v2/hooks',
      'webhooks connections update con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --rate-limit 50',
    ],
  }).argument(ID);
  return handle(withOptions(cmd, urlOptions()), async (ctx, { flags, positionals }) => {
    const headers = collectHeaders(flags.strings('header'), flags.string('headers-json'));
    const patch = {
      ...(flags.has('name') ? { name: flags.string('name') } : {}),
      ...(flags.has('url') ? { url: flags.string('url') } : {}),
      ...(flags.has('method') ? { method: flags.string('method')?.toUpperCase() } : {}),
      ...(headers ? { headers } : {}),
      ...(flags.has('rate-limit') ? { rateLimit: parseRateLimit(flags.string('rate-limit') ?? '') } : {}),
      ...(flags.has('recovery-probes') ? { recoveryProbes: flags.string('recovery-probes') === 'on' } : {}),
    };
    if (Object.keys(patch).length === 0) {
      throw new UsageError(
        'nothing to change: give --name, --url, --method, --header, --headers-json, --rate-limit or --recovery-probes',
      );
    }
    const webhooks = await ctx.management();
    const connection = await webhooks.connections.update(positionals[0]!, patch);
    printConnection(
      ctx,
      webhooks,
      `Updated connection ${connection.connectionId}; ${cacheNote(ctx, webhooks)}.`,
      connection,
    );
  });
}

function toggle(enabled: boolean): Command {
  const verb = enabled ? 'enable' : 'disable';
  const cmd = leaf(verb, {
    summary: enabled
      ? 'resume deliveries to a connection'
      : 'stop deliveries to a connection (keeps it and its secret)',
    usage: ID,
    examples: [`webhooks connections ${verb} con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B`],
  }).argument(ID);
  return handle(cmd, async (ctx, { positionals }) => {
    const webhooks = await ctx.management();
    const current = await webhooks.connections.get(positionals[0]!);
    const id = current.connectionId;
    if (current.enabled === enabled) {
      ctx.printJson(connectionJson(current));
      ctx.print(`Connection ${id} (${visible(current.name)}) is already ${verb}d; nothing changed.`);
      return;
    }
    const connection = await webhooks.connections.setEnabled(id, enabled);
    ctx.printJson(connectionJson(connection));
    if (!enabled) {
      ctx.print(
        `Disabled connection ${id} (${visible(connection.name)}); ${cacheNote(ctx, webhooks)}.\nNew events of its application skip it; an event that names it, and deliveries already queued for it, are parked as connection_disabled.`,
      );
      return;
    }
    ctx.print(
      `Enabled connection ${id} (${visible(connection.name)}); its health is reset to healthy; ${cacheNote(ctx, webhooks)}.`,
    );
    const parked = await webhooks.listParked(id, { limit: 1 });
    if (parked.data.length > 0) {
      ctx.print(`It has parked deliveries (not sent while it failed or was disabled). Send them again, oldest first:
  ${ctx.suggest(`connections recover ${id} --since 24h`)}   (or without --since: all of them)`);
    }
  });
}

function remove(): Command {
  const cmd = leaf('delete', {
    summary: 'delete a connection and its signing secret (asks first; --yes to skip)',
    usage: '<connection-id> [--yes]',
    details:
      'The secret is deleted at once, without a recovery window. This cannot be undone.\nAsks for confirmation on a terminal; in scripts and CI (no terminal) give --yes.',
    examples: [
      'webhooks connections delete con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B',
      'webhooks connections delete con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --yes',
    ],
  })
    .argument(ID)
    .option('-y, --yes', 'delete without asking');
  return handle(cmd, async (ctx, { flags, positionals }) => {
    const webhooks = await ctx.management();
    const current = await webhooks.connections.get(positionals[0]!);
    if (!flags.bool('yes')) await confirmDelete(ctx, current);
    const old = await webhooks.connections.delete(current.connectionId);
    ctx.printJson({ deleted: true, connection: connectionJson(old) });
    ctx.print(
      `Deleted connection ${old.connectionId} (${visible(old.name)}) and its signing secret.\nDeliveries still queued for it go to the dead-letter queue as connection_missing.`,
    );
  });
}

/** Asks on the terminal; without one (CI, a pipe) refuses, since nobody can answer. */
function confirmDelete(ctx: Context, connection: Connection): Promise<void> {
  return confirm(
    ctx,
    `Delete connection ${connection.connectionId} (${visible(connection.name)}) and its signing secret? This cannot be undone.`,
    {
      refusal: `not deleting ${connection.connectionId}`,
      retry: ctx.suggest(`connections delete ${connection.connectionId} --yes`),
      declined: `not deleted: ${connection.connectionId} is unchanged`,
    },
  );
}

function sendTest(): Command {
  const cmd = leaf('send-test', {
    summary: 'send one signed test delivery now and show the response',
    usage: ID,
    details:
      'A sample user (metadata.test: true), signed with the current secret; logged in the attempt log with\ntest: true and never retried. Exits with status 1 when the receiver did not accept it.',
    examples: ['webhooks connections send-test con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  }).argument(ID);
  return handle(cmd, async (ctx, { positionals }) => {
    const connectionId = positionals[0]!;
    const record = await (await ctx.management()).sendTest(connectionId);
    ctx.printJson(record);
    const delivered = record.outcome === 'delivered';
    const detail = outcomeDetail(record);
    ctx.print(`Test delivery to ${connectionId}: ${delivered ? 'delivered' : 'FAILED'}

${keyValues([
  ['target', `${record.method} ${record.target}`],
  ['outcome', delivered ? record.outcome : `${record.outcome}: ${detail}`],
  ['status', record.statusCode],
  ['latency', `${record.durationMs} ms`],
  ['response', truncate(record.responseSnippet, 500) ?? '(empty)'],
  // Said once: the outcome line already quotes the error when there is one.
  ['error', record.error && !detail.includes(record.error) ? record.error : undefined],
  ['what to do', failureAdvice(record, { local: ctx.globals.local, suggest: ctx.suggest })],
  ['delivery', record.deliveryId],
])}`);
    if (!delivered) throw new CliError(`test delivery to ${connectionId} failed: ${detail}`);
  });
}

export function connectionsCommand(): Command {
  const cmd = group(
    'connections',
    'add, change, test and remove webhook connections and their signing secrets',
  );
  for (const sub of [
    create(),
    list(),
    get(),
    update(),
    toggle(true),
    toggle(false),
    parked(),
    recover(),
    remove(),
    showSecret(),
    rotateSecret(),
    sendTest(),
    shards(),
  ])
    cmd.addCommand(sub);
  return cmd;
}

/** Where the stack keeps a new connection's secret: its item holds a ciphertext with `secretStore: 'kms'`. */
function secretKeptIn(connection: object): string {
  return 'secretCiphertext' in connection
    ? "sealed with the stack's KMS key in the connection item"
    : 'stored in Secrets Manager';
}
