/**
 * The tab's session as state that links change: a link read at start-up, and every link that
 * arrives later as a fragment change (`hashchange`, no reload). Each link's token is taken out
 * of the address bar at once; a token for another application than the tab's live session is
 * offered, kept only in memory, and used only when the user accepts. A token that would replace
 * a live session (a refresh, or an offer) is first checked with the API: the console cannot verify
 * its signature, and a link with a forged token naming the tab's application would otherwise
 * replace a working session with one the API answers 401, signing the user out.
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
  /** A link's token is being checked with the API before it may replace the live session. */
  checking?: boolean;
}

/** What the API said of a link's token: it works, or why it was not used. */
export type LinkCheck = 'accepted' | RefusedLink['reason'];

export interface SessionEnv {
  location: LocationLike;
  history: HistoryLike;
  storage: StorageLike;
  /** Asks the API whether a link's session works (console/api.ts verifySession). */
  verify: (session: Session) => Promise<LinkCheck>;
  now?: () => number;
}

export class SessionStore {
  private state: ConsoleState;
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  /** Counts links read: only the latest link's check may change the state. */
  private links = 0;
  private checked: Promise<void> = Promise.resolve();

  constructor(private readonly env: SessionEnv) {
    this.now = env.now ?? Date.now;
    const stored = storedSession(env.storage);
    this.state = { session: stored };
    this.takeLink();
  }

  get(): ConsoleState {
    return this.state;
  }

  /** Resolves once the latest link's check (if any) has changed the state. */
  whenChecked(): Promise<void> {
    return this.checked;
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

  /** Reads a link's token, if the location carries one; true when the user will be asked. */
  private takeLink(): boolean {
    const token = takeTokenFromLocation(this.env.location, this.env.history);
    if (token === undefined) return false;
    const link = ++this.links;
    const current =
      typeof this.state.session === 'object' && !this.state.ended ? this.state.session : undefined;
    const decision = decideLink(current, token, this.now());
    switch (decision.action) {
      case 'use':
        // Nothing working to replace: the token is used as it is (a 401 then shows the invalid page).
        if (!current) {
          keepSession(this.env.storage, decision.session);
          this.set({ session: decision.session });
          return false;
        }
        this.check(link, decision.session, current, () => {
          keepSession(this.env.storage, decision.session);
          this.set({ session: decision.session });
        });
        return false;
      case 'ask':
        this.check(link, decision.offered, decision.current, () =>
          this.set({ ...this.state, checking: undefined, offer: decision.offered }),
        );
        return true;
      case 'keep':
        this.set({ session: decision.current, refused: decision.refused });
        return false;
      case 'invalid':
        this.set({ session: 'invalid' });
        return false;
    }
  }

  /** Asks the API about `offered`; only an accepted token goes on (`then`), else `current` stays. */
  private check(link: number, offered: Session, current: Session, then: () => void): void {
    this.set({ session: current, checking: true });
    this.checked = this.env
      .verify(offered)
      .catch((): LinkCheck => 'unchecked')
      .then((answer) => {
        if (link !== this.links) return;
        if (answer === 'accepted') return then();
        const refused: RefusedLink = { reason: answer, applicationId: offered.applicationId };
        this.set({ ...this.state, checking: undefined, refused });
      });
  }

  private set(state: ConsoleState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}
