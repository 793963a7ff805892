import {
  decideLink,
  readClaims,
  type Session,
  type StorageLike,
  sessionFromToken,
  takeTokenFromLocation,
} from '../../../console/session';
import { type LinkCheck, SessionStore } from '../../../console/session-store';

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = (claims: object) => `${b64url({ alg: 'HS256' })}.${b64url(claims)}.signature`;
const NOW = 1_900_000_000_000;
const LATER = 2_000_000_000;
const EARLIER = 1_800_000_000;

function memoryStorage(): StorageLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

/** A tab: its address bar (fragment), its history entries' URLs, and its sessionStorage. */
function tab(
  hash: string,
  storage = memoryStorage(),
  verify: (s: Session) => Promise<LinkCheck> = async () => 'accepted',
) {
  const location = { hash, pathname: '/console/', search: '' };
  const entries = [`/console/${hash}`];
  const history = {
    replaceState: (_: unknown, __: string, url?: string) => {
      entries[entries.length - 1] = url ?? '';
      location.hash = new URL(url ?? '', 'https://h').hash;
    },
  };
  const store = new SessionStore({ location, history, storage, verify, now: () => NOW });
  /** The user (or a page) changes the fragment: a new history entry, then the event. */
  const openFragment = (next: string) => {
    const old = `https://h/console/${location.hash}`;
    location.hash = next;
    entries.push(`/console/${next}`);
    store.onLocationChange(old);
  };
  return { store, storage, entries, location, openFragment };
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
    const t = token({ sub: 'app_01', exp: LATER });
    tab(`#token=${t}`, storage);
    const reloaded = tab('#/connections', storage);
    expect(reloaded.store.get()).toEqual({
      session: { token: t, applicationId: 'app_01', expiresAt: new Date(LATER * 1000) },
    });
  });

  it('calls a token that names no application invalid, and no token no session', () => {
    expect(tab('#token=garbage').store.get()).toEqual({ session: 'invalid' });
    expect(tab('').store.get()).toEqual({ session: undefined });
    expect(readClaims(token({ sub: 'x' }))).toEqual({ sub: 'x' });
  });
});

describe('a link opened in a tab that has a session', () => {
  const session = (app: string, exp: number): Session => sessionFromToken(token({ sub: app, exp }))!;
  const a = session('app_a', LATER);

  it('decides: same application refreshes, another asks, an unusable link keeps the live session', () => {
    const fresh = token({ sub: 'app_a', exp: LATER + 60 });
    expect(decideLink(a, fresh, NOW)).toEqual({ action: 'use', session: sessionFromToken(fresh) });
    const b = token({ sub: 'app_b', exp: LATER });
    expect(decideLink(a, b, NOW)).toEqual({ action: 'ask', current: a, offered: sessionFromToken(b) });
    expect(decideLink(a, 'garbage', NOW)).toEqual({
      action: 'keep',
      current: a,
      refused: { reason: 'invalid' },
    });
    expect(decideLink(a, token({ sub: 'app_b', exp: EARLIER }), NOW)).toEqual({
      action: 'keep',
      current: a,
      refused: { reason: 'expired', applicationId: 'app_b' },
    });
    // No live session: any link is used as it is (an expired one then shows the expired page).
    expect(decideLink(undefined, b, NOW)).toMatchObject({ action: 'use' });
    expect(decideLink(session('app_a', EARLIER), b, NOW)).toMatchObject({ action: 'use' });
    expect(decideLink(undefined, 'garbage', NOW)).toEqual({ action: 'invalid' });
  });

  it('on a fresh load, offers another application and keeps its token in memory only until accepted', async () => {
    const storage = memoryStorage();
    const ta = token({ sub: 'app_a', exp: LATER });
    const tb = token({ sub: 'app_b', exp: LATER });
    tab(`#token=${ta}`, storage);
    const { store, entries } = tab(`#token=${tb}`, storage);
    expect(entries).toEqual(['/console/']);
    await store.whenChecked();
    expect(store.get()).toMatchObject({
      session: { applicationId: 'app_a' },
      offer: { applicationId: 'app_b' },
    });
    expect([...storage.items.values()]).toEqual([ta]);
    store.accept();
    expect(store.get()).toEqual({ session: sessionFromToken(tb) });
    expect([...storage.items.values()]).toEqual([tb]);
  });

  it('on a hashchange, scrubs the new entry back to where the tab was; Stay keeps the session', async () => {
    const ta = token({ sub: 'app_a', exp: LATER });
    const tb = token({ sub: 'app_b', exp: LATER });
    const { store, entries, storage, openFragment } = tab(`#token=${ta}`);
    openFragment('#/connections/con_1');
    openFragment(`#token=${tb}`);
    expect(entries).toEqual(['/console/', '/console/#/connections/con_1', '/console/#/connections/con_1']);
    expect(entries.join()).not.toContain('token');
    await store.whenChecked();
    expect(store.get().offer?.applicationId).toBe('app_b');
    store.decline();
    expect(store.get()).toEqual({ session: sessionFromToken(ta) });
    expect([...storage.items.values()]).toEqual([ta]);
  });

  it('on a hashchange, refreshes the same application without asking', async () => {
    const ta = token({ sub: 'app_a', exp: LATER });
    const again = token({ sub: 'app_a', exp: LATER + 3600 });
    const { store, entries, storage, openFragment } = tab(`#token=${ta}`);
    openFragment(`#token=${again}`);
    expect(entries).toEqual(['/console/', '/console/']);
    await store.whenChecked();
    expect(store.get()).toEqual({ session: sessionFromToken(again) });
    expect([...storage.items.values()]).toEqual([again]);
  });

  it('after the API ended the session, a new link for any application is used', () => {
    const { store, openFragment } = tab(`#token=${token({ sub: 'app_a', exp: LATER })}`);
    store.end('invalid');
    openFragment(`#token=${token({ sub: 'app_b', exp: LATER })}`);
    expect(store.get()).toMatchObject({ session: { applicationId: 'app_b' } });
    expect(store.get().ended).toBeUndefined();
  });

  it('replaces or offers nothing the API does not accept: the live session stays and the link is refused', async () => {
    const ta = token({ sub: 'app_a', exp: LATER });
    const forged = token({ sub: 'app_a', exp: LATER + 60 });
    const other = token({ sub: 'app_b', exp: LATER });
    const checked: string[] = [];
    let answer: LinkCheck = 'invalid';
    const verify = async (s: Session) => {
      checked.push(s.token);
      return answer;
    };
    const { store, storage, openFragment } = tab(`#token=${ta}`, memoryStorage(), verify);
    expect(checked).toEqual([]); // the first session of a tab replaces nothing: the API's 401 speaks
    openFragment(`#token=${forged}`);
    expect(store.get()).toEqual({ session: sessionFromToken(ta), checking: true });
    await store.whenChecked();
    expect(store.get()).toEqual({
      session: sessionFromToken(ta),
      refused: { reason: 'invalid', applicationId: 'app_a' },
    });
    expect([...storage.items.values()]).toEqual([ta]);
    answer = 'unchecked';
    openFragment(`#token=${other}`);
    await store.whenChecked();
    expect(store.get()).toMatchObject({ refused: { reason: 'unchecked', applicationId: 'app_b' } });
    expect(store.get().offer).toBeUndefined();
    expect(checked).toEqual([forged, other]);
    expect([...storage.items.values()]).toEqual([ta]);
  });
});
