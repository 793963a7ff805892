/**
 * The console's session: a short-lived token that arrives in the URL fragment
 * (`…/console/#token=<token>`), is kept in sessionStorage (this tab only) and is removed from
 * the address bar at once, so it is neither bookmarked, shared by copy-paste nor kept in history.
 * A link for another application than the tab's live session is only offered (kept in memory)
 * until the user says to switch: a link someone else made never silently changes the tab's
 * application (console/session-store.ts).
 */

const STORAGE_KEY = 'webhooks.console.session';
const TOKEN_PARAM = 'token';

export interface Session {
  token: string;
  /** The application the token names (read from its claims; the API enforces it). */
  applicationId: string;
  /** When the token stops working, if it says. */
  expiresAt?: Date;
}

/** The parts of the browser's objects the session uses (so tests can hand in their own). */
export interface LocationLike {
  hash: string;
  pathname: string;
  search: string;
}
export interface HistoryLike {
  replaceState(data: unknown, unused: string, url?: string): void;
}
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The claims of a JWT, read but not verified (only the API can verify; this only routes). */
export function readClaims(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '='));
    const claims: unknown = JSON.parse(
      new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))),
    );
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The session a token describes, or undefined when the token names no application. */
export function sessionFromToken(token: string): Session | undefined {
  const claims = readClaims(token);
  if (!claims) return undefined;
  const app = [claims.applicationId, claims.app, claims.sub].find(
    (v): v is string => typeof v === 'string' && v.startsWith('app_'),
  );
  if (!app) return undefined;
  const session: Session = { token, applicationId: app };
  if (typeof claims.exp === 'number') session.expiresAt = new Date(claims.exp * 1000);
  return session;
}

/** A fragment's token, and the fragment without it (`''` or `#…`). */
export function splitToken(hash: string): { token: string | undefined; rest: string } {
  const text = hash.replace(/^#/, '');
  if (!text) return { token: undefined, rest: '' };
  const params = new URLSearchParams(text);
  const token = params.get(TOKEN_PARAM);
  if (token === null) return { token: undefined, rest: hash };
  params.delete(TOKEN_PARAM);
  const rest = params.toString();
  return { token, rest: rest ? `#${rest}` : '' };
}

/** The token of the fragment, removed from the address bar; the fragment's other parts stay. */
export function takeTokenFromLocation(loc: LocationLike, history: HistoryLike): string | undefined {
  const { token, rest } = splitToken(loc.hash);
  if (token === undefined) return undefined;
  history.replaceState(null, '', `${loc.pathname}${loc.search}${rest}`);
  return token;
}

/** Whether a session still works by its own claim (the API has the last word). */
export function isLive(session: Session, now: number): boolean {
  return session.expiresAt === undefined || session.expiresAt.getTime() > now;
}

/**
 * What to do with a token a link brought, given the tab's current session:
 * - `use`: adopt it (no live session yet, or the same application's session, refreshed);
 * - `ask`: it names another application than the tab's live session: the user decides;
 * - `keep`: it cannot be used (names no application, or expired) and a live session stays;
 * - `invalid`: it cannot be used and there is no live session.
 * Only the API can verify a token's signature: a `use` or `ask` that would replace a live session
 * is checked with the API first (console/session-store.ts), so a forged link never signs a tab out.
 */
export type LinkDecision =
  | { action: 'use'; session: Session }
  | { action: 'ask'; current: Session; offered: Session }
  | { action: 'keep'; current: Session; refused: RefusedLink }
  | { action: 'invalid' };

/**
 * A link that was not used, and why: `invalid` (it names no application, or the API refused its
 * token), `expired`, or `unchecked` (the API could not be asked, so it did not replace anything).
 */
export interface RefusedLink {
  reason: 'invalid' | 'expired' | 'unchecked';
  /** The application the link named, when it named one. */
  applicationId?: string;
}

export function decideLink(current: Session | undefined, token: string, now: number): LinkDecision {
  const offered = sessionFromToken(token);
  const live = current && isLive(current, now) ? current : undefined;
  if (!offered)
    return live ? { action: 'keep', current: live, refused: { reason: 'invalid' } } : { action: 'invalid' };
  if (!live) return { action: 'use', session: offered };
  if (!isLive(offered, now))
    return {
      action: 'keep',
      current: live,
      refused: { reason: 'expired', applicationId: offered.applicationId },
    };
  if (offered.applicationId === live.applicationId) return { action: 'use', session: offered };
  return { action: 'ask', current: live, offered };
}

/** The session kept for this tab (sessionStorage), if any; `'invalid'` when it names no application. */
export function storedSession(storage: StorageLike): Session | 'invalid' | undefined {
  const token = storage.getItem(STORAGE_KEY);
  if (!token) return undefined;
  return sessionFromToken(token) ?? 'invalid';
}

export function keepSession(storage: StorageLike, session: Session): void {
  storage.setItem(STORAGE_KEY, session.token);
}

export function forgetSession(storage: StorageLike): void {
  storage.removeItem(STORAGE_KEY);
}
