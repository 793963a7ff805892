/** The console's shell: session, header, and the page the route names. */

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiClient, apiBaseFor } from './api';
import { formatTime } from './format';
import { ConnectionPage } from './pages/connection';
import { ConnectionsPage } from './pages/connections';
import { DeliveryPage } from './pages/delivery';
import { SessionPage } from './pages/expired';
import { NewConnectionPage } from './pages/new-connection';
import { href, type Route, useRoute } from './router';
import { forgetSession, type Session } from './session';

const TITLES: Record<Route['page'], string> = {
  connections: 'CRM Connections',
  'new-connection': 'Add connection',
  connection: 'Connection',
  delivery: 'Delivery',
  'not-found': 'Not found',
};

export function App({ session }: { session: Session | 'invalid' | undefined }) {
  const [ended, setEnded] = useState<'expired' | 'invalid' | undefined>(() =>
    typeof session === 'object' &&
    session.expiresAt !== undefined &&
    session.expiresAt.getTime() <= Date.now()
      ? 'expired'
      : undefined,
  );
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(true);
  // A new page: say so in the tab's title, and move focus to the page so a screen reader starts there.
  useEffect(() => {
    document.title = `${TITLES[route.page]} · Webhooks`;
    if (firstRoute.current) firstRoute.current = false;
    else main.current?.focus();
  }, [route]);
  const api = useMemo(
    () =>
      typeof session === 'object' &&
      new ApiClient({
        baseUrl: apiBaseFor(window.location.href),
        applicationId: session.applicationId,
        token: session.token,
        onUnauthorized: (error) => {
          forgetSession(window.sessionStorage);
          setEnded(error.code === 'session_expired' ? 'expired' : 'invalid');
        },
      }),
    [session],
  );
  if (session === 'invalid') return <SessionPage reason="invalid" />;
  if (!session || !api) return <SessionPage reason="missing" />;
  if (ended) return <SessionPage reason={ended} applicationId={session.applicationId} />;

  return (
    <>
      <header class="topbar">
        <a class="brand" href={href.connections()}>
          Webhooks
        </a>
        <span class="app-id" title="Application">
          {session.applicationId}
        </span>
        {session.expiresAt && (
          <span class="session-note">Session ends {formatTime(session.expiresAt.toISOString())}</span>
        )}
      </header>
      <main class="content" ref={main} tabIndex={-1}>
        {route.page === 'connections' && <ConnectionsPage api={api} />}
        {route.page === 'new-connection' && <NewConnectionPage api={api} />}
        {route.page === 'connection' && <ConnectionPage api={api} connectionId={route.connectionId} />}
        {route.page === 'delivery' && (
          <DeliveryPage api={api} deliveryId={route.deliveryId} connectionId={route.connectionId} />
        )}
        {route.page === 'not-found' && (
          <div class="state state-error">
            <p class="state-title">No such page</p>
            <p>
              <a href={href.connections()}>Back to CRM Connections</a>
            </p>
          </div>
        )}
      </main>
    </>
  );
}
