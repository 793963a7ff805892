/**
 * The console's session: a short-lived token that arrives in the URL fragment
 * (`…/console/#token=<token>`), is kept in sessionStorage (this tab only) and is removed from
 * the address bar at once, so it is neither bookmarked, shared by copy-paste nor kept in history.
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

/** The token of the fragment, removed from the address bar; the fragment's other parts stay. */
export function takeTokenFromLocation(loc: LocationLike, history: HistoryLike): string | undefined {
  const hash = loc.hash.replace(/^#/, '');
  if (!hash) return undefined;
  const params = new URLSearchParams(hash);
  const token = params.get(TOKEN_PARAM);
  if (token === null) return undefined;
  params.delete(TOKEN_PARAM);
  const rest = params.toString();
  history.replaceState(null, '', `${loc.pathname}${loc.search}${rest ? `#${rest}` : ''}`);
  return token;
}

/**
 * The current session (a token in the fragment wins over the stored one), `'invalid'` for a
 * token that names no application, undefined when there is no token at all.
 */
export function loadSession(
  loc: LocationLike,
  history: HistoryLike,
  storage: StorageLike,
): Session | 'invalid' | undefined {
  const fresh = takeTokenFromLocation(loc, history);
  if (fresh !== undefined) storage.setItem(STORAGE_KEY, fresh);
  const token = fresh ?? storage.getItem(STORAGE_KEY) ?? undefined;
  if (!token) return undefined;
  return sessionFromToken(token) ?? 'invalid';
}

export function forgetSession(storage: StorageLike): void {
  storage.removeItem(STORAGE_KEY);
}
