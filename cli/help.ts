/** `--help` text, generated from the command specs so it can never drift from the parser. */

import { GLOBAL_FLAGS } from './globals';
import type { CommandSpec, FlagSpec } from './types';

/** `-h, --help`, `--application <app_id>`, `--header <Name: value>…` */
function flagLabel(name: string, f: FlagSpec): string {
  const short = f.short ? `-${f.short}, ` : '';
  const value = f.type === 'string' ? ` <${f.value ?? 'value'}>` : '';
  return `${short}--${name}${value}${f.multiple ? '…' : ''}`;
}

function flagLines(flags: Record<string, FlagSpec>, minWidth = 0): string[] {
  const rows = Object.entries(flags).map(([name, f]) => [flagLabel(name, f), f.description] as const);
  const width = Math.max(minWidth, ...rows.map(([left]) => left.length));
  return rows.map(([left, description]) => `  ${left.padEnd(width)}   ${description}`);
}

function flagWidth(flags: Record<string, FlagSpec>): number {
  return Math.max(0, ...Object.entries(flags).map(([name, f]) => flagLabel(name, f).length));
}

const EXIT_CODES = 'Exit status: 0 done, 1 the operation failed, 2 wrong command line.';

/** The help of one command: usage, details, flags, global flags, examples. */
export function commandHelp(command: CommandSpec): string {
  const name = `webhooks ${command.name.join(' ')}`;
  const lines = [`${name}: ${command.summary}`, '', 'Usage', `  ${name} ${command.usage}`.trimEnd()];
  if (command.details) lines.push('', ...command.details.split('\n').map((l) => (l ? `  ${l}` : '')));
  // One width for both lists, so the descriptions line up.
  const width = Math.max(flagWidth(command.flags), flagWidth(GLOBAL_FLAGS));
  if (Object.keys(command.flags).length) lines.push('', 'Flags', ...flagLines(command.flags, width));
  lines.push('', 'Global flags', ...flagLines(GLOBAL_FLAGS, width));
  lines.push('', command.examples.length > 1 ? 'Examples' : 'Example');
  lines.push(...command.examples.map((e) => `  $ ${e}`));
  lines.push('', EXIT_CODES);
  return lines.join('\n');
}

/** The list of commands: all of them, or one group's (`webhooks connections --help`). */
export function groupHelp(commands: readonly CommandSpec[], group?: string): string {
  const names = commands.map(
    (c) => `${c.name.join(' ')}${c.positionals?.max ? ` ${c.positionals.name}` : ''}`,
  );
  const width = Math.max(...names.map((n) => n.length));
  const title = group
    ? `webhooks ${group}: ${GROUP_SUMMARIES[group] ?? ''}`
    : 'webhooks: manage webhook connections, publish events, read the attempt log and the dead-letter queue';
  return [
    title,
    '',
    'Usage',
    `  webhooks ${group ?? '<command>'}${group ? ' <subcommand>' : ''} [flags]`,
    '',
    'Commands',
    ...commands.map((c, i) => `  ${names[i]!.padEnd(width)}   ${c.summary}`),
    '',
    'Global flags',
    ...flagLines(GLOBAL_FLAGS),
    '',
    `Run \`webhooks ${group ?? '<command>'}${group ? ' <subcommand>' : ''} --help\` for its flags and an example.`,
    'Without --local the CLI uses the default AWS credential chain and the stack named by --stack.',
    EXIT_CODES,
  ].join('\n');
}

const GROUP_SUMMARIES: Record<string, string> = {
  connections: 'add, change, test and remove webhook connections and their signing secrets',
  attempts: 'read the attempt log: every delivery attempt, its outcome and the response',
  dlq: 'see what is in the dead-letter queue and send it back for delivery',
};
