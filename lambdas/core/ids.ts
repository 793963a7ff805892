/**
 * Identifiers. A delivery id is a ULID-shaped, time-ordered id followed by the id of
 * the connection it belongs to: `dlv_<26 chars>_<connectionId>`. Two reasons:
 *
 * - It is derived from (event id, connection id), so a redelivered event fans out to
 *   the same delivery ids and receivers can de-duplicate on `X-Service-Delivery`.
 * - The attempt log is partitioned by connection (one write unit per successful attempt,
 *   no index); carrying the connection id lets "all attempts of a delivery" be a Query
 *   when an operator has nothing but the delivery id.
 */

import { hash, randomBytes } from 'node:crypto';
import { ValidationError } from './errors';
import type { DeliveryMessage } from './types';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/**
 * The shape of every id the project reads or makes, in one place: the core, the management
 * library, the publisher and the API's schemas (`.source`) all test against these.
 */
export const APPLICATION_ID = /^app_[A-Za-z0-9_-]{1,128}$/;
export const USER_ID = /^usr_[A-Za-z0-9_-]{1,128}$/;
export const CONNECTION_ID = /^con_[A-Za-z0-9_-]{1,64}$/;
export const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,128}$/;
export const DELIVERY_ID = /^dlv_([0-9A-HJKMNP-TV-Z]{26})_(con_[A-Za-z0-9_-]{1,64})$/;

export function isApplicationId(value: unknown): value is string {
  return typeof value === 'string' && APPLICATION_ID.test(value);
}

export function isUserId(value: unknown): value is string {
  return typeof value === 'string' && USER_ID.test(value);
}

export function isConnectionId(value: unknown): value is string {
  return typeof value === 'string' && CONNECTION_ID.test(value);
}

export function isEventId(value: unknown): value is string {
  return typeof value === 'string' && EVENT_ID.test(value);
}

/** A new time-ordered id (`con_<ULID>`, `evt_<ULID>`): the time given, 80 random bits. */
export function newId(prefix: 'con' | 'evt', nowMs: number): string {
  return `${prefix}_${ulid(nowMs, randomBytes(10))}`;
}

/** Characters of a send id: 50 random bits, unique among the sends of one attempt. */
const SEND_ID_LENGTH = 10;
export const SEND_ID = /^[0-9A-HJKMNP-TV-Z]{10}$/;

/** A new send id (AttemptRecord.sendId): tells two sends of the same attempt apart. */
export function newSendId(): string {
  return encodeBits(randomBytes(7)).slice(0, SEND_ID_LENGTH);
}

/** Crockford base32 of a millisecond time, 10 characters (the ULID time part). */
function encodeTime(ms: number): string {
  let out = '';
  let rest = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** 16 Crockford characters (80 bits) taken from a byte buffer. */
function encodeBits(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 16) {
      out += CROCKFORD[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
    if (out.length === 16) break;
  }
  return out;
}

/** The sort-key prefix of every delivery id created at `ms` (`dlv_` + its ULID time part): for time-bounded key ranges. */
export function deliveryIdTimePrefix(ms: number): string {
  return `dlv_${encodeTime(ms)}`;
}

/**
 * When a delivery was created, epoch ms: its id's time part, the time of its event. Listings
 * keyed by delivery id (the attempt log, parked deliveries) are in this order. Undefined for
 * anything that is not a delivery id.
 */
export function deliveryTimeOf(deliveryId: string): number | undefined {
  const match = DELIVERY_ID.exec(deliveryId);
  if (!match) return undefined;
  let ms = 0;
  for (const char of match[1]!.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(char);
  return ms;
}

/** A ULID from a time and 10 random bytes. */
export function ulid(ms: number, random: Uint8Array): string {
  return encodeTime(ms) + encodeBits(random);
}

/** The delivery id of one event to one connection: stable across redeliveries of the event. */
export function deliveryIdFor(eventId: string, connectionId: string, occurredAtMs: number): string {
  const digest = hash('sha256', `${eventId}\u0000${connectionId}`, 'buffer');
  return `dlv_${ulid(occurredAtMs, digest.subarray(0, 10))}_${connectionId}`;
}

/** The connection id a delivery id carries. */
export function connectionIdOf(deliveryId: string): string {
  const match = DELIVERY_ID.exec(deliveryId);
  if (!match)
    throw new ValidationError(
      'deliveryId',
      `must look like dlv_<ulid>_con_<id>, got ${JSON.stringify(deliveryId)}`,
    );
  return match[2]!;
}

export function isDeliveryId(value: unknown): value is string {
  return typeof value === 'string' && DELIVERY_ID.test(value);
}

/**
 * Which of `count` shards a delivery belongs to (0..count-1): read from the hashed part of its id
 * (the ULID's random half, a SHA-256 of event and connection), so it is the same for every
 * attempt and every reader, and spread evenly whatever the traffic (docs/design.md §5).
 */
export function deliveryShard(deliveryId: string, count: number): number {
  if (count <= 1) return 0;
  const match = DELIVERY_ID.exec(deliveryId);
  if (!match) return 0;
  let value = 0;
  // Six base32 characters: 30 bits, far more than any shard count.
  for (const char of match[1]!.slice(10, 16)) value = value * 32 + CROCKFORD.indexOf(char);
  return value % count;
}

/** The ids an attempt's log lines and errors carry: its connection, delivery and attempt number. */
export function attemptIdsOf(delivery: Pick<DeliveryMessage, 'connectionId' | 'deliveryId' | 'attempt'>) {
  return { connectionId: delivery.connectionId, deliveryId: delivery.deliveryId, attempt: delivery.attempt };
}
