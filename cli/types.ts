/** Shapes shared by the CLI's parser, help and commands. */

import type { WebhookManagement } from '../lambdas/management';
import type { Flags } from './args';

export interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** Placeholder shown in help, e.g. `app_id` in `--application <app_id>`. */
  value?: string;
  description: string;
}

export type FlagValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface GlobalFlags {
  local: boolean;
  stack?: string;
  region?: string;
  profile?: string;
  json: boolean;
}

/** What a command gets to do its work and talk to the operator. */
export interface Context {
  globals: GlobalFlags;
  /** The management API for the chosen target (local mode or a deployed stack); connects on first use. */
  management(): Promise<WebhookManagement>;
  /** A line (or block) for people on stdout; ignored with --json. */
  print(text?: string): void;
  /** The --json output of the command. */
  printJson(value: unknown): void;
  /** Progress and notes on stderr (never part of the result). */
  stderr: NodeJS.WriteStream | NodeJS.WritableStream;
  /** A command line to suggest, with the same target flags as this one (`webhooks --local …`). */
  suggest(command: string): string;
  now(): Date;
}

export interface CommandInput {
  flags: Flags;
  positionals: string[];
}

export interface CommandSpec {
  /** `['connections', 'create']`, or `['publish']`. */
  name: string[];
  /** One line, lower case, no final period. */
  summary: string;
  /** What follows `webhooks <name>` in the usage line. */
  usage: string;
  positionals?: { min: number; max: number; name: string };
  flags: Record<string, FlagSpec>;
  /** Longer explanation shown under the usage line. */
  details?: string;
  examples: string[];
  /** Runs the command; a failure is thrown (CliError carries the exit code). */
  run(ctx: Context, input: CommandInput): Promise<void>;
}
