/** "CRM Connections": every webhook connection of the application. */

import type { ApiClient } from '../api';
import { EnabledBadge, HealthBadge } from '../components/badges';
import { Empty, Failed, Loading } from '../components/states';
import { formatTime } from '../format';
import { href, navigate } from '../router';
import type { Connection } from '../types';
import { useCursorPages, useResource } from '../use-resource';

/** Connections per page (one request: health comes with each connection). */
const PAGE_SIZE = 20;

export function ConnectionsPage({ api }: { api: ApiClient }) {
  const pages = useCursorPages();
  const { cursor } = pages;
  const [page, reload] = useResource(() => api.listConnections(cursor, PAGE_SIZE), [cursor]);

  return (
    <section>
      <div class="page-head">
        <div>
          <h1>CRM Connections</h1>
          <p class="lede">
            Webhook connections receive this application's events, signed with their own secret.
          </p>
        </div>
        <button type="button" class="button primary" onClick={() => navigate(href.newConnection())}>
          Add connection
        </button>
      </div>
      {page.state === 'loading' && <Loading what="connections" />}
      {page.state === 'error' && <Failed what="connections" error={page.error} retry={reload} />}
      {page.state === 'ready' && page.data.data.length === 0 && pages.onFirstPage && (
        <Empty title="No connections yet">
          <p>Add a webhook connection to start delivering events to your CRM.</p>
          <a class="button primary" href={href.newConnection()}>
            Add your first connection
          </a>
        </Empty>
      )}
      {page.state === 'ready' && (page.data.data.length > 0 || !pages.onFirstPage) && (
        <>
          <div class="card flush">
            <table class="table stack" aria-label="Connections">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Method</th>
                  <th scope="col">Status</th>
                  <th scope="col">Health</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((c) => (
                  <ConnectionRow key={c.connectionId} connection={c} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager nextCursor={page.data.nextCursor ?? undefined} {...pages.pager} />
        </>
      )}
    </section>
  );
}

/**
 * Health, and for a failing or disabled endpoint since when; a healthy one with failures in a
 * row (not failing yet) says how many, so "Healthy" is not read as "deliveries succeed".
 */
function HealthCell({ connection: c }: { connection: Connection }) {
  const { health } = c;
  return (
    <span class="last-attempt">
      <HealthBadge health={health} />
      {health.state !== 'healthy' && health.failingSince && (
        <span class="muted small nowrap">since {formatTime(health.failingSince)}</span>
      )}
      {health.state === 'healthy' && health.consecutiveFailures > 0 && (
        <span class="muted small nowrap">{health.consecutiveFailures} failed in a row</span>
      )}
    </span>
  );
}

function ConnectionRow({ connection: c }: { connection: Connection }) {
  return (
    <tr>
      <td class="stack-full">
        <a href={href.connection(c.connectionId)} class="strong">
          {c.name}
        </a>
        <div class="muted mono small">{c.connectionId}</div>
      </td>
      <td class="mono break" data-label="URL">
        {c.url}
      </td>
      <td data-label="Method">
        <span class="method">{c.method}</span>
      </td>
      <td data-label="Status">
        <EnabledBadge enabled={c.enabled} />
      </td>
      <td data-label="Health">
        <HealthCell connection={c} />
      </td>
    </tr>
  );
}

export function Pager(props: {
  hasNewer: boolean;
  nextCursor: string | undefined;
  onNewer: () => void;
  onOlder: (cursor: string) => void;
  label?: string;
}) {
  if (!props.hasNewer && !props.nextCursor) return null;
  return (
    <nav class="pager" aria-label={props.label ?? 'Pages'}>
      <button type="button" class="button" disabled={!props.hasNewer} onClick={props.onNewer}>
        ← Newer
      </button>
      <button
        type="button"
        class="button"
        disabled={!props.nextCursor}
        onClick={() => props.nextCursor && props.onOlder(props.nextCursor)}
      >
        Older →
      </button>
    </nav>
  );
}
