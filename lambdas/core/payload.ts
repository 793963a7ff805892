/**
 * The delivery payload (docs/protocol.md §2) and the rules docs/design.md §3 adds where the spec is silent.
 * Validation throws a {@link ValidationError} naming the field; serialisation happens once
 * per event, in the spec's field order, so every attempt sends the same bytes.
 */

import { EVENT_KIND, MAX_BODY_BYTES } from './constants';
import { ValidationError } from './errors';
import { APPLICATION_ID, USER_ID } from './ids';
import type { Application, Metadata, User, UserIdentifiedPayload } from './types';
import { describe, MAX_JSON_DEPTH, nestsDeeperThan } from './untrusted';

/** ISO 8601 UTC with milliseconds, the shape of the payload `timestamp` (docs/protocol.md §2). */
export const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** ISO 8601 UTC date-time, milliseconds optional (user.createdAt / updatedAt). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const USER_FIELDS = [
  'id',
  'email',
  'name',
  'firstName',
  'lastName',
  'phone',
  'metadata',
  'createdAt',
  'updatedAt',
];
const KNOWN_USER_FIELDS = new Set(USER_FIELDS);
const STRING_LIMITS: Record<string, number> = {
  email: 320,
  name: 512,
  firstName: 256,
  lastName: 256,
  phone: 64,
};
const MAX_METADATA_KEYS = 100;
/** Longest metadata key. */
export const MAX_METADATA_KEY_LENGTH = 128;
/**
 * Names that act on an object's prototype in JavaScript: as a key, `__proto__` would be
 * silently dropped by the copy every stage makes, and the others invite prototype bugs in
 * receivers. Refused as metadata keys and as header names (docs/security.md).
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A field path naming an untrusted key: short, and safe to print. */
function keyPath(prefix: string, key: string): string {
  return /^[A-Za-z0-9_$-]{1,64}$/.test(key) ? `${prefix}.${key}` : `${prefix}[${describe(key)}]`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when `text` is an ISO 8601 UTC date-time naming a real instant of the calendar:
 * Date.parse alone rolls 2026-02-30 over to March 2nd and 24:00 to the next day, so the
 * instant is written back and must read the same to the second.
 */
export function isIsoUtc(text: unknown, withMillis = false): text is string {
  if (typeof text !== 'string' || !(withMillis ? ISO_MS_UTC : ISO_UTC).test(text)) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19);
}

function optionalString(user: Record<string, unknown>, field: string): string | undefined {
  const value = user[field];
  if (value === undefined) return undefined;
  if (value === null) throw new ValidationError(`user.${field}`, 'must be omitted when unknown, not null');
  if (typeof value !== 'string')
    throw new ValidationError(`user.${field}`, `must be a string, got ${typeOf(value)}`);
  if (value.length === 0)
    throw new ValidationError(`user.${field}`, 'must not be empty (omit it when unknown)');
  const limit = STRING_LIMITS[field];
  if (limit !== undefined && value.length > limit) {
    throw new ValidationError(`user.${field}`, `must be at most ${limit} characters, got ${value.length}`);
  }
  return value;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function validateMetadata(value: unknown): Metadata {
  if (value === undefined) return {};
  if (!isPlainObject(value))
    throw new ValidationError('user.metadata', `must be an object, got ${typeOf(value)}`);
  const keys = Object.keys(value);
  if (keys.length > MAX_METADATA_KEYS) {
    throw new ValidationError(
      'user.metadata',
      `must have at most ${MAX_METADATA_KEYS} keys, got ${keys.length}`,
    );
  }
  const out: Metadata = {};
  for (const key of keys) {
    if (RESERVED_KEYS.has(key)) {
      throw new ValidationError(
        `user.metadata[${describe(key)}]`,
        `is a reserved name (${[...RESERVED_KEYS].join(', ')} cannot be metadata keys)`,
      );
    }
    if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH) {
      throw new ValidationError(
        keyPath('user.metadata', key),
        `keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters long`,
      );
    }
    const v = value[key];
    const ok =
      v === null ||
      typeof v === 'string' ||
      typeof v === 'boolean' ||
      (typeof v === 'number' && Number.isFinite(v));
    if (!ok) {
      throw new ValidationError(
        keyPath('user.metadata', key),
        `must be a string, number, boolean or null, got ${typeof v === 'number' ? String(v) : typeOf(v)}`,
      );
    }
    out[key] = v as Metadata[string];
  }
  return out;
}

