/**
 * The command tree on `commander` (docs/design.md §7 "Libraries"): how a command file
 * declares a command (`leaf`, `group`, `handle`), the help layout every command shares, and the
 * one place that turns commander's parse errors into the CLI's one-line usage errors.
 */

import { Command, type CommanderError, type Help, Option } from 'commander';
import { InputError } from '../lambdas/core/errors';
import { type CommandInput, type Context, DEFAULT_STACK, Flags, type GlobalFlags } from './context';
import { DEFAULT_HINT, UsageError } from './errors';

export interface CommandDoc {
  /** One line, lower case, no final period. */
  summary: string;
  /** What follows `webhooks <name>` in the usage line. */
  usage?: string;
  /** Longer explanation shown under the usage line. */
  details?: string;
  examples: string[];
}

const DOCS = new WeakMap<Command, CommandDoc>();
/** How a root program builds a command's Context (set by createProgram). */
const SESSIONS = new WeakMap<Command, (globals: GlobalFlags) => Context>();
/** Flags shown with `…` in help: they may be repeated. */
const REPEATABLE = new WeakSet<Option>();

const EXIT_CODES = 'Exit status: 0 done, 1 the operation failed, 2 wrong command line.';

/**
 * What a hint tells the user to run for a command's help: `npx webhooks connections --help`
 * (the package is installed in a project or cloned, so `npx` is what finds it).
 */
export function helpHint(cmd: Command): string {
  return `npx ${fullName(cmd)} --help`;
}

/** `webhooks connections create` for a command of the tree. */
export function fullName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** A group of subcommands (`connections`). */
export function group(name: string, summary: string): Command {
  const cmd = new Command(name).summary(summary);
  DOCS.set(cmd, { summary, examples: [] });
  return cmd;
}

/** A command that does something (`connections create`, `publish`). */
export function leaf(name: string, doc: CommandDoc): Command {
  const cmd = new Command(name).summary(doc.summary);
  DOCS.set(cmd, doc);
  return cmd;
}

/** `--header <name:value>`, repeatable: collected in order into an array. */
export function repeatableOption(flags: string, description: string): Option {
  const option = new Option(flags, description).argParser((value: string, previous: unknown) => [
    ...(Array.isArray(previous) ? previous : []),
    value,
  ]);
  REPEATABLE.add(option);
  return option;
}

/** Sets what a command runs; it gets the Context and its flags and positionals. */
export function handle(cmd: Command, run: (ctx: Context, input: CommandInput) => Promise<void>): Command {
  return cmd.action(async (...args: unknown[]) => {
    const self = args[args.length - 1] as Command;
    const globals = globalsOf(self);
    const positionals = (args.slice(0, -2) as Array<string | string[] | undefined>).flatMap((a) =>
      a === undefined ? [] : a,
    );
    const session = SESSIONS.get(rootOf(self));
    if (!session) throw new Error(`${fullName(self)} is not part of a program made by createProgram`);
    try {
      await run(session(globals), { flags: new Flags(self.opts(), fullName(self)), positionals });
    } catch (error) {
      // A flag value the command rejected: point at this command's help, not the general one.
      if (error instanceof UsageError && error.hint === DEFAULT_HINT)
        throw new UsageError(error.message, helpHint(self));
      throw error;
    }
  });
}

function globalsOf(cmd: Command): GlobalFlags {
  const values = cmd.optsWithGlobals() as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const globals: GlobalFlags = {
    local: values.local === true,
    stack: text(values.stack),
    region: text(values.region),
    profile: text(values.profile),
    json: values.json === true,
  };
  const help = helpHint(cmd);
  if (globals.local) {
    const aws = (['stack', 'region', 'profile'] as const).filter((k) => globals[k] !== undefined);
    if (aws.length) {
      throw new UsageError(
        `--local cannot be combined with ${aws.map((k) => `--${k}`).join(', ')} (those pick a deployed stack)`,
        help,
      );
    }
  }
  for (const key of ['stack', 'region', 'profile'] as const) {
    if (globals[key] !== undefined && !globals[key]!.trim())
      throw new UsageError(`--${key} needs a value`, help);
  }
  return globals;
}

