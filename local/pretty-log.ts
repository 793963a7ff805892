/**
 * Local mode's log for a person at a terminal: one short line per attempt instead of the
 * JSON lines the Lambda writes for CloudWatch. Fields are the same; secrets never reach
 * either (the core redacts before it logs).
 */

import type { HealthTransition } from '../lambdas/core/health';
import { healthLogMessage } from '../lambdas/core/health-tracker';
import type { Log } from '../lambdas/core/ports';

const COLOURS = { dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', reset: '\x1b[0m' };
type Colour = Exclude<keyof typeof COLOURS, 'reset'>;

/**
 * Health transitions are all logged at warn, so CloudWatch shows them at the default level;
 * here each gets the mark of the way it went: a recovery is good news, not a ✗.
 */
const HEALTH_MARKS: Record<HealthTransition, { mark: string; colour: Colour }> = {
  'connection.failing': { mark: '!', colour: 'yellow' },
  'connection.disabled': { mark: '✗', colour: 'red' },
  'connection.recovered': { mark: '✓', colour: 'green' },
};
const HEALTH_LINES = new Map(
  Object.entries(HEALTH_MARKS).map(([transition, mark]) => [
    healthLogMessage(transition as HealthTransition),
    mark,
  ]),
);

export function prettyLog(
  write: (line: string) => void,
  colour: boolean,
  minLevel: 'debug' | 'info' = 'info',
): Log {
  const c = (name: Colour, text: string) => (colour ? `${COLOURS[name]}${text}${COLOURS.reset}` : text);
  const time = () => new Date().toISOString().slice(11, 23);
  const line = (level: string, message: string, fields: Record<string, unknown> = {}) => {
    const {
      deliveryId,
      attempt,
      outcome,
      statusCode,
      durationMs,
      nextAttemptAt,
      reason,
      error,
      connectionId,
      ...rest
    } = fields;
    const parts = [c('dim', time())];
    const health = HEALTH_LINES.get(message);
    if (outcome === 'delivered') parts.push(c('green', '✓ delivered'));
    else if (health) parts.push(c(health.colour, `${health.mark} ${message}`));
    else if (level === 'warn' || level === 'error')
      parts.push(c(level === 'error' ? 'red' : 'yellow', `✗ ${message}`));
    else parts.push(message);
    // The whole id, so it can be pasted into `npx webhooks --local attempts get`.
    if (deliveryId) parts.push(String(deliveryId));
    if (connectionId && !deliveryId) parts.push(String(connectionId));
    if (attempt !== undefined) parts.push(`attempt ${attempt}`);
    if (outcome && outcome !== 'delivered') parts.push(String(outcome));
    if (statusCode !== undefined) parts.push(`HTTP ${statusCode}`);
    if (durationMs !== undefined) parts.push(`${durationMs} ms`);
    if (nextAttemptAt) parts.push(`next at ${String(nextAttemptAt).slice(11, 23)}`);
    if (reason) parts.push(`reason ${reason}`);
    if (error && outcome !== 'delivered') parts.push(c('dim', `(${explained(String(error))})`));
    const extra = Object.entries(rest).filter(([, v]) => v !== undefined && v !== false);
    if (extra.length && outcome === undefined)
      parts.push(c('dim', extra.map(([k, v]) => `${k}=${String(v)}`).join(' ')));
    write(parts.join('  '));
  };
  return {
    debugEnabled: () => minLevel === 'debug',
    debug: (m, f) => (minLevel === 'debug' ? line('debug', m, f) : undefined),
    info: (m, f) => line('info', m, f),
    warn: (m, f) => line('warn', m, f),
    error: (m, f) => line('error', m, f),
  };
}

const UNTRUSTED =
  /\b(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?)\b/;

/** An untrusted receiver certificate: say what fixes it (the sender already dropped Node's generic hint). */
function explained(error: string): string {
  return UNTRUSTED.test(error)
    ? `${error}; serve a certificate from: npx webhooks --local certs issue --out ./certs`
    : error;
}