/** Validates a user object and returns a copy in the spec's field order. */
export function validateUser(value: unknown): User {
  if (!isPlainObject(value)) throw new ValidationError('user', `must be an object, got ${typeOf(value)}`);
  for (const key of Object.keys(value)) {
    if (!KNOWN_USER_FIELDS.has(key)) {
      throw new ValidationError(
        keyPath('user', key),
        `is not a known field (allowed: ${USER_FIELDS.join(', ')})`,
      );
    }
  }
  if (typeof value.id !== 'string' || !USER_ID.test(value.id)) {
    throw new ValidationError(
      'user.id',
      `is required and must look like usr_<id>, got ${describe(value.id)}`,
    );
  }
  const user: User = { id: value.id };
  const email = optionalString(value, 'email');
  if (email !== undefined && !EMAIL.test(email))
    throw new ValidationError('user.email', 'must be an e-mail address');
  if (email !== undefined) user.email = email;
  for (const field of ['name', 'firstName', 'lastName', 'phone'] as const) {
    const v = optionalString(value, field);
    if (v !== undefined) user[field] = v;
  }
  user.metadata = validateMetadata(value.metadata);
  for (const field of ['createdAt', 'updatedAt'] as const) {
    const v = value[field];
    if (v === undefined) continue;
    if (!isIsoUtc(v)) {
      throw new ValidationError(
        `user.${field}`,
        'must be an ISO 8601 UTC date-time such as 2026-11-21T14:53:00.123Z',
      );
    }
    user[field] = v;
  }
  return user;
}

/** Validates an application object and returns a copy in the spec's field order. */
export function validateApplication(value: unknown): Application {
  if (!isPlainObject(value))
    throw new ValidationError('application', `must be an object, got ${typeOf(value)}`);
  for (const key of Object.keys(value)) {
    if (key !== 'id' && key !== 'name') {
      throw new ValidationError(keyPath('application', key), 'is not a known field (allowed: id, name)');
    }
  }
  if (typeof value.id !== 'string' || !APPLICATION_ID.test(value.id)) {
    throw new ValidationError(
      'application.id',
      `is required and must look like app_<id>, got ${describe(value.id)}`,
    );
  }
  if (typeof value.name !== 'string' || value.name.length === 0 || value.name.length > 256) {
    throw new ValidationError(
      'application.name',
      'is required: a non-empty string of at most 256 characters',
    );
  }
  return { id: value.id, name: value.name };
}

/** Builds the payload object in the spec's field order: event, timestamp, user, application. */
export function buildPayload(input: {
  timestamp: string;
  user: unknown;
  application: unknown;
}): UserIdentifiedPayload {
  if (!isIsoUtc(input.timestamp, true)) {
    throw new ValidationError('timestamp', 'must be an ISO 8601 UTC date-time with milliseconds');
  }
  return {
    event: EVENT_KIND,
    timestamp: input.timestamp,
    user: validateUser(input.user),
    application: validateApplication(input.application),
  };
}

/**
 * An event's payload and its request body, built and checked in one step: the body's size is
 * a payload rule too (core/envelope.ts reads every event through here).
 */
export function payloadAndBody(input: Parameters<typeof buildPayload>[0]): {
  payload: UserIdentifiedPayload;
  body: string;
} {
  const payload = buildPayload(input);
  return { payload, body: serialiseBody(payload) };
}

/** Serialises a payload once; the result is the exact request body of every attempt. */
export function serialiseBody(payload: UserIdentifiedPayload): string {
  const body = JSON.stringify(payload);
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most bodies need no byte count at all.
  if (body.length * 3 <= MAX_BODY_BYTES) return body;
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_BODY_BYTES) {
    throw new ValidationError(
      'body',
      `is ${bytes} bytes; a delivery body is at most ${MAX_BODY_BYTES} bytes`,
    );
  }
  return body;
}

/**
 * Re-checks a body read back from a queue message: valid JSON, a valid payload, and
 * already in canonical form (so a tampered or hand-written body is refused, not "fixed").
 */
export function checkBody(body: string): UserIdentifiedPayload {
  if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
    throw new ValidationError('body', `is larger than ${MAX_BODY_BYTES} bytes`);
  }
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new ValidationError('body', `nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ValidationError('body', 'is not valid JSON');
  }
  if (!isPlainObject(parsed)) throw new ValidationError('body', 'must be a JSON object');
  if (parsed.event !== EVENT_KIND) {
    throw new ValidationError('body.event', `must be "${EVENT_KIND}", got ${describe(parsed.event)}`);
  }
  for (const key of Object.keys(parsed)) {
    if (!['event', 'timestamp', 'user', 'application'].includes(key)) {
      throw new ValidationError(keyPath('body', key), 'is not a payload field');
    }
  }
  let payload: UserIdentifiedPayload;
  try {
    payload = buildPayload({
      timestamp: parsed.timestamp as string,
      user: parsed.user,
      application: parsed.application,
    });
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(`body.${error.field}`, error.problem);
    throw error;
  }
  if (JSON.stringify(payload) !== body) {
    throw new ValidationError('body', 'is not in canonical form (field order or defaults differ)');
  }
  return payload;
}
