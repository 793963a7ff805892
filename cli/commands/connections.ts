/** `webhooks connections …`: the "CRM Connections" actions of spec §1, and rotation. */

import type { Connection } from '../../lambdas/core/types';
import { CliError, UsageError } from '../errors';
import { keyValues, plural, table, truncate } from '../format';
import type { CommandSpec, Context, FlagSpec } from '../types';
import { collectHeaders } from '../values';
import { attemptJson, connectionBlock, connectionColumns, connectionJson, outcomeDetail } from '../views';

const ID = { min: 1, max: 1, name: '<connection-id>' };
/** What the operator should expect after a change (the dispatcher caches connections). */
const CACHE_NOTE = 'the dispatcher picks the change up within its connection cache time (30 s by default)';

const URL_FLAGS = {
  name: { type: 'string', value: 'name', description: 'friendly name shown to operators' },
  url: {
    type: 'string',
    value: 'https-url',
    description:
      'receiver URL; https only, public address, port 443 (local mode: loopback and its ports too)',
  },
  method: {
    type: 'string',
    value: 'POST|PUT|PATCH',
    description: 'HTTP method of deliveries (default POST)',
  },
  header: {
    type: 'string',
    multiple: true,
    value: 'Name: value',
    description: 'custom header sent with every delivery, e.g. Authorization; repeat for more',
  },
  'headers-json': {
    type: 'string',
    value: 'json',
    description: 'custom headers as a JSON object, e.g. \'{"Authorization":"Bearer …"}\'',
  },
} as const satisfies Record<string, FlagSpec>;

function printConnection(ctx: Context, title: string, connection: Connection): void {
  ctx.printJson(connectionJson(connection));
  ctx.print(`${title}\n\n${connectionBlock(connection, ctx.now())}`);
}

const create: CommandSpec = {
  name: ['connections', 'create'],
  summary: 'add a webhook connection and generate its signing secret',
  usage:
    "--application <app_id> --name <name> --url <https-url> [--method POST|PUT|PATCH] [--header 'Name: value']…",
  flags: {
    application: {
      type: 'string',
      value: 'app_id',
      description: 'application the webhook belongs to (app_…)',
    },
    ...URL_FLAGS,
  },
  details:
    'Every rule is checked before anything is saved; an error names the field at fault.\nThe secret is never printed here: read it with `webhooks connections show-secret <id>`.',
  examples: [
    "webhooks connections create --application app_42 --name 'Acme CRM' --url https://crm.example.com/hooks --header 'Authorization: Bearer s3cr3t'",
  ],
  async run(ctx, { flags }) {
    const webhooks = await ctx.management();
    const connection = await webhooks.connections.create({
      applicationId: flags.required('application', 'the app_… id the webhook belongs to'),
      name: flags.required('name', 'a friendly name for the webhook'),
      url: flags.required('url', 'the https:// URL deliveries go to'),
      method: flags.string('method')?.toUpperCase(),
      headers: collectHeaders(flags.strings('header'), flags.string('headers-json')),
    });
    printConnection(ctx, `Created connection ${connection.connectionId}.`, connection);
    ctx.print(`
Its signing secret is stored in Secrets Manager. Give it to the receiver; show it with:
  ${ctx.suggest(`connections show-secret ${connection.connectionId}`)}
Then check the endpoint with a signed test delivery:
  ${ctx.suggest(`connections send-test ${connection.connectionId}`)}`);
  },
};

const list: CommandSpec = {
  name: ['connections', 'list'],
  summary: 'list connections, of one application or of all',
  usage: '[--application <app_id>]',
  flags: {
    application: { type: 'string', value: 'app_id', description: 'only the connections of this application' },
  },
  examples: ['webhooks connections list --application app_42'],
  async run(ctx, { flags }) {
    const applicationId = flags.string('application');
    const connections = await (await ctx.management()).connections.list(
      applicationId ? { applicationId } : {},
    );
    ctx.printJson(connections.map(connectionJson));
    if (connections.length === 0) {
      ctx.print(`No connections${applicationId ? ` for ${applicationId}` : ''}. Add one with:
  ${ctx.suggest('connections create --application app_… --name … --url https://…')}`);
      return;
    }
    ctx.print(table(connections, connectionColumns(ctx.now())));
    ctx.print(
      `\n${plural(connections.length, 'connection')}. Details: ${ctx.suggest('connections get <id>')}`,
    );
  },
};

const get: CommandSpec = {
  name: ['connections', 'get'],
  summary: 'show one connection (never its secret or header values)',
  usage: '<connection-id>',
  positionals: ID,
  flags: {},
  examples: ['webhooks connections get con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  async run(ctx, { positionals }) {
    const connection = await (await ctx.management()).connections.get(positionals[0]!);
    printConnection(ctx, `Connection ${connection.connectionId}`, connection);
  },
};

const update: CommandSpec = {
  name: ['connections', 'update'],
  summary: 'change name, URL, method or custom headers',
  usage:
    "<connection-id> [--name <name>] [--url <https-url>] [--method POST|PUT|PATCH] [--header 'Name: value']…",
  positionals: ID,
  flags: URL_FLAGS,
  details:
    "--header / --headers-json replace the whole set of custom headers; --headers-json '{}' removes them all.\nEvery rule is checked again, as at create.",
  examples: [
    'webhooks connections update con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B --url https://crm.example.com/v2/hooks',
  ],
  async run(ctx, { flags, positionals }) {
    const headers = collectHeaders(flags.strings('header'), flags.string('headers-json'));
    const patch = {
      ...(flags.has('name') ? { name: flags.string('name') } : {}),
      ...(flags.has('url') ? { url: flags.string('url') } : {}),
      ...(flags.has('method') ? { method: flags.string('method')?.toUpperCase() } : {}),
      ...(headers ? { headers } : {}),
    };
    if (Object.keys(patch).length === 0) {
      throw new UsageError(
        'nothing to change: give --name, --url, --method, --header or --headers-json',
        'webhooks connections update --help',
      );
    }
    const connection = await (await ctx.management()).connections.update(positionals[0]!, patch);
    printConnection(ctx, `Updated connection ${connection.connectionId}; ${CACHE_NOTE}.`, connection);
  },
};