// ---------------------------------------------------------------- help

function optionLabel(option: Option, helper: Help): string {
  return `${helper.optionTerm(option)}${REPEATABLE.has(option) ? '…' : ''}`;
}

const HELP_FLAG = '-h, --help';
const HELP_TEXT = 'show help for the command';

function optionLines(options: readonly Option[], helper: Help, width: number, withHelp = false): string[] {
  const rows = options.map((o) => [optionLabel(o, helper), o.description] as const);
  if (withHelp) rows.push([HELP_FLAG, HELP_TEXT]);
  return rows.map(([label, description]) => `  ${label.padEnd(width)}   ${description}`);
}

function labelWidth(options: readonly Option[], helper: Help): number {
  return Math.max(0, ...options.map((o) => optionLabel(o, helper).length));
}

/** `connections get <connection-id>` for the command lists. */
function listedName(cmd: Command, from: Command): string {
  const path: string[] = [];
  for (let c: Command | null = cmd; c && c !== from; c = c.parent) path.unshift(c.name());
  const args = cmd.registeredArguments.filter((a) => a.required).map((a) => `<${a.name()}>`);
  return [...path, ...args].join(' ');
}

function leaves(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => (c.commands.length ? leaves(c) : [c]));
}

function formatHelp(cmd: Command, helper: Help): string {
  const root = rootOf(cmd);
  const globals = root.options.filter((o) => !o.hidden);
  const name = fullName(cmd);
  const doc = DOCS.get(cmd);
  if (cmd.commands.length) {
    const listed = leaves(cmd);
    const from = cmd === root ? root : cmd.parent!;
    const names = listed.map((c) => listedName(c, from));
    const width = Math.max(...names.map((n) => n.length));
    const usage = cmd === root ? `${name} <command> [flags]` : `${name} <subcommand> [flags]`;
    return [
      cmd === root
        ? `${name}: manage webhook connections, publish events, read the attempt log and the dead-letter queue`
        : `${name}: ${doc?.summary ?? cmd.summary()}`,
      '',
      'Usage',
      `  ${usage}`,
      '',
      'Commands',
      ...listed.map((c, i) => `  ${names[i]!.padEnd(width)}   ${c.summary()}`),
      '',
      'Global flags',
      ...optionLines(globals, helper, labelWidth(globals, helper), true),
      '',
      `Run \`npx ${usage.replace(' [flags]', '')} --help\` for its flags and an example.`,
      'Without --local the CLI uses the default AWS credential chain and the stack named by --stack.',
      EXIT_CODES,
      '',
    ].join('\n');
  }
  const own = cmd.options.filter((o) => !o.hidden);
  const width = Math.max(labelWidth(own, helper), labelWidth(globals, helper));
  const lines = [`${name}: ${cmd.summary()}`, '', 'Usage', `  ${name} ${doc?.usage ?? ''}`.trimEnd()];
  if (doc?.details) lines.push('', ...doc.details.split('\n').map((l) => (l ? `  ${l}` : '')));
  if (own.length) lines.push('', 'Flags', ...optionLines(own, helper, width));
  lines.push('', 'Global flags', ...optionLines(globals, helper, width, true));
  const examples = doc?.examples ?? [];
  if (examples.length) {
    lines.push('', examples.length > 1 ? 'Examples' : 'Example', ...examples.map((e) => `  $ ${e}`));
  }
  lines.push('', EXIT_CODES, '');
  return lines.join('\n');
}

// ---------------------------------------------------------------- errors

/** The valid names at this level: subcommands of a group, or the top-level commands. */
function subcommandNames(cmd: Command): string {
  return cmd.commands.map((c) => c.name()).join(', ');
}

/** commander's suggestion, `(Did you mean --name?)`, in the CLI's words. */
function didYouMean(message: string): string {
  const match = /Did you mean (?:one of )?([^?]+)\?/.exec(message);
  return match ? ` (did you mean ${match[1]}?)` : '';
}

