/**
 * Entry point: read the session from the fragment (and scrub it), then render. Links that
 * arrive later as a fragment change are read by the same store, whose listener is registered
 * here, before the router's, so the router never sees a token.
 */

import { render } from 'preact';
import { apiBaseFor, verifySession } from './api';
import { App } from './app';
import { SessionStore } from './session-store';

const store = new SessionStore({
  location: window.location,
  history: window.history,
  storage: window.sessionStorage,
  verify: (session) => verifySession(apiBaseFor(window.location.href), session),
});
window.addEventListener('hashchange', (event) => store.onLocationChange(event.oldURL));

const root = document.getElementById('app');
if (root) render(<App store={store} />, root);
