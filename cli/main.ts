/**
 * `webhooks`: the operator CLI, a thin layer over the management API (lambdas/management).
 * Output for people on stdout (or JSON with --json); errors as one line on stderr,
 * `webhooks: <reason>` (with --json, one JSON object), with a stack trace only when DEBUG=webhooks.
 *
 * A command group lives in its own file under cli/commands and is listed in COMMANDS.
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { WebhookManagement } from '../lambdas/management';
import { attemptsCommand } from './commands/attempts';
import { certsCommand } from './commands/certs';
import { connectionsCommand } from './commands/connections';
import { consoleCommand } from './commands/console';
import { dlqCommand } from './commands/dlq';
import { publishCommand } from './commands/publish';
import { statsCommand } from './commands/stats';
import type { Context, GlobalFlags } from './context';
import { CliError, debugEnabled, EXIT, reasonFor, UsageError } from './errors';
import { safeJson, visible } from './format';
import { createProgram, HelpShown } from './program';
import { suggestion, type TargetFlags } from './suggest';
import { openTarget } from './target';

/** Every command group, in the order help lists them; each builds a fresh commander Command. */
export const COMMANDS: ReadonlyArray<() => Command> = [
  connectionsCommand,
  publishCommand,
  attemptsCommand,
  dlqCommand,
  statsCommand,
  consoleCommand,
  certsCommand,
];

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Where confirmations are read from; default: process.stdin. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Aborted on Ctrl-C: ends a live view (`attempts tail`). */
  signal?: AbortSignal;
  /** How to reach the management API; a test can hand in its own. */
  open?: (globals: GlobalFlags) => Promise<WebhookManagement>;
}

/** The package's version, from the package.json above this file (sources or dist/). */
export function packageVersion(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'serverless-webhooks' && pkg.version) return pkg.version;
    } catch {
      // not here; look one level up
    }
  }
  return 'unknown';
}

/** Whether a live view is running: Ctrl-C then ends it cleanly instead of killing the process. */
let watching = false;

function sleeper(signal: AbortSignal | undefined): (ms: number) => Promise<boolean> {
  return (ms) =>
    new Promise((resolve) => {
      watching = true;
      if (signal?.aborted) return resolve(false);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

/** Runs one command line; resolves to the exit code. Never throws. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const json = argv.includes('--json');
  let target: TargetFlags = { local: argv.includes('--local') };
  const session = (globals: GlobalFlags): Context => {
    target = globals;
    let management: Promise<WebhookManagement> | undefined;
    return {
      globals,
      management: () => {
        management ??= (io.open ?? ((g) => openTarget(g, io.env)))(globals);
        return management;
      },
      // Last line of defence: no control character reaches the terminal but the line breaks
      // we write (text from outside is escaped where it is placed, newlines included).
      print: (text = '') => {
        if (!globals.json) io.stdout.write(`${visible(text, { keepNewlines: true })}\n`);
      },
      printJson: (value) => {
        if (globals.json) io.stdout.write(`${safeJson(value, 2)}\n`);
      },
      printJsonLine: (value) => {
        if (globals.json) io.stdout.write(`${safeJson(value)}\n`);
      },
      stderr: io.stderr,
      stdin: io.stdin ?? process.stdin,
      suggest: (line) => suggestion(globals, line),
      now: () => new Date(),
      sleep: sleeper(io.signal),
    };
  };
  try {
    const program = createProgram({
      version: packageVersion(),
      commands: COMMANDS.map((make) => make()),
      session,
      write: (text) => io.stdout.write(text),
      argv,
    });
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof HelpShown) return EXIT.ok;
    const exitCode = error instanceof CliError ? error.exitCode : EXIT.failed;
    const reason = reasonFor(error, target);
    if (json) {
      io.stderr.write(`${safeJson({ error: errorJson(error, reason, exitCode) })}\n`);
    } else {
      io.stderr.write(`webhooks: ${visible(reason)}\n`);
    }
    if (debugEnabled(io.env) && error instanceof Error) io.stderr.write(`${error.stack ?? ''}\n`);
    return exitCode;
  }
}

/** An error for `--json` users: the same reason, with the hint and the field apart. */
function errorJson(error: unknown, reason: string, exitCode: number): Record<string, unknown> {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: string; field?: unknown };
  if (error instanceof UsageError) {
    const hint = `; see: ${error.hint}`;
    return {
      type: error.name,
      message: reason.endsWith(hint) ? reason.slice(0, -hint.length) : reason,
      hint: error.hint,
      exitCode,
    };
  }
  return {
    type: e.name ?? 'Error',
    message: reason,
    ...(typeof e.field === 'string' ? { field: e.field } : {}),
    exitCode,
  };
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
  const interrupted = new AbortController();
  process.on('SIGINT', () => {
    if (watching && !interrupted.signal.aborted) interrupted.abort();
    else process.exit(130);
  });
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupted.signal,
  });
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Pooled SDK and HTTP connections would keep the process alive for a while; the work is done.
  process.exit(code);
}