/** Turns a commander parse error of `cmd` into a UsageError saying what is wrong and where help is. */
function usageErrorFrom(error: CommanderError, cmd: Command): UsageError {
  const name = fullName(cmd);
  const hint = helpHint(cmd);
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'commander.unknownCommand': {
      const word = cmd === rootOf(cmd) ? quoted : `${cmd.name()} ${quoted}`;
      const what = cmd === rootOf(cmd) ? 'commands' : 'subcommands';
      return new UsageError(
        `unknown command "${word}"${didYouMean(error.message)}; ${what}: ${subcommandNames(cmd)}`,
        hint,
      );
    }
    case 'commander.unknownOption': {
      const [flag, value] = quoted.split('=');
      const known = [...cmd.options, ...rootOf(cmd).options].find((o) => o.long === flag);
      if (known && value !== undefined && !known.required && !known.optional)
        return new UsageError(`${flag} takes no value`, hint);
      return new UsageError(`unknown flag ${quoted} for "${name}"${didYouMean(error.message)}`, hint);
    }
    case 'commander.optionMissingArgument': {
      const flag = quoted.split(/[ ,]/).find((part) => part.startsWith('--')) ?? quoted;
      return new UsageError(`${flag} needs a value`, hint);
    }
    case 'commander.missingArgument':
      return new UsageError(`missing <${quoted}>`, hint);
    case 'commander.excessArguments': {
      const declared = cmd.registeredArguments;
      const extra = cmd.args[declared.length] ?? '';
      return new UsageError(
        declared.length === 0
          ? `unexpected argument "${extra}"`
          : `unexpected argument "${extra}" after <${declared[declared.length - 1]!.name()}>`,
        hint,
      );
    }
    case 'commander.help':
      // A group (or the program) without its subcommand.
      if (cmd === rootOf(cmd)) return new UsageError('which command? e.g. webhooks connections list');
      return new UsageError(`"${cmd.name()}" needs a subcommand: ${subcommandNames(cmd)}`, hint);
    default:
      return new UsageError(error.message.replace(/^error: /, ''), hint);
  }
}

/** What parsing ended with when it did not run a command. */
export class HelpShown extends InputError {
  constructor() {
    super('help_shown', 'help shown');
  }
}

function walk(cmd: Command, visit: (c: Command) => void): void {
  visit(cmd);
  for (const c of cmd.commands) walk(c, visit);
}

export interface ProgramOptions {
  version: string;
  commands: readonly Command[];
  /** Builds the Context of a run from its global flags. */
  session: (globals: GlobalFlags) => Context;
  /** Where help and --version go. */
  write: (text: string) => void;
  argv: readonly string[];
}

/**
 * The `webhooks` program: the global flags, the commands, the shared help layout and the error
 * translation. A fresh one per run (commander keeps parsed values on the objects).
 */
export function createProgram(options: ProgramOptions): Command {
  const program = new Command('webhooks')
    .option('--local', 'use the pipeline `npm start` runs on this machine (reads its state file)')
    .option('--stack <name>', `deployed stack whose outputs name the resources (default: ${DEFAULT_STACK})`)
    .option('--region <region>', 'AWS region of the stack (default: AWS_REGION or your profile)')
    .option('--profile <name>', 'AWS profile for credentials (default: the default credential chain)')
    .option('--json', 'machine-readable JSON on stdout (errors as a JSON object on stderr)')
    .helpOption(HELP_FLAG, HELP_TEXT)
    .version(options.version, '-V, --version', 'print the version and exit')
    .showSuggestionAfterError(true)
    .configureHelp({ formatHelp })
    .configureOutput({ writeOut: options.write, writeErr: () => {}, outputError: () => {} });
  for (const command of options.commands) program.addCommand(command);
  SESSIONS.set(program, options.session);
  walk(program, (cmd) => {
    cmd.helpCommand(false);
    cmd.showSuggestionAfterError(true);
    cmd.configureHelp({ formatHelp });
    cmd.configureOutput({ writeOut: options.write, writeErr: () => {}, outputError: () => {} });
    cmd.exitOverride((error) => {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        throw new HelpShown();
      if (error.code === 'commander.help' && cmd === program && options.argv.length === 0) {
        options.write(program.helpInformation());
        throw new HelpShown();
      }
      throw usageErrorFrom(error, cmd);
    });
  });
  return program;
}
