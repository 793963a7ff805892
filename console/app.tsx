/** The console's shell: session, header, and the page the route names. */

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiClient, apiBaseFor } from './api';
import { DeliverySearch } from './components/delivery-search';
import { formatTime } from './format';
import { ConnectionPage } from './pages/connection';
import { ConnectionsPage } from './pages/connections';
import { DeliveriesPage } from './pages/deliveries';
import { DeliveryPage } from './pages/delivery';
import { SessionPage } from './pages/expired';
import { NewConnectionPage } from './pages/new-connection';
import { SwitchQuestion } from './pages/switch';
import { href, navigate, type Route, useRoute } from './router';
import { isLive, type RefusedLink } from './session';
import type { ConsoleState, SessionStore } from './session-store';

const TITLES: Record<Route['page'], string> = {
  connections: 'CRM Connections',
  'new-connection': 'Add connection',
  connection: 'Connection',
  delivery: 'Delivery',
  deliveries: 'Deliveries',
  'not-found': 'Not found',
};

function useStore(store: SessionStore): ConsoleState {
  const [state, setState] = useState(store.get());
  useEffect(() => {
    setState(store.get());
    return store.subscribe(() => setState(store.get()));
  }, [store]);
  return state;
}

export function App({ store }: { store: SessionStore }) {
  const { session, offer, refused, ended, checking } = useStore(store);
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(true);
  // A new page: say so in the tab's title, and move focus to the page so a screen reader starts there.
  useEffect(() => {
    document.title = `${offer ? 'Switch application?' : TITLES[route.page]} · Webhooks`;
    if (firstRoute.current) firstRoute.current = false;
    else if (!offer) main.current?.focus();
  }, [route, offer]);
  const api = useMemo(
    () =>
      typeof session === 'object' &&
      new ApiClient({
        baseUrl: apiBaseFor(window.location.href),
        applicationId: session.applicationId,
        token: session.token,
        onUnauthorized: (error) => store.end(error.code === 'session_expired' ? 'expired' : 'invalid'),
      }),
    [session, store],
  );
  if (session === 'invalid') return <SessionPage reason="invalid" />;
  if (!session || !api) return <SessionPage reason="missing" />;
  const over = ended ?? (isLive(session, Date.now()) ? undefined : 'expired');
  if (over) return <SessionPage reason={over} applicationId={session.applicationId} />;

  return (
    <>
      <header class="topbar">
        <a class="brand" href={href.connections()}>
          Webhooks
        </a>
        <span class="app-id" title="Application">
          {session.applicationId}
        </span>
        <a class="nav-link" href={href.deliveries()}>
          Deliveries
        </a>
        {session.expiresAt && (
          <span class="session-note">Session ends {formatTime(session.expiresAt.toISOString())}</span>
        )}
        <DeliverySearch />
      </header>
      {/* A new session is a new console: every page loads again with it. */}
      <main class="content" ref={main} tabIndex={-1} key={session.token}>
        {offer ? (
          <SwitchQuestion
            current={session.applicationId}
            offered={offer.applicationId}
            onSwitch={() => {
              store.accept();
              navigate(href.connections());
            }}
            onStay={() => store.decline()}
          />
        ) : (
          <>
            {checking && (
              <p class="note" role="status">
                Checking the link you opened…
              </p>
            )}
            {refused && (
              <div class="note notice" role="status">
                <p>
                  {refusedText(refused)} This tab is still signed in to {session.applicationId}.
                </p>
                <button type="button" class="button subtle" onClick={() => store.dismissRefused()}>
                  Dismiss
                </button>
              </div>
            )}
            <RoutePage api={api} route={route} />
          </>
        )}
      </main>
    </>
  );
}

function refusedText(refused: RefusedLink): string {
  const app = refused.applicationId ? ` for ${refused.applicationId}` : '';
  if (refused.reason === 'expired') return `The link you opened${app} has expired.`;
  if (refused.reason === 'unchecked')
    return `The link you opened${app} was not used: the API could not be asked whether it is valid. Open it again in a moment.`;
  return 'The link you opened is not a valid console link.';
}

function RoutePage({ api, route }: { api: ApiClient; route: Route }) {
  switch (route.page) {
    case 'connections':
      return <ConnectionsPage api={api} />;
    case 'new-connection':
      return <NewConnectionPage api={api} />;
    case 'connection':
      return <ConnectionPage api={api} connectionId={route.connectionId} />;
    case 'delivery':
      return <DeliveryPage api={api} deliveryId={route.deliveryId} connectionId={route.connectionId} />;
    case 'deliveries':
      return (
        <DeliveriesPage
          api={api}
          filters={{ userId: route.userId, eventId: route.eventId, connectionId: route.connectionId }}
        />
      );
    case 'not-found':
      return (
        <div class="state state-error">
          <p class="state-title">No such page</p>
          <p>
            <a href={href.connections()}>Back to CRM Connections</a>
          </p>
        </div>
      );
  }
}
