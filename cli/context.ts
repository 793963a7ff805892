/** What a command gets to do its work and talk to the operator; shared by every command file. */

import type { WebhookManagement } from '../lambdas/management';
import { UsageError } from './errors';

export const DEFAULT_STACK = 'Webhooks';

/** Flags every command accepts, wherever they appear on the command line. */
export interface GlobalFlags {
  local: boolean;
  stack?: string;
  region?: string;
  profile?: string;
  json: boolean;
}

export interface Context {
  globals: GlobalFlags;
  /** The management API for the chosen target (local mode or a deployed stack); connects on first use. */
  management(): Promise<WebhookManagement>;
  /** A line (or block) for people on stdout; ignored with --json. */
  print(text?: string): void;
  /** The --json output of the command. */
  printJson(value: unknown): void;
  /** One compact JSON line with --json (live views: one object per line); ignored without. */
  printJsonLine(value: unknown): void;
  /** Progress and notes on stderr (never part of the result). */
  stderr: NodeJS.WriteStream | NodeJS.WritableStream;
  /** Where a confirmation is read from (`connections delete`). */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** A command line to suggest, with the same target flags as this one (`npx webhooks --local …`). */
  suggest(command: string): string;
  now(): Date;
  /** Waits, or ends early when the command is interrupted (Ctrl-C); resolves false then. */
  sleep(ms: number): Promise<boolean>;
}

/** `--headers-json` is `headersJson` in commander's option values. */
function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Typed access to a command's parsed flags, by their command-line names. */
export class Flags {
  constructor(
    private readonly values: Record<string, unknown>,
    private readonly display: string,
  ) {}

  string(name: string): string | undefined {
    const v = this.values[camel(name)];
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
    const v = this.values[camel(name)];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  bool(name: string): boolean {
    return this.values[camel(name)] === true;
  }

  has(name: string): boolean {
    return this.values[camel(name)] !== undefined;
  }
}

export interface CommandInput {
  flags: Flags;
  positionals: string[];
}

/** Collects a repeatable flag (`--header a --header b`) in order. */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