function toggle(enabled: boolean): CommandSpec {
  const verb = enabled ? 'enable' : 'disable';
  return {
    name: ['connections', verb],
    summary: enabled
      ? 'resume deliveries to a connection'
      : 'stop deliveries to a connection (keeps it and its secret)',
    usage: '<connection-id>',
    positionals: ID,
    flags: {},
    examples: [`webhooks connections ${verb} con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B`],
    async run(ctx, { positionals }) {
      const webhooks = await ctx.management();
      const current = await webhooks.connections.get(positionals[0]!);
      const id = current.connectionId;
      if (current.enabled === enabled) {
        ctx.printJson(connectionJson(current));
        ctx.print(`Connection ${id} (${current.name}) is already ${verb}d; nothing changed.`);
        return;
      }
      const connection = await webhooks.connections.setEnabled(id, enabled);
      ctx.printJson(connectionJson(connection));
      ctx.print(
        enabled
          ? `Enabled connection ${id} (${connection.name}); ${CACHE_NOTE}.`
          : `Disabled connection ${id} (${connection.name}); ${CACHE_NOTE}.\nNew events skip it; deliveries already queued for it go to the dead-letter queue as connection_disabled.`,
      );
    },
  };
}

const remove: CommandSpec = {
  name: ['connections', 'delete'],
  summary: 'delete a connection and its signing secret',
  usage: '<connection-id>',
  positionals: ID,
  flags: {},
  details: 'The secret is deleted at once, without a recovery window. This cannot be undone.',
  examples: ['webhooks connections delete con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  async run(ctx, { positionals }) {
    const old = await (await ctx.management()).connections.delete(positionals[0]!);
    ctx.printJson({ deleted: true, connection: connectionJson(old) });
    ctx.print(
      `Deleted connection ${old.connectionId} (${old.name}) and its signing secret.\nDeliveries still queued for it go to the dead-letter queue as connection_missing.`,
    );
  },
};

const showSecret: CommandSpec = {
  name: ['connections', 'show-secret'],
  summary: 'print the signing secret the receiver verifies with',
  usage: '<connection-id>',
  positionals: ID,
  flags: {},
  details: 'Prints only the secret, so it can be captured: SECRET=$(webhooks connections show-secret <id>).',
  examples: ['webhooks connections show-secret con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  async run(ctx, { positionals }) {
    const connectionId = positionals[0]!;
    const { secret, secretVersion } = await (await ctx.management()).connections.showSecret(connectionId);
    ctx.printJson({ connectionId, secret, secretVersion });
    ctx.print(secret);
  },
};

const rotateSecret: CommandSpec = {
  name: ['connections', 'rotate-secret'],
  summary: 'replace the signing secret with a new one and print it',
  usage: '<connection-id>',
  positionals: ID,
  flags: {},
  details:
    'Deliveries are signed with the new secret once the dispatcher sees the change (about 30 s).\nUntil then, the receiver should accept both: verifyWebhook({ rawBody, headers, secret: [newSecret, oldSecret] }).',
  examples: ['webhooks connections rotate-secret con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  async run(ctx, { positionals }) {
    const connectionId = positionals[0]!;
    const rotated = await (await ctx.management()).connections.rotateSecret(connectionId);
    ctx.printJson({ connectionId, ...rotated });
    ctx.print(`New signing secret of ${connectionId}:

  ${rotated.secret}

Deliveries switch to it within about 30 s (the dispatcher's connection cache time). For that
long, have the receiver accept both the old and the new secret:
  verifyWebhook({ rawBody, headers, secret: [newSecret, oldSecret] })`);
  },
};

const sendTest: CommandSpec = {
  name: ['connections', 'send-test'],
  summary: 'send one signed test delivery now and show the response',
  usage: '<connection-id>',
  positionals: ID,
  flags: {},
  details:
    'A sample user (metadata.test: true), signed with the current secret; logged in the attempt log with\ntest: true and never retried. Exits with status 1 when the receiver did not accept it.',
  examples: ['webhooks connections send-test con_01JD8X3V9W2T6Q4R5S7Y8Z0A1B'],
  async run(ctx, { positionals }) {
    const connectionId = positionals[0]!;
    const record = await (await ctx.management()).sendTest(connectionId);
    ctx.printJson(attemptJson(record));
    const delivered = record.outcome === 'delivered';
    ctx.print(`Test delivery to ${connectionId}: ${delivered ? 'delivered' : 'FAILED'}

${keyValues([
  ['target', `${record.method} ${record.target}`],
  ['outcome', delivered ? record.outcome : `${record.outcome}: ${outcomeDetail(record)}`],
  ['status', record.statusCode],
  ['latency', `${record.durationMs} ms`],
  ['response', truncate(record.responseSnippet, 500) ?? '(empty)'],
  ['error', record.error],
  ['delivery', record.deliveryId],
])}`);
    if (!delivered) throw new CliError(`test delivery to ${connectionId} failed: ${outcomeDetail(record)}`);
  },
};

export const connectionCommands: CommandSpec[] = [
  create,
  list,
  get,
  update,
  toggle(true),
  toggle(false),
  remove,
  showSecret,
  rotateSecret,
  sendTest,
];
