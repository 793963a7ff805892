/**
 * How the CLI writes a command it tells the operator to run next: `npx webhooks` (the package
 * is installed in a project or cloned, so `npx` is what finds it) with this invocation's target
 * flags, so the line runs against the same local mode or stack. One place, for Context.suggest
 * and for the advice errors carry.
 */

/** The flags that pick a target (GlobalFlags' part that a suggested command repeats). */
export interface TargetFlags {
  local?: boolean;
  stack?: string;
  region?: string;
  profile?: string;
}

/** `npx webhooks --local …`: the target flags of this invocation, then the command. */
export function suggestion(target: TargetFlags, command: string): string {
  const flags = [
    target.local ? '--local' : '',
    target.stack ? `--stack ${target.stack}` : '',
    target.region ? `--region ${target.region}` : '',
    target.profile ? `--profile ${target.profile}` : '',
  ].filter(Boolean);
  return ['npx webhooks', ...flags, command].join(' ');
}
