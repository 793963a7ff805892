/**
 * The command line: finds the command words (`connections create`), then lets node:util
 * `parseArgs` check that command's flags plus the global ones, wherever they appear.
 * Pure: returns what to do, or throws a UsageError saying what is wrong and where help is.
 */

import { type ParseArgsOptionDescriptor, parseArgs } from 'node:util';
import { UsageError } from './errors';
import { GLOBAL_FLAGS } from './globals';
import { commandHelp, groupHelp } from './help';
import type { CommandSpec, FlagSpec, FlagValues, GlobalFlags } from './types';

/** Global flags that take a value: their value is never a command word. */
const GLOBAL_WITH_VALUE = new Set(
  Object.entries(GLOBAL_FLAGS)
    .filter(([, f]) => f.type === 'string')
    .map(([name]) => `--${name}`),
);

export type ParsedCommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'run'; command: CommandSpec; globals: GlobalFlags; flags: FlagValues; positionals: string[] };

function toParseArgs(flags: Record<string, FlagSpec>): Record<string, ParseArgsOptionDescriptor> {
  return Object.fromEntries(
    Object.entries(flags).map(([name, f]) => [
      name,
      { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) },
    ]),
  );
}

/** node:util's messages are long and mention positionals; say it the operator's way. */
function usageErrorFrom(error: unknown, command: string): UsageError {
  const e = error as { code?: string; message?: string };
  const quoted = /'([^']+)'/.exec(e.message ?? '')?.[1] ?? '';
  const flag = quoted.split(/[ ,]/).find((part) => part.startsWith('--')) ?? quoted;
  const hint = `${command} --help`;
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown flag ${quoted} for "${command}"`, hint);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/.test(e.message ?? '')
        ? new UsageError(`${flag} takes no value`, hint)
        : new UsageError(`${flag} needs a value`, hint);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument "${quoted}"`, hint);
    default:
      return new UsageError(e.message ?? String(error), hint);
  }
}

/** Where the command words are: the non-flag tokens before any command flag, skipping global flags and their values. */
function commandWords(argv: readonly string[], hasSubcommands: (group: string) => boolean) {
  const words: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      const name = token.replace(/^--?/, '').split('=')[0]!;
      if (GLOBAL_WITH_VALUE.has(token)) i++;
      else if (!(name in GLOBAL_FLAGS) && token !== '-h') break;
      continue;
    }
    words.push(i);
    if (words.length === 2 || !hasSubcommands(argv[words[0]!]!)) break;
  }
  return words;
}

/** Parses argv (without `node` and the script) against the registry of commands. */
export function parseCommandLine(
  argv: readonly string[],
  commands: readonly CommandSpec[],
): ParsedCommandLine {
  const groups = new Map<string, CommandSpec[]>();
  for (const c of commands) groups.set(c.name[0]!, [...(groups.get(c.name[0]!) ?? []), c]);
  const hasSubcommands = (group: string) => (groups.get(group) ?? []).some((c) => c.name.length > 1);
  const wantsHelp = argv.some((t) => t === '--help' || t === '-h');

  const positions = commandWords(argv, hasSubcommands);
  const words = positions.map((i) => argv[i]!);
  if (words.length === 0) {
    if (argv.length === 0 || wantsHelp) return { kind: 'help', text: groupHelp(commands) };
    throw new UsageError('which command? e.g. webhooks connections list');
  }
  const [group, sub] = words as [string, string | undefined];
  const members = groups.get(group);
  if (!members) {
    throw new UsageError(`unknown command "${group}" (commands: ${[...groups.keys()].join(', ')})`);
  }
  let command: CommandSpec | undefined;
  if (hasSubcommands(group)) {
    if (sub === undefined) {
      if (wantsHelp) return { kind: 'help', text: groupHelp(members, group) };
      const names = members.map((c) => c.name[1]).join(', ');
      throw new UsageError(`"${group}" needs a subcommand: ${names}`, `webhooks ${group} --help`);
    }
    command = members.find((c) => c.name[1] === sub);
    if (!command) throw new UsageError(`unknown command "${group} ${sub}"`, `webhooks ${group} --help`);
  } else {
    command = members[0]!;
  }
  const display = `webhooks ${command.name.join(' ')}`;
  if (wantsHelp) return { kind: 'help', text: commandHelp(command) };

  const rest = argv.filter((_, i) => !positions.includes(i));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { ...toParseArgs(GLOBAL_FLAGS), ...toParseArgs(command.flags) },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageErrorFrom(error, display);
  }
  const { values, positionals } = parsed;
  const { min, max, name } = command.positionals ?? { min: 0, max: 0, name: '' };
  if (positionals.length < min) throw new UsageError(`missing ${name}`, `${display} --help`);
  if (positionals.length > max) {
    const extra = positionals[max]!;
    throw new UsageError(
      max === 0 ? `unexpected argument "${extra}"` : `unexpected argument "${extra}" after ${name}`,
      `${display} --help`,
    );
  }
  const globals: GlobalFlags = {
    local: values.local === true,
    stack: typeof values.stack === 'string' ? values.stack : undefined,
    region: typeof values.region === 'string' ? values.region : undefined,
    profile: typeof values.profile === 'string' ? values.profile : undefined,
    json: values.json === true,
  };
  checkGlobals(globals, display);
  const flags: FlagValues = { ...values };
  for (const key of Object.keys(GLOBAL_FLAGS)) delete flags[key];
  return { kind: 'run', command, globals, flags, positionals };
}

function checkGlobals(globals: GlobalFlags, display: string): void {
  if (globals.local) {
    const aws = (['stack', 'region', 'profile'] as const).filter((k) => globals[k] !== undefined);
    if (aws.length) {
      throw new UsageError(
        `--local cannot be combined with ${aws.map((k) => `--${k}`).join(', ')} (those pick a deployed stack)`,
        `${display} --help`,
      );
    }
  }
  for (const key of ['stack', 'region', 'profile'] as const) {
    if (globals[key] !== undefined && !globals[key]!.trim()) {
      throw new UsageError(`--${key} needs a value`, `${display} --help`);
    }
  }
}

/** Typed access to a command's parsed flags. */
export class Flags {
  constructor(
    private readonly values: FlagValues,
    private readonly display: string,
  ) {}

  string(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  /** A string flag that must be present. */
  required(name: string, what: string): string {
    const v = this.string(name);
    if (v === undefined || v.trim() === '')
      throw new UsageError(`--${name} is required (${what})`, `${this.display} --help`);
    return v;
  }

  strings(name: string): string[] {
    const v = this.values[name];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  bool(name: string): boolean {
    return this.values[name] === true;
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }
}
