/** The dispatcher's connection cache time as the CLI tells it (a change waits for it). */

import { CONFIG_DEFAULTS } from '../../lambdas/config';
import type { WebhookManagement } from '../../lambdas/management';
import type { Context } from '../context';

/** How long the dispatcher caches a connection, as far as this target tells: local mode says. */
export function cacheTime(ctx: Context, webhooks: WebhookManagement): string {
  const ttlMs = webhooks.connectionCacheTtlMs;
  if (ttlMs === undefined) return `${CONFIG_DEFAULTS.connectionCacheTtlMs / 1000} s by default`;
  return `${ttlMs / 1000} s${ctx.globals.local ? ' in local mode' : ''}`;
}
