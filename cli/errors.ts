/**
 * Errors of the CLI and the one place that turns any error into the single line an
 * operator reads on stderr (`webhooks: <reason>`).
 */

import { InputError, type WebhookErrorOptions } from '../lambdas/core/errors';
import { suggestion, type TargetFlags } from './suggest';

/** Exit codes: 1 = the operation failed, 2 = the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Something the operator can act on; `message` is printed as is. */
export class CliError extends InputError {
  readonly exitCode: number = EXIT.failed;
  constructor(message: string, options?: WebhookErrorOptions & { code?: string }) {
    super(options?.code ?? 'cli_failed', message, options);
    this.name = 'CliError';
  }
}

export const DEFAULT_HINT = 'npx webhooks --help';

/** A wrong command line: the message says what, `hint` says where the help is. */
export class UsageError extends CliError {
  override readonly exitCode: number = EXIT.usage;
  constructor(
    message: string,
    readonly hint = DEFAULT_HINT,
  ) {
    super(message, { code: 'usage' });
    this.name = 'UsageError';
  }
}

/** Management API fields that the CLI sets from a differently named flag. */
const FIELD_AS_FLAG: Record<string, string> = {
  applicationId: 'application',
  connectionId: 'connection id',
  attemptShards: '--raise-to',
};

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  field?: string;
  problem?: string;
  $metadata?: unknown;
  cause?: unknown;
}

function networkCode(error: ErrorLike): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as ErrorLike).code;
    if (code && /^E[A-Z]+$/.test(code)) return code;
    current = (current as ErrorLike).cause;
  }
  return undefined;
}

/** A refused port names the way out: a loopback host in local mode, the stack's allowedPorts otherwise. */
function portWayOut(problem: string, context: TargetFlags): string {
  if (!/^port \d+ is not allowed/.test(problem)) return '';
  return context.local
    ? '; local mode reaches any port on localhost, 127.0.0.1 and [::1] (other hosts: npm start -- --allow-port N)'
    : "; a deployed stack allows the ports of the construct's allowedPorts property (its AllowedPorts output)";
}

/**
 * A refused http:// URL names the way out in local mode: local mode's CA issues a certificate
 * the pipeline already trusts. A deployed stack trusts public CAs only, which the CLI cannot issue.
 */
function httpsWayOut(field: string, problem: string, context: TargetFlags): string {
  if (field !== 'url' || !/^must use https:/.test(problem) || !context.local) return '';
  return `; serve the receiver over https with a certificate from local mode's CA, which the pipeline trusts: ${suggestion(context, 'certs issue --out ./certs')} (valid for localhost, 127.0.0.1 and ::1)`;
}

/** Collapses whitespace so the reason is exactly one line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The reason printed after `webhooks: `, for every error the CLI can meet: its own, the
 * management API's (which name the field or the missing id), the AWS SDK's and the network's.
 */
export function reasonFor(error: unknown, context: TargetFlags = {}): string {
  if (!(error instanceof Error) && (typeof error !== 'object' || error === null)) {
    return oneLine(String(error));
  }
  const e = error as ErrorLike;
  const message = oneLine(e.message ?? String(error));
  if (e.name === 'StackNotFoundError') {
    // Finding the stack is the first AWS call: a credentials or network problem shows up here.
    const cause = e.cause as ErrorLike | undefined;
    const underlying = cause ? reasonFor(cause, context) : undefined;
    if (underlying && underlying !== oneLine(cause?.message ?? '')) return underlying;
    return `${message} (pick the stack with --stack NAME and --region, or use --local for local mode)`;
  }
  switch (e.name) {
    case 'UsageError':
      return `${message}; see: ${(error as UsageError).hint}`;
    case 'ValidationError':
    case 'DestinationRefusedError':
      // Ours name a field; the AWS SDK has a ValidationError of its own, without one.
      if (e.field !== undefined) {
        const problem = e.problem ?? message;
        const wayOut = portWayOut(problem, context) || httpsWayOut(e.field, problem, context);
        return `${FIELD_AS_FLAG[e.field] ?? e.field}: ${problem}${wayOut}`;
      }
      break;
    case 'CredentialsProviderError':
      if (context.profile) {
        return `no AWS credentials from profile ${context.profile}; check ~/.aws/config, or sign in (aws sso login --profile ${context.profile})`;
      }
      return 'no AWS credentials found; use --profile NAME, set AWS_PROFILE or AWS_ACCESS_KEY_ID, or add --local for local mode';
    case 'ExpiredToken':
    case 'ExpiredTokenException':
      return 'the AWS credentials have expired; refresh them (e.g. aws sso login) and try again';
    case 'AccessDenied':
    case 'AccessDeniedException':
    case 'UnrecognizedClientException':
      return `AWS refused the request: ${message}`;
  }
  if (/region is missing/i.test(message)) return 'no AWS region; use --region or set AWS_REGION';
  const code = networkCode(e);
  if (code === 'ECONNREFUSED' && context.local) {
    return 'cannot reach local mode (connection refused); is `npm start` still running?';
  }
  if (code && ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN'].includes(code)) {
    return `cannot reach the service (${code}): ${message}`;
  }
  return message;
}

/** Whether to print stack traces: `DEBUG=webhooks` (or a list containing it, or `*`). */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.DEBUG ?? '')
    .split(',')
    .map((s) => s.trim())
    .some((s) => s === 'webhooks' || s === '*');
}
