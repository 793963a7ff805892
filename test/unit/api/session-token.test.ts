/** Console session tokens: minted for one application, refused when expired, tampered or foreign. */

import { SignJWT } from 'jose';
import { ValidationError } from '../../../lambdas/core/errors';
import {
  MAX_SESSION_TTL_SECONDS,
  mintSessionToken,
  SessionError,
  SessionKey,
  verifySessionToken,
} from '../../../lambdas/management/console-session';

const key = new TextEncoder().encode('k'.repeat(48));
const otherKey = new TextEncoder().encode('o'.repeat(48));
const T0 = Date.parse('2026-11-22T10:00:00Z');

async function reasonOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (e: unknown) => (e instanceof SessionError ? e.reason : String(e)),
  );
}

describe('console session tokens', () => {
  it('names exactly the application it was minted for and expires after the default hour', async () => {
    const { token, expiresAt } = await mintSessionToken(key, { applicationId: 'app_acme', now: T0 });
    expect(expiresAt).toBe(T0 / 1000 + 3600);
    expect(await verifySessionToken(key, token, T0 + 3_599_000)).toEqual({
      applicationId: 'app_acme',
      expiresAt,
    });
    expect(await reasonOf(verifySessionToken(key, token, T0 + 3_600_000))).toBe('expired');
  });

  it('honours a shorter lifetime given in seconds', async () => {
    const { token } = await mintSessionToken(key, { applicationId: 'app_acme', ttlSeconds: 120, now: T0 });
    expect((await verifySessionToken(key, token, T0 + 119_000)).applicationId).toBe('app_acme');
    expect(await reasonOf(verifySessionToken(key, token, T0 + 120_000))).toBe('expired');
  });

  it.each([0, 59, MAX_SESSION_TTL_SECONDS + 1, 1.5])(
    'refuses to mint a session lasting %p seconds',
    async (ttl) => {
      await expect(mintSessionToken(key, { applicationId: 'app_acme', ttlSeconds: ttl })).rejects.toThrow(
        ValidationError,
      );
    },
  );

  it('refuses to mint for something that is not an application id', async () => {
    await expect(mintSessionToken(key, { applicationId: 'acme' })).rejects.toMatchObject({
      field: 'applicationId',
    });
  });

  it('refuses a token signed with another key, and one whose payload was edited', async () => {
    const { token } = await mintSessionToken(otherKey, { applicationId: 'app_acme', now: T0 });
    expect(await reasonOf(verifySessionToken(key, token, T0))).toBe('invalid');
    const mine = (await mintSessionToken(key, { applicationId: 'app_acme', now: T0 })).token;
    const [h, p, s] = mine.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, app: 'app_other' })).toString('base64url');
    expect(await reasonOf(verifySessionToken(key, `${h}.${forged}.${s}`, T0))).toBe('invalid');
  });

  it('refuses a missing token, garbage, and an unsigned ("alg": "none") token', async () => {
    expect(await reasonOf(verifySessionToken(key, undefined, T0))).toBe('missing');
    expect(await reasonOf(verifySessionToken(key, 'not.a.jwt', T0))).toBe('invalid');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({
        app: 'app_acme',
        iat: T0 / 1000,
        exp: T0 / 1000 + 60,
        iss: 'serverless-webhooks',
        aud: 'webhooks-console',
      }),
    ).toString('base64url')}.`;
    expect(await reasonOf(verifySessionToken(key, none, T0))).toBe('invalid');
  });

  it('refuses a validly signed token that outlives the 24 h ceiling or has another audience', async () => {
    const iat = T0 / 1000;
    const long = await new SignJWT({ app: 'app_acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('serverless-webhooks')
      .setAudience('webhooks-console')
      .setIssuedAt(iat)
      .setExpirationTime(iat + MAX_SESSION_TTL_SECONDS + 1)
      .sign(key);
    expect(await reasonOf(verifySessionToken(key, long, T0))).toBe('invalid');
    const otherAudience = await new SignJWT({ app: 'app_acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('serverless-webhooks')
      .setAudience('something-else')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(key);
    expect(await reasonOf(verifySessionToken(key, otherAudience, T0))).toBe('invalid');
  });

  it('reads the signing key from Secrets Manager once per cache period', async () => {
    let now = T0;
    const calls: unknown[] = [];
    const read = async (secretId: string) => {
      calls.push(secretId);
      return 'x'.repeat(40);
    };
    const sessionKey = new SessionKey(read, 'console-key', () => now);
    await Promise.all([sessionKey.get(), sessionKey.get()]);
    await sessionKey.get();
    expect(calls).toHaveLength(1);
    now += 300_001;
    await sessionKey.get();
    expect(calls).toHaveLength(2);
  });

  it('refuses a signing key shorter than 32 bytes', async () => {
    await expect(new SessionKey(async () => 'short', 'console-key').get()).rejects.toThrow(
      /shorter than 32 bytes/,
    );
  });
});
