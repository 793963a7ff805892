import { loadSession, readClaims, type StorageLike, takeTokenFromLocation } from '../../../console/session';

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = (claims: object) => `${b64url({ alg: 'HS256' })}.${b64url(claims)}.signature`;

function memoryStorage(): StorageLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe('console session', () => {
  it('takes the token from the fragment and removes it from the address bar', () => {
    const replaced: string[] = [];
    const history = { replaceState: (_: unknown, __: string, url?: string) => void replaced.push(url ?? '') };
    const t = token({ sub: 'app_01', exp: 2_000_000_000 });
    const taken = takeTokenFromLocation({ hash: `#token=${t}`, pathname: '/console/', search: '' }, history);
    expect(taken).toBe(t);
    expect(replaced).toEqual(['/console/']);
  });

  it('keeps the token in storage for reloads and reads the application from it', () => {
    const storage = memoryStorage();
    const history = { replaceState: () => undefined };
    const t = token({ sub: 'app_01', exp: 2_000_000_000 });
    loadSession({ hash: `#token=${t}`, pathname: '/console/', search: '' }, history, storage);
    const reloaded = loadSession(
      { hash: '#/connections', pathname: '/console/', search: '' },
      history,
      storage,
    );
    expect(reloaded).toEqual({ token: t, applicationId: 'app_01', expiresAt: new Date(2_000_000_000_000) });
  });

  it('calls a token that names no application invalid, and no token no session', () => {
    const storage = memoryStorage();
    const history = { replaceState: () => undefined };
    expect(loadSession({ hash: '#token=garbage', pathname: '/c/', search: '' }, history, storage)).toBe(
      'invalid',
    );
    expect(loadSession({ hash: '', pathname: '/c/', search: '' }, history, memoryStorage())).toBeUndefined();
    expect(readClaims(token({ sub: 'x' }))).toEqual({ sub: 'x' });
  });
});
