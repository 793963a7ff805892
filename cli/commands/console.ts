/** `webhooks console`: a link that opens the web console on one application's connections. */

import type { Command } from 'commander';
import { DEFAULT_SESSION_TTL_SECONDS, MAX_SESSION_TTL_SECONDS } from '../../lambdas/management';
import { UsageError } from '../errors';
import { handle, leaf } from '../program';

const TTL = /^(\d+)\s*([smh])?$/;
const UNIT_S = { s: 1, m: 60, h: 3_600 } as const;
const MIN_TTL_S = 60;

/** `--ttl`: `90m`, `1h`, `24h`, `3600s` or plain seconds; 1 minute to 24 hours. */
export function parseTtl(raw: string): number {
  const match = TTL.exec(raw.trim().toLowerCase());
  const seconds = match ? Number(match[1]) * UNIT_S[(match[2] ?? 's') as keyof typeof UNIT_S] : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds < MIN_TTL_S || seconds > MAX_SESSION_TTL_SECONDS) {
    throw new UsageError(
      `--ttl: expected a lifetime from 1m to 24h such as 30m, 1h or 8h; got ${JSON.stringify(raw)}`,
    );
  }
  return seconds;
}

function describeTtl(seconds: number): string {
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export function consoleCommand(): Command {
  const cmd = leaf('console', {
    summary: 'print a web console link for one application (a session of 1 h by default, at most 24 h)',
    usage: '--application <app_id> [--ttl 1h]',
    details:
      "The link opens the console on that application's connections only, until it expires. Anyone holding\nit can add, change and delete those connections and read their secrets: hand it only to a signed-in\nuser of that application. A product's backend mints the same links with createConsoleSession().",
    examples: [
      'webhooks console --application app_acme',
      'webhooks --local console --application app_demo --ttl 8h',
      'webhooks console --application app_acme --ttl 30m --json',
    ],
  })
    .option('--application <app_id>', 'the application the session may manage (app_…)')
    .option(
      '--ttl <duration>',
      `how long the link works, 1m to 24h (default ${DEFAULT_SESSION_TTL_SECONDS / 3_600}h)`,
    );
  return handle(cmd, async (ctx, { flags }) => {
    const applicationId = flags.required('application', 'the app_… id the console opens');
    if (!/^app_[A-Za-z0-9_-]{1,128}$/.test(applicationId)) {
      throw new UsageError(`--application: "${applicationId}" is not an application id (app_…)`);
    }
    const ttl = flags.string('ttl');
    const ttlSeconds = ttl === undefined ? DEFAULT_SESSION_TTL_SECONDS : parseTtl(ttl);
    const session = await (await ctx.management()).createConsoleSession({ applicationId, ttlSeconds });
    ctx.printJson(session);
    ctx.print(
      `Console link for ${applicationId}, valid ${describeTtl(ttlSeconds)} (until ${session.expiresAt}):`,
    );
    ctx.print(`  ${session.consoleUrl}`);
    ctx.print(
      '\nAnyone with this link can manage these connections until it expires: share it like a password.',
    );
  });
}
