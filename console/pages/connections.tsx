/** "CRM Connections": every webhook connection of the application. */

import { useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { EnabledBadge, OutcomeBadge } from '../components/badges';
import { Empty, Failed, Loading } from '../components/states';
import { formatTime } from '../format';
import { href, navigate } from '../router';
import type { Connection } from '../types';
import { useResource } from '../use-resource';

/** Connections per page; each row also reads its newest attempt. */
const PAGE_SIZE = 20;

export function ConnectionsPage({ api }: { api: ApiClient }) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors.at(-1);
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
      {page.state === 'ready' && page.data.data.length === 0 && cursors.length === 1 && (
        <Empty title="No connections yet">
          <p>Add a webhook connection to start delivering events to your CRM.</p>
          <a class="button primary" href={href.newConnection()}>
            Add your first connection
          </a>
        </Empty>
      )}
      {page.state === 'ready' && (page.data.data.length > 0 || cursors.length > 1) && (
        <>
          <div class="card flush">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Method</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last attempt</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((c) => (
                  <ConnectionRow key={c.connectionId} api={api} connection={c} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            hasNewer={cursors.length > 1}
            nextCursor={page.data.nextCursor ?? undefined}
            onNewer={() => setCursors(cursors.slice(0, -1))}
            onOlder={(next) => setCursors([...cursors, next])}
          />
        </>
      )}
    </section>
  );
}

/**
 * The connection's newest attempt, read from its attempt log (the API has no health summary
 * yet): its outcome and when, or a dash when there is none or it cannot be read.
 */
function LastAttempt({ api, connectionId }: { api: ApiClient; connectionId: string }) {
  const [last] = useResource(() => api.listAttempts(connectionId, {}, undefined, 1), [connectionId]);
  if (last.state === 'loading') return <span class="muted">…</span>;
  const attempt = last.state === 'ready' ? last.data.data[0] : undefined;
  if (!attempt) return <span class="muted">{last.state === 'error' ? 'unavailable' : 'none yet'}</span>;
  return (
    <span class="last-attempt">
      <OutcomeBadge outcome={attempt.outcome} />
      <span class="muted small nowrap">{formatTime(attempt.requestedAt)}</span>
    </span>
  );
}

function ConnectionRow({ api, connection: c }: { api: ApiClient; connection: Connection }) {
  return (
    <tr>
      <td>
        <a href={href.connection(c.connectionId)} class="strong">
          {c.name}
        </a>
        <div class="muted mono small">{c.connectionId}</div>
      </td>
      <td class="mono break">{c.url}</td>
      <td>
        <span class="method">{c.method}</span>
      </td>
      <td>
        <EnabledBadge enabled={c.enabled} />
      </td>
      <td>
        <LastAttempt api={api} connectionId={c.connectionId} />
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
