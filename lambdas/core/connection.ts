/**
 * Connection rules (docs/protocol.md §1, docs/design.md §4): checked when a connection is saved and again
 * at dispatch, where a broken record is a permanent `rejected` outcome.
 */

import { ALLOWED_METHODS } from './constants';
import { type EgressPolicy, isIpLiteral, portRefusal, refusalOf } from './egress';
import { DestinationRefusedError, ValidationError } from './errors';
import { validateCustomHeaders } from './headers';
import { isConnectionId } from './ids';
import type { Connection, HttpMethod } from './types';

export const MAX_URL_LENGTH = 2048;

/**
 * Validates a receiver URL after WHATWG normalisation (so `https://2130706433/` is seen as
 * 127.0.0.1). Returns the normalised URL. Its length is checked as normalised, the form that
 * is stored and sent: percent-encoding and punycode can make a URL longer than it was typed,
 * and a URL accepted at save must not be refused at every delivery.
 */
export function validateUrl(raw: unknown, policy: EgressPolicy): URL {
  if (typeof raw !== 'string' || raw.length === 0) throw new ValidationError('url', 'is required');
  // A cheap bound before parsing; the rule itself is on the normalised URL below.
  if (raw.length > MAX_URL_LENGTH * 4)
    throw new ValidationError('url', `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('url', 'is not a valid absolute URL');
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new ValidationError(
      'url',
      `must be at most ${MAX_URL_LENGTH} characters once normalised (percent-encoded, punycode), got ${url.href.length}`,
    );
  }
  if (url.protocol !== 'https:') throw new ValidationError('url', `must use https:, got ${url.protocol}`);
  if (url.username || url.password) {
    throw new ValidationError(
      'url',
      'must not contain credentials; use a custom Authorization header instead',
    );
  }
  // Every trailing dot goes: `localhost.` and `localhost..` are both the loopback name.
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (!host) throw new ValidationError('url', 'must have a host');
  if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowLoopback) {
    throw new DestinationRefusedError(`host ${url.hostname} is a loopback name and is refused`);
  }
  if (isIpLiteral(url.hostname)) {
    const refusal = refusalOf(url.hostname, policy);
    if (refusal) throw new DestinationRefusedError(`destination refused: ${refusal}`);
  }
  const port = url.port ? Number(url.port) : 443;
  const badPort = portRefusal(port, policy, url.hostname);
  if (badPort) throw new DestinationRefusedError(badPort);
  return url;
}

/** Control characters (C0, DEL, C1) and bidi overrides: they would act on an operator's terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to refuse
const NAME_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A connection's name: refused when it holds a control character, which would reach every
 * operator's terminal (a name is shown by the CLI and the console).
 */
export function validateNameCharacters(name: string): string {
  const found = NAME_UNSAFE.exec(name);
  if (found) {
    const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new ValidationError(
      'name',
      `must not contain control characters (U+${code} at position ${found.index + 1})`,
    );
  }
  return name;
}

export function validateMethod(raw: unknown): HttpMethod {
  const method = raw === undefined ? 'POST' : raw;
  if (typeof method !== 'string' || !(ALLOWED_METHODS as readonly string[]).includes(method)) {
    throw new ValidationError(
      'method',
      `must be one of ${ALLOWED_METHODS.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  }
  return method as HttpMethod;
}

/**
 * Checks a stored connection before delivering to it.
 * @throws ValidationError naming the broken field.
 */
export function checkConnection(connection: Connection, policy: EgressPolicy, headerPrefix: string): URL {
  if (!isConnectionId(connection.connectionId))
    throw new ValidationError('connectionId', 'must look like con_<id>');
  if (connection.type !== 'webhook')
    throw new ValidationError('type', `must be "webhook", got ${connection.type}`);
  validateMethod(connection.method);
  validateCustomHeaders(connection.headers, headerPrefix);
  if (typeof connection.secretArn !== 'string' || connection.secretArn.length === 0) {
    throw new ValidationError('secretArn', 'is required');
  }
  return validateUrl(connection.url, policy);
}

/** Origin and path of a URL: what the attempt log keeps (never the query string, which may hold tokens). */
export function targetOf(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
