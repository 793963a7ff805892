/**
 * A rotation with overlap (docs/protocol.md "Rotating the secret"): a connection may hold a
 * pending secret beside its current one, and the time it takes over (`secretSwitchAt`). Nothing
 * writes the switch when it comes: whoever reads the connection compares the time with its own
 * clock, so a dispatcher signs with the current secret before the switch and the pending one
 * from it on, and the management library shows the same. One signature header, always: the
 * secret changes, never the number of signatures.
 */

import type { SigningSecrets } from './ports';
import type { Connection } from './types';

/** A connection item's secret fields as stored; the ciphertexts only with `secretStore: 'kms'`. */
type StoredSecrets = Connection & { secretCiphertext?: string; nextSecretCiphertext?: string };

/** When the pending secret takes over (epoch ms), or undefined with none pending. */
export function switchAtMs(connection: Connection): number | undefined {
  if (!connection.nextSecretVersion || !connection.secretSwitchAt) return undefined;
  const ms = Date.parse(connection.secretSwitchAt);
  // An unreadable time never switches: the current secret, which receivers hold, keeps signing.
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The connection as its pending secret would sign it: the pending fields in place of the
 * current ones, so a SigningSecrets or SecretKeeper reads it like any current secret.
 * Undefined with none pending.
 */
export function pendingAsCurrent(connection: Connection): Connection | undefined {
  if (switchAtMs(connection) === undefined) return undefined;
  const {
    nextSecretVersion,
    nextSecretCiphertext,
    secretSwitchAt: _at,
    secretCiphertext: _old,
    ...rest
  } = connection as StoredSecrets;
  return {
    ...rest,
    secretVersion: nextSecretVersion,
    ...(nextSecretCiphertext ? { secretCiphertext: nextSecretCiphertext } : {}),
  } as Connection;
}

/**
 * The connection as it stands at `nowMs`: once the switch time has passed, the pending secret
 * is the current one and none is pending; before it (or with none pending), unchanged.
 */
export function switchedAt(connection: Connection, nowMs: number): Connection {
  const at = switchAtMs(connection);
  if (at === undefined || nowMs < at) return connection;
  return pendingAsCurrent(connection)!;
}

/** A connection's signing secrets as read for one delivery: which signs is decided at send time. */
export interface SigningChoice {
  /** The secret that signs a request sent at `ms`. */
  at(ms: number): string;
  /** Every secret a receiver may hold now: each is redacted from what the receiver answers. */
  all: readonly string[];
}

/**
 * Reads the secrets of a connection that may sign its next request: the current one, and the
 * pending one while a switch is ahead (both cached by the adapters, by version). Past the
 * switch only the new one is read.
 */
export async function signingSecrets(
  secrets: SigningSecrets,
  connection: Connection,
  nowMs: number,
): Promise<SigningChoice> {
  const settled = switchedAt(connection, nowMs);
  const current = await secrets.current(settled);
  const pending = pendingAsCurrent(settled);
  if (!pending) return { at: () => current, all: [current] };
  const next = await secrets.current(pending);
  const switchMs = switchAtMs(settled)!;
  return { at: (ms) => (ms >= switchMs ? next : current), all: [current, next] };
}
