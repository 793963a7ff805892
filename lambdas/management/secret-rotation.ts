/**
 * Show Secret and rotation with overlap (docs/protocol.md "Rotating the secret"). A rotation
 * makes a new secret at once and shows it, but the connection keeps signing with its current
 * secret until the switch time (`secretRotationOverlap` after the rotation, 24 hours unless the
 * stack or the caller says otherwise; 0: at once). Both secrets and the time live where the
 * secret lives (Secrets Manager versions, or KMS ciphertexts in the item); the dispatcher picks
 * one by its own clock (core/secret-switch.ts). Rotating again before the switch replaces the
 * pending secret: the current one, which receivers hold, keeps signing until the new switch time.
 */

import { randomBytes } from 'node:crypto';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS } from '../core/constants';
import { ValidationError } from '../core/errors';
import { pendingAsCurrent, switchedAt } from '../core/secret-switch';
import type { ConnectionTable, SecretChange } from '../core/stores';
import type { Connection } from '../core/types';
import type { RotatedSecretView, RotateSecretRequest, SecretView } from '../shapes/resource-types';
import { ConflictError, NotFoundError } from './errors';
import type { SecretKeeper } from './ports';

/** A new webhook secret: `whsec_` + base64 of 32 bytes from the CSPRNG (docs/design.md §5). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** "Show Secret": the secret that signs now and, while a switch is ahead, the next one with its time. */
export type ShownSecret = SecretView;

/** A rotation's answer: the new secret, when it starts signing, and the version that signs until then. */
export type RotatedSecret = RotatedSecretView;

/** When a rotation's switch comes: `switchAfter` seconds from now, or at `switchAt`; one at most. */
export type SwitchChoice = RotateSecretRequest;

/**
 * The switch time a rotation asked for, epoch ms; the default overlap when it names none.
 * @throws ValidationError for both at once, a negative or too long overlap, a time in the past.
 */
export function switchTimeOf(
  choice: SwitchChoice,
  nowMs: number,
  defaultSeconds = DEFAULT_SECRET_OVERLAP_SECONDS,
): number {
  const { switchAfter, switchAt } = choice;
  const latest = `at most ${MAX_SECRET_OVERLAP_SECONDS} seconds (30 days) away`;
  if (switchAfter !== undefined && switchAt !== undefined)
    throw new ValidationError('switchAt', 'give switchAt or switchAfter, not both');
  if (switchAt !== undefined) {
    const at = Date.parse(switchAt);
    if (Number.isNaN(at) || !/^\d{4}-\d\d-\d\dT/.test(switchAt))
      throw new ValidationError(
        'switchAt',
        `must be an ISO 8601 time such as 2030-01-31T09:00:00Z, got "${switchAt}"`,
      );
    if (at < nowMs)
      throw new ValidationError('switchAt', 'is in the past: give switchAfter: 0 to switch at once');
    if (at - nowMs > MAX_SECRET_OVERLAP_SECONDS * 1000)
      throw new ValidationError('switchAt', `must be ${latest}`);
    return at;
  }
  const seconds = switchAfter ?? defaultSeconds;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_SECRET_OVERLAP_SECONDS)
    throw new ValidationError(
      'switchAfter',
      `must be a whole number of seconds from 0 (at once) to ${latest}`,
    );
  return nowMs + seconds * 1000;
}

/** Show Secret of a connection as it stands at `nowMs` (read the raw item: the switch is judged here). */
export async function revealSecrets(
  keeper: SecretKeeper,
  connection: Connection,
  nowMs: number,
): Promise<ShownSecret> {
  const settled = switchedAt(connection, nowMs);
  const current = await keeper.reveal(settled);
  const pending = pendingAsCurrent(settled);
  if (!pending) return current;
  const next = await keeper.reveal(pending);
  return {
    ...current,
    next: { secret: next.secret, secretVersion: pending.secretVersion!, switchAt: settled.secretSwitchAt! },
  };
}

/**
 * Keeps a new secret and writes it as the pending one (or the current one, at once), if the
 * connection still names the versions read: of rotations at the same moment one wins, and the
 * others answer ConflictError, so no caller keeps a secret that is never used.
 */
export async function rotateSecret(
  ports: { table: ConnectionTable; keeper: SecretKeeper },
  stored: Connection,
  switchMs: number,
  nowMs: number,
): Promise<RotatedSecret> {
  const { table, keeper } = ports;
  // A switch already past is made now, in the same write: the pending secret becomes current.
  const settled = switchedAt(stored, nowMs);
  // A connection that names no version signs with the newest: pin the one it signs with now.
  const signing = settled.secretVersion ?? (await keeper.reveal(settled)).secretVersion;
  const secret = generateSecret();
  const fields = await keeper.rotate(settled, secret);
  const switchAt = new Date(Math.max(switchMs, nowMs)).toISOString();
  const change: SecretChange =
    switchMs <= nowMs
      ? { ...fields, nextSecretVersion: null, nextSecretCiphertext: null, secretSwitchAt: null }
      : {
          secretArn: settled.secretArn,
          secretVersion: signing ?? fields.secretVersion,
          ...ciphertextOf(settled),
          nextSecretVersion: fields.secretVersion,
          nextSecretCiphertext: fields.secretCiphertext ?? null,
          secretSwitchAt: switchAt,
        };
  const written = await table.setSecret(stored.connectionId, change, new Date(nowMs).toISOString(), {
    secretVersion: stored.secretVersion,
    nextSecretVersion: stored.nextSecretVersion,
  });
  if (written === 'missing') throw new NotFoundError('connection', stored.connectionId);
  if (written === 'conflict') {
    throw new ConflictError(
      `the secret of ${stored.connectionId} was rotated meanwhile; show the secret to read the current one`,
    );
  }
  return {
    secret,
    secretVersion: fields.secretVersion,
    switchAt,
    ...(signing ? { previousVersion: signing } : {}),
  };
}

/** The current secret's ciphertext, on a `kms` store's item. */
function ciphertextOf(connection: Connection): { secretCiphertext?: string } {
  const { secretCiphertext } = connection as Connection & { secretCiphertext?: string };
  return secretCiphertext ? { secretCiphertext } : {};
}
