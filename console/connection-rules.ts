/**
 * The connection form's rules in plain words: the simple ones checked before anything is sent
 * (name given, URL https, headers a JSON object of strings), and the API's refusals said as
 * sentences beside their field instead of `url: must use https:, got http:`.
 */

import { parseHeaders } from './headers';

export type Field = 'name' | 'url' | 'method' | 'headers' | 'rateLimit';
export type FieldErrors = Partial<Record<Field, string>>;

export const FIELD_LABELS: Record<Field, string> = {
  name: 'Name',
  url: 'URL',
  method: 'Method',
  headers: 'Headers',
  rateLimit: 'Rate limit',
};

export interface FormValues {
  name: string;
  url: string;
  headers: string;
  /** Deliveries per second as typed; blank: none. @default '' */
  rateLimit?: string;
}

/** The API's bounds of a connection's rate limit (lambdas/core/rate-limit.ts). */
const MAX_RATE_LIMIT = 10_000;

/** A typed rate limit: a whole number of deliveries per second, or null when blank. */
export function parseRateLimit(raw: string): { value: number | null } | { error: string } {
  const text = raw.trim();
  if (text === '') return { value: null };
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_RATE_LIMIT)
    return {
      error: 'Rate limit must be a whole number of deliveries per second from 1 to 10000, or blank for none',
    };
  return { value: n };
}

const HTTPS = 'URL must start with https://';

/**
 * Local mode's next step for an http:// receiver on this machine: a certificate from local mode's
 * own CA, which local mode already trusts (README, "Your own endpoint, end to end"). A deployed
 * stack has no such CA, so it is said only in local mode.
 */
export const LOCAL_HTTPS_HINT =
  'URL must start with https://. For a receiver on this machine, issue it a certificate local mode trusts: npx webhooks --local certs issue --out ./certs, serve HTTPS with it, and use https://localhost:<port>/…';

/** The https:// rule's words: with local mode's next step when an http:// URL was given there. */
function httpsError(url: string, local: boolean | undefined): string {
  return local && /^http:\/\//i.test(url.trim()) ? LOCAL_HTTPS_HINT : HTTPS;
}

function parses(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

/** Every error of the form at once, before sending; the parsed headers when they are valid. */
export function checkConnectionForm(
  values: FormValues,
  /** `local`: the API runs in local mode (its index says so), where an http:// URL gets a next step. */
  options: { editing?: boolean; local?: boolean } = {},
): { errors: FieldErrors; headers?: Record<string, string | null> } {
  const errors: FieldErrors = {};
  if (values.name.trim() === '')
    errors.name = 'Name is required: a name you will recognise, like Orders to CRM';
  const url = values.url.trim();
  if (url === '') errors.url = "URL is required: the receiver's address, starting with https://";
  else if (!/^https:\/\//i.test(url)) errors.url = httpsError(url, options.local);
  else if (!parses(url)) errors.url = 'URL is not a complete address, like https://crm.example.com/webhooks';
  const rate = parseRateLimit(values.rateLimit ?? '');
  if ('error' in rate) errors.rateLimit = rate.error;
  const parsed = parseHeaders(values.headers, { allowKeep: options.editing === true });
  if ('error' in parsed) {
    errors.headers = parsed.error;
    return { errors };
  }
  return { errors, headers: parsed.headers };
}

/** Which of the form's fields an API error names (`headers.X-Foo` belongs to Headers). */
export function fieldOf(apiField: string | undefined): Field | undefined {
  const root = apiField?.split(/[.[]/)[0];
  return root === 'name' || root === 'url' || root === 'method' || root === 'headers' || root === 'rateLimit'
    ? root
    : undefined;
}

/**
 * The API's field error as a sentence: `url: must use https:, got http:` → "URL must start
 * with https://"; others keep the API's reason after what was refused
 * ("URL not accepted: port 8443 is not allowed (allowed: 443)").
 */
export function plainFieldError(
  apiField: string,
  message: string,
  options: { url?: string; local?: boolean } = {},
): string {
  const field = fieldOf(apiField);
  const problem = message.startsWith(`${apiField}: `) ? message.slice(apiField.length + 2) : message;
  if (!field) return message;
  if (field === 'url' && /^must use https:/.test(problem))
    return httpsError(options.url ?? '', options.local);
  if (field === 'url' && /^is not a valid absolute URL/.test(problem))
    return 'URL is not a complete address, like https://crm.example.com/webhooks';
  if (/^is required/.test(problem)) return `${FIELD_LABELS[field]} is required`;
  const header = field === 'headers' && apiField.length > 'headers.'.length ? apiField.slice(8) : undefined;
  return header !== undefined
    ? `Header "${header}" not accepted: ${problem}`
    : `${FIELD_LABELS[field]} not accepted: ${problem}`;
}
