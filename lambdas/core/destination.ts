/**
 * Judging a connection before an attempt: where its URL sends (checked against the egress
 * policy and the header rules once per connection record) and the values its attempt must
 * never reveal (the signing secret, the one before a rotation, custom header values, query
 * values). Kept per connection record for as long as the connection cache hands out the same
 * object: URL parsing and the egress and header checks are more than half the core's CPU
 * without it (docs/performance.md).
 */

import { checkConnection, targetOf } from './connection';
import type { EgressPolicy } from './egress';
import { DestinationRefusedError, ValidationError } from './errors';
import { MIN_ANYWHERE_LENGTH, sensitiveList } from './redact';
import type { Connection, RefusalReason } from './types';

/** Where a connection sends, what its record names, and what to redact. */
export interface Destination {
  url: URL;
  target: string;
  sensitive: string[];
  /** The values to redact with the secret last read for it (one list per secret version). */
  redacted?: { secret: string; key: string; list: readonly string[] };
}

/** Connections whose last signing secret is remembered (as many as the connection cache holds). */
const MAX_REMEMBERED_SECRETS = 10_000;

export class Destinations {
  /** Each connection record's check; only a record that passes is kept (a refused one is checked every time). */
  private readonly checked = new WeakMap<Connection, Destination>();
  /**
   * The secret each connection was last signed with here, so that the one before a rotation is
   * redacted too: receivers keep accepting it during the overlap, and one that echoes its own
   * configuration may still print it. Bounded; the least recently changed goes first.
   */
  private readonly lastSecret = new Map<string, string>();

  constructor(private readonly options: { egress: EgressPolicy; headerPrefix: string }) {}

  /** The connection's destination, or why it is refused (`blocked`, `connection_invalid`). */
  judge(connection: Connection): Destination | { refusal: [RefusalReason, string] } {
    const known = this.checked.get(connection);
    if (known) return known;
    let url: URL;
    try {
      url = checkConnection(connection, this.options.egress, this.options.headerPrefix);
    } catch (error) {
      if (error instanceof DestinationRefusedError) return { refusal: ['blocked', error.message] };
      if (error instanceof ValidationError) {
        return { refusal: ['connection_invalid', `connection is invalid: ${error.message}`] };
      }
      throw error;
    }
    const entry = {
      url,
      target: targetOf(url),
      sensitive: [...Object.values(connection.headers), ...queryValues(url)],
    };
    this.checked.set(connection, entry);
    return entry;
  }

  /**
   * The secret, the one before it and the destination's own values: one list per secret, which
   * keeps its redaction pattern. The secret before a rotation stays in the list of the first
   * record that carries the new one, so until the connection cache next replaces the record:
   * the rotation overlap.
   */
  redacted(
    connectionId: string,
    destination: Destination,
    secret: string,
    /** Every secret the receiver may hold now (the pending one of a rotation too). */
    held: readonly string[] = [secret],
  ): readonly string[] {
    const key = held.join('\n');
    if (destination.redacted?.secret !== secret || destination.redacted.key !== key) {
      const before = this.lastSecret.get(connectionId);
      const previous = before !== undefined && !held.includes(before) ? [before] : [];
      const secrets = [...new Set([secret, ...held, ...previous])];
      destination.redacted = { secret, key, list: sensitiveList([...secrets, ...destination.sensitive]) };
      this.lastSecret.delete(connectionId);
      this.lastSecret.set(connectionId, secret);
      if (this.lastSecret.size > MAX_REMEMBERED_SECRETS)
        this.lastSecret.delete(this.lastSecret.keys().next().value!);
    }
    return destination.redacted.list;
  }
}

/** The target a refusal's record names: the connection's origin and path when its URL parses. */
export function loggedTarget(connection: Connection | undefined): string {
  if (!connection) return '(unknown)';
  try {
    return targetOf(new URL(connection.url));
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A URL's query-string values, as sent and decoded. They often carry a token, and a receiver
 * may echo its request URL in the response that the attempt log keeps.
 */
function queryValues(url: URL): string[] {
  if (!url.search) return [];
  const sent = url.search
    .slice(1)
    .split('&')
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  // Short values (`?page=2`) are rarely a credential: unlike custom header values, they are
  // not redacted (a word-bounded "2" would blank every 2 in a snippet). docs/security.md.
  return [...sent, ...url.searchParams.values()].filter((v) => v.trim().length >= MIN_ANYWHERE_LENGTH);
}
