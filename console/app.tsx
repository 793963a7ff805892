/** The console's shell: session, header, and the page the route names. */

import { useMemo, useState } from 'preact/hooks';
import { ApiClient, apiBaseFor } from './api';
import { formatTime } from './format';
import { ConnectionPage } from './pages/connection';
import { ConnectionsPage } from './pages/connections';
import { DeliveryPage } from './pages/delivery';
import { SessionPage } from './pages/expired';
import { NewConnectionPage } from './pages/new-connection';
import { href, useRoute } from './router';
import { forgetSession, type Session } from './session';

export function App({ session }: { session: Session | 'invalid' | undefined }) {
  const [ended, setEnded] = useState<'expired' | 'invalid' | undefined>(() =>
    typeof session === 'object' &&
    session.expiresAt !== undefined &&
    session.expiresAt.getTime() <= Date.now()
      ? 'expired'
      : undefined,
  );
  const route = useRoute();
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
      <main class="content">
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
