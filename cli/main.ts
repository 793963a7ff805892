/**
 * `webhooks`: the operator CLI, a thin layer over the management API (lambdas/management).
 * Output for people on stdout (or JSON with --json); errors as one line on stderr,
 * `webhooks: <reason>`, with a stack trace only when DEBUG=webhooks.
 */

import type { WebhookManagement } from '../lambdas/management';
import { Flags, parseCommandLine } from './args';
import { attemptCommands } from './commands/attempts';
import { connectionCommands } from './commands/connections';
import { dlqCommands } from './commands/dlq';
import { publishCommand } from './commands/publish';
import { CliError, DEFAULT_HINT, debugEnabled, EXIT, reasonFor, UsageError } from './errors';
import { openTarget } from './target';
import type { CommandSpec, Context, GlobalFlags } from './types';

export const COMMANDS: readonly CommandSpec[] = [
  ...connectionCommands,
  publishCommand,
  ...attemptCommands,
  ...dlqCommands,
];

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** How to reach the management API; a test can hand in its own. */
  open?: (globals: GlobalFlags) => Promise<WebhookManagement>;
}

/** `webhooks --local …`: the target flags of this invocation, for commands we suggest next. */
function suggestion(globals: GlobalFlags, command: string): string {
  const flags = [
    globals.local ? '--local' : '',
    globals.stack ? `--stack ${globals.stack}` : '',
    globals.region ? `--region ${globals.region}` : '',
    globals.profile ? `--profile ${globals.profile}` : '',
  ].filter(Boolean);
  return ['webhooks', ...flags, command].join(' ');
}

/** Runs one command line; resolves to the exit code. Never throws. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  let target: { local?: boolean; profile?: string } = { local: argv.includes('--local') };
  try {
    const parsed = parseCommandLine(argv, COMMANDS);
    if (parsed.kind === 'help') {
      io.stdout.write(`${parsed.text}\n`);
      return EXIT.ok;
    }
    const { command, globals } = parsed;
    target = globals;
    let management: Promise<WebhookManagement> | undefined;
    const ctx: Context = {
      globals,
      management: () => {
        management ??= (io.open ?? ((g) => openTarget(g, io.env)))(globals);
        return management;
      },
      print: (text = '') => {
        if (!globals.json) io.stdout.write(`${text}\n`);
      },
      printJson: (value) => {
        if (globals.json) io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      },
      stderr: io.stderr,
      suggest: (line) => suggestion(globals, line),
      now: () => new Date(),
    };
    const display = `webhooks ${command.name.join(' ')}`;
    try {
      await command.run(ctx, { flags: new Flags(parsed.flags, display), positionals: parsed.positionals });
    } catch (error) {
      // A flag value the command rejected: point at this command's help, not the general one.
      if (error instanceof UsageError && error.hint === DEFAULT_HINT)
        throw new UsageError(error.message, `${display} --help`);
      throw error;
    }
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`webhooks: ${reasonFor(error, target)}\n`);
    if (debugEnabled(io.env) && error instanceof Error) io.stderr.write(`${error.stack ?? ''}\n`);
    return error instanceof CliError ? error.exitCode : EXIT.failed;
  }
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** The `webhooks` executable (cli/webhooks.cjs calls this). */
export async function cli(): Promise<void> {
  // `webhooks attempts list | head`: a closed pipe is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
  });
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Pooled SDK and HTTP connections would keep the process alive for a while; the work is done.
  process.exit(code);
}
