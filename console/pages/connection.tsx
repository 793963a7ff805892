/** One connection: edit, enable/disable, delete, secret, test, chart and attempt log. */

import { useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { AttemptLog } from '../components/attempt-log';
import { EnabledBadge, HealthBadge } from '../components/badges';
import { StatsPanel } from '../components/chart';
import { ConnectionForm } from '../components/connection-form';
import { ParkedPanel, RecoveryOffer } from '../components/parked-panel';
import { SecretPanel } from '../components/secret-panel';
import { Failed, Loading } from '../components/states';
import { TestPanel } from '../components/test-panel';
import { formatTime } from '../format';
import { href, navigate } from '../router';
import type { Connection } from '../types';
import { useResource } from '../use-resource';

export function ConnectionPage({ api, connectionId }: { api: ApiClient; connectionId: string }) {
  const [resource, reload] = useResource(() => api.getConnection(connectionId), [connectionId]);
  const [refresh, setRefresh] = useState(0);
  const [justEnabled, setJustEnabled] = useState(false);
  const crumbs = (
    <nav class="crumbs" aria-label="Breadcrumb">
      <a href={href.connections()}>CRM Connections</a> <span aria-hidden="true">/</span>{' '}
      {resource.state === 'ready' ? resource.data.name : connectionId}
    </nav>
  );
  if (resource.state === 'loading')
    return (
      <section>
        {crumbs}
        <Loading what="the connection" />
      </section>
    );
  if (resource.state === 'error')
    return (
      <section>
        {crumbs}
        <Failed what="the connection" error={resource.error} retry={reload} />
      </section>
    );
  return (
    <section>
      {crumbs}
      <Overview
        api={api}
        connection={resource.data}
        onChanged={reload}
        onEnabled={() => setJustEnabled(true)}
      />
      {justEnabled && resource.data.enabled && (
        <RecoveryOffer api={api} connectionId={connectionId} onRequeued={() => setRefresh((r) => r + 1)} />
      )}
      <div class="grid two">
        <SecretPanel api={api} connectionId={connectionId} />
        <TestPanel api={api} connectionId={connectionId} onSent={() => setRefresh((r) => r + 1)} />
      </div>
      <StatsPanel api={api} connectionId={connectionId} refresh={refresh} />
      <ParkedPanel
        api={api}
        connectionId={connectionId}
        enabled={resource.data.enabled}
        refresh={refresh}
        onRequeued={() => setRefresh((r) => r + 1)}
      />
      <AttemptLog api={api} connectionId={connectionId} refresh={refresh} />
    </section>
  );
}

function Overview({
  api,
  connection: c,
  onChanged,
  onEnabled,
}: {
  api: ApiClient;
  connection: Connection;
  onChanged: () => void;
  /** A disabled connection was enabled: the page offers to recover what was parked meanwhile. */
  onEnabled: () => void;
}) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const act = async (call: () => Promise<unknown>, after: () => void) => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      after();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (mode === 'edit')
    return (
      <div class="card">
        <h1>Edit connection</h1>
        <ConnectionForm
          initial={c}
          submitLabel="Save changes"
          busyLabel="Saving…"
          onSubmit={async (input) => {
            await api.updateConnection(c.connectionId, input);
            setMode('view');
            onChanged();
          }}
          onCancel={() => setMode('view')}
        />
      </div>
    );

  const headerNames = Object.keys(c.headers ?? {});
  return (
    <div class="card overview">
      <div class="page-head">
        <div>
          <h1>
            {c.name} <EnabledBadge enabled={c.enabled} /> <HealthBadge health={c.health} />
          </h1>
          <p class="mono break">
            <span class="method">{c.method}</span> {c.url}
          </p>
        </div>
        <div class="actions">
          <button type="button" class="button" onClick={() => setMode('edit')} disabled={busy}>
            Edit
          </button>
          <button
            type="button"
            class="button"
            disabled={busy}
            onClick={() =>
              act(
                () => api.updateConnection(c.connectionId, { enabled: !c.enabled }),
                () => {
                  if (!c.enabled) onEnabled();
                  onChanged();
                },
              )
            }
          >
            {c.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" class="button danger" onClick={() => setMode('delete')} disabled={busy}>
            Delete
          </button>
        </div>
      </div>
      <dl class="facts">
        <dt>Type</dt>
        <dd>Webhook</dd>
        <dt>Connection id</dt>
        <dd class="mono">{c.connectionId}</dd>
        <dt>Health</dt>
        <dd>
          <HealthFacts connection={c} />
        </dd>
        <dt>Headers</dt>
        <dd>{headerNames.length ? headerNames.join(', ') : <span class="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd>{formatTime(c.createdAt)}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(c.updatedAt)}</dd>
      </dl>
      {!c.enabled && (
        <p class="note">
          Disabled: new events are not sent to this connection; they are parked until you enable it and
          recover them.
        </p>
      )}
      {mode === 'delete' && (
        <div class="confirm danger-zone" role="alertdialog" aria-label="Confirm delete">
          <p>
            Delete <strong>{c.name}</strong> and its secret? Events are no longer delivered to it. This cannot
            be undone.
          </p>
          <button
            type="button"
            class="button danger"
            disabled={busy}
            onClick={() =>
              act(
                () => api.deleteConnection(c.connectionId),
                () => navigate(href.connections()),
              )
            }
          >
            {busy ? 'Deleting…' : 'Delete connection'}
          </button>
          <button type="button" class="button" onClick={() => setMode('view')} disabled={busy}>
            Cancel
          </button>
        </div>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Health in words: what state, since when, the last success and failure the dispatcher recorded. */
function HealthFacts({ connection: c }: { connection: Connection }) {
  const h = c.health;
  const parts: string[] = [];
  if (h.state === 'healthy') parts.push('Healthy: deliveries succeed');
  else
    parts.push(
      `${h.state === 'failing' ? 'Failing' : 'Disabled after failing'}: ${h.consecutiveFailures} ${h.consecutiveFailures === 1 ? 'delivery' : 'deliveries'} in a row failed on every attempt${h.failingSince ? ` since ${formatTime(h.failingSince)}` : ''}`,
    );
  if (h.lastFailureAt) parts.push(`last failure ${formatTime(h.lastFailureAt)}`);
  if (h.lastSuccessAt) parts.push(`last success after a failure ${formatTime(h.lastSuccessAt)}`);
  return <span>{parts.join('; ')}</span>;
}
