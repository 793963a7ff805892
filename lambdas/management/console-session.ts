/**
 * Console sessions (docs/design.md §8): short-lived tokens that open the web console and the
 * management HTTP API for exactly one application. A token is an HS256 JWT signed with a
 * stack-owned key kept in Secrets Manager; whoever holds IAM rights on the stack mints them
 * (the management library, the CLI), the API verifies them. No long-lived credential
 * travels over HTTP.
 */

import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { ConfigurationError, InputError, ValidationError } from '../core/errors';
import { isApplicationId } from '../core/ids';

/** Default lifetime of a console session: one hour. */
export const DEFAULT_SESSION_TTL_SECONDS = 3_600;
/** Longest lifetime a session may have: 24 hours. */
export const MAX_SESSION_TTL_SECONDS = 86_400;
/** Shortest lifetime worth minting. */
export const MIN_SESSION_TTL_SECONDS = 60;
/** How long the API keeps the signing key in memory before reading it again. */
export const SESSION_KEY_CACHE_MS = 300_000;

const ISSUER = 'serverless-webhooks';
const AUDIENCE = 'webhooks-console';
const ALGORITHM = 'HS256';
/** Smallest signing key accepted, bytes (HS256 wants at least the hash size). */
const MIN_KEY_BYTES = 32;

export interface ConsoleSession {
  token: string;
  /** `<api base>/console/#token=<token>`: the fragment never reaches a server or a log. */
  consoleUrl: string;
  /** ISO 8601 time after which the token is refused. */
  expiresAt: string;
}

export interface SessionClaims {
  applicationId: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** A token that is missing, malformed, tampered with, expired or not for this audience. */
export class SessionError extends InputError {
  constructor(readonly reason: 'missing' | 'invalid' | 'expired') {
    super(
      `session_${reason}`,
      reason === 'expired'
        ? 'the session has expired; ask for a new console link'
        : reason === 'missing'
          ? 'a session token is required (Authorization: Bearer <token>)'
          : 'the session token is not valid',
    );
    this.name = 'SessionError';
  }
}

/** The deployment has no console / management API, or its signing key is unusable. */
export class SessionSetupError extends ConfigurationError {
  constructor(message: string) {
    super('session_setup', message);
    this.name = 'SessionSetupError';
  }
}

export function validateTtl(ttlSeconds: unknown): number {
  if (ttlSeconds === undefined) return DEFAULT_SESSION_TTL_SECONDS;
  if (
    typeof ttlSeconds !== 'number' ||
    !Number.isInteger(ttlSeconds) ||
    ttlSeconds < MIN_SESSION_TTL_SECONDS ||
    ttlSeconds > MAX_SESSION_TTL_SECONDS
  ) {
    throw new ValidationError(
      'ttlSeconds',
      `must be a whole number of seconds from ${MIN_SESSION_TTL_SECONDS} to ${MAX_SESSION_TTL_SECONDS} (24 h)`,
    );
  }
  return ttlSeconds;
}

export function validateApplicationId(applicationId: unknown): string {
  if (!isApplicationId(applicationId)) {
    throw new ValidationError('applicationId', 'is required and must look like app_<id>');
  }
  return applicationId;
}

/** The HMAC key from the secret's text (the stack generates it; local mode writes 32 random bytes). */
export function keyFromSecretString(secret: string): Uint8Array {
  const key = new TextEncoder().encode(secret);
  if (key.byteLength < MIN_KEY_BYTES) {
    throw new SessionSetupError(`the console signing key is shorter than ${MIN_KEY_BYTES} bytes`);
  }
  return key;
}

/** Text of a new signing key (local mode; the stack lets Secrets Manager generate one). */
export function generateSessionKeyText(): string {
  return randomBytes(48).toString('base64url');
}

/** Signs a session token for one application. `now` is epoch milliseconds. */
export async function mintSessionToken(
  key: Uint8Array,
  input: { applicationId: string; ttlSeconds?: number; now?: number },
): Promise<{ token: string; expiresAt: number }> {
  const applicationId = validateApplicationId(input.applicationId);
  const ttl = validateTtl(input.ttlSeconds);
  const issuedAt = Math.floor((input.now ?? Date.now()) / 1000);
  const expiresAt = issuedAt + ttl;
  const token = await new SignJWT({ app: applicationId })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(randomBytes(12).toString('base64url'))
    .sign(key);
  return { token, expiresAt };
}

/** Checks signature, issuer, audience, expiry and the 24 h ceiling; returns the one application. */
export async function verifySessionToken(
  key: Uint8Array,
  token: string | undefined,
  now: number = Date.now(),
): Promise<SessionClaims> {
  if (!token) throw new SessionError('missing');
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: new Date(now),
      requiredClaims: ['exp', 'iat', 'app'],
      clockTolerance: 0,
    });
    const app = payload.app;
    const exp = payload.exp!;
    const iat = payload.iat!;
    if (!isApplicationId(app)) throw new SessionError('invalid');
    if (exp - iat > MAX_SESSION_TTL_SECONDS || iat * 1000 > now + 60_000) throw new SessionError('invalid');
    return { applicationId: app, expiresAt: exp };
  } catch (error) {
    if (error instanceof SessionError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new SessionError('expired');
    throw new SessionError('invalid');
  }
}

/** Reads the signing key from its secret, keeping it for {@link SESSION_KEY_CACHE_MS}. */
export class SessionKey {
  private cached?: { key: Uint8Array; until: number };
  private pending?: Promise<Uint8Array>;

  constructor(
    /** A secret's string value (ManagementBackend.secretString); empty when the secret has none. */
    private readonly secretString: (secretId: string) => Promise<string>,
    private readonly secretId: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(): Promise<Uint8Array> {
    const now = this.clock();
    if (this.cached && this.cached.until > now) return this.cached.key;
    this.pending ??= this.read().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async read(): Promise<Uint8Array> {
    const text = await this.secretString(this.secretId);
    if (!text) throw new SessionSetupError('the console signing key secret is empty');
    const key = keyFromSecretString(text);
    this.cached = { key, until: this.clock() + SESSION_KEY_CACHE_MS };
    return key;
  }
}

/** `<apiUrl>/console/#token=<token>` */
export function consoleUrlOf(apiUrl: string, token: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/console/#token=${token}`;
}
