/**
 * The tab's session as state that links change: a link read at start-up, and every link that
 * arrives later as a fragment change (`hashchange`, no reload). Each link's token is taken out
 * of the address bar at once; a token for another application than the tab's live session is
 * offered, kept only in memory, and used only when the user accepts.
 */

import {
  decideLink,
  forgetSession,
  type HistoryLike,
  keepSession,
  type LocationLike,
  type RefusedLink,
  type Session,
  type StorageLike,
  splitToken,
  storedSession,
  takeTokenFromLocation,
} from './session';

export interface ConsoleState {
  /** The session the console uses; `'invalid'` when the only token there is names no application. */
  session: Session | 'invalid' | undefined;
  /** A link's session for another application, waiting for the user's answer. */
  offer?: Session;
  /** A link that was not used (the tab kept its live session), to say so once. */
  refused?: RefusedLink;
  /** The API refused the session (a 401): the console shows why and how to get a new link. */
  ended?: 'expired' | 'invalid';
}

export interface SessionEnv {
  location: LocationLike;
  history: HistoryLike;
  storage: StorageLike;
  now?: () => number;
}

export class SessionStore {
  private state: ConsoleState;
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;

  constructor(private readonly env: SessionEnv) {
    this.now = env.now ?? Date.now;
    const stored = storedSession(env.storage);
    this.state = { session: stored };
    this.takeLink();
  }

  get(): ConsoleState {
    return this.state;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The fragment changed (a link opened in this tab, or the console's own navigation). When it
   * carries a token and the user is asked, the address bar goes back to where the tab was
   * (`previousUrl`, the event's oldURL), so the question does not move them.
   */
  onLocationChange(previousUrl?: string): void {
    const asked = this.takeLink();
    if (asked && previousUrl) {
      const before = new URL(previousUrl);
      const { rest } = splitToken(before.hash);
      this.env.history.replaceState(null, '', `${before.pathname}${before.search}${rest}`);
    }
  }

  /** Switch to the offered application. */
  accept(): void {
    const offer = this.state.offer;
    if (!offer) return;
    keepSession(this.env.storage, offer);
    this.set({ session: offer });
  }

  /** Stay in the current application; the offered token is dropped. */
  decline(): void {
    if (this.state.offer) this.set({ session: this.state.session });
  }

  dismissRefused(): void {
    if (this.state.refused) this.set({ ...this.state, refused: undefined });
  }

  /** The API refused the session: it is forgotten (a reload does not bring it back). */
  end(reason: 'expired' | 'invalid'): void {
    forgetSession(this.env.storage);
    this.set({ session: this.state.session, ended: reason });
  }

  /** Reads a link's token, if the location carries one; true when the user is now asked. */
  private takeLink(): boolean {
    const token = takeTokenFromLocation(this.env.location, this.env.history);
    if (token === undefined) return false;
    const current =
      typeof this.state.session === 'object' && !this.state.ended ? this.state.session : undefined;
    const decision = decideLink(current, token, this.now());
    switch (decision.action) {
      case 'use':
        keepSession(this.env.storage, decision.session);
        this.set({ session: decision.session });
        return false;
      case 'ask':
        this.set({ session: decision.current, offer: decision.offered });
        return true;
      case 'keep':
        this.set({ session: decision.current, refused: decision.refused });
        return false;
      case 'invalid':
        this.set({ session: 'invalid' });
        return false;
    }
  }

  private set(state: ConsoleState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}
