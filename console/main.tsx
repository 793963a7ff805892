/** Entry point: read the session from the fragment (and scrub it), then render. */

import { render } from 'preact';
import { App } from './app';
import { loadSession } from './session';

const root = document.getElementById('app');
if (root) render(<App session={loadSession(window.location, window.history, window.sessionStorage)} />, root);
