/** One connection: edit, enable/disable, delete, secret, test, chart and attempt log. */

import { useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { AttemptLog } from '../components/attempt-log';
import { EnabledBadge, HealthBadge } from '../components/badges';
import { StatsPanel } from '../components/chart';
import { ConnectionForm } from '../components/connection-form';
import { ParkedPanel, RecoveryOffer } from '../components/parked-panel';
import { RateLimitState } from '../components/rate-limit-state';
import { SecretPanel } from '../components/secret-panel';
import { Failed, Loading } from '../components/states';
import { TestPanel } from '../components/test-panel';
import { formatTime, healthParts, recoverySetting } from '../format';
import { href, navigate } from '../router';
import type { Connection } from '../types';
import { useApiIndex } from '../use-api-index';
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
        refresh={refresh}
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
        health={resource.data.health}
        recoveryOff={resource.data.recoveryProbes === false}
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
  refresh,
}: {
  api: ApiClient;
  connection: Connection;
  /** Changes when deliveries were sent or requeued: the parked note reads again. */
  refresh: number;
  onChanged: () => void;
  /** A disabled connection was enabled: the page offers to recover what was parked meanwhile. */
  onEnabled: () => void;
}) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const index = useApiIndex();
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
          <RateLimitState api={api} connectionId={c.connectionId} rateLimit={c.rateLimit} />
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
          <HealthFacts api={api} connection={c} refresh={refresh} />
        </dd>
        <dt>Automatic recovery</dt>
        <dd data-recovery-setting>{recoverySetting(c.recoveryProbes, index)}</dd>
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

/**
 * Health in short labelled parts: the state and what it rests on, when it started failing,
 * whether deliveries are parked, and the last failure and success the dispatcher recorded
 * (healthParts never claims that deliveries succeed).
 */
function HealthFacts({
  api,
  connection: c,
  refresh,
}: {
  api: ApiClient;
  connection: Connection;
  refresh: number;
}) {
  const [parked] = useResource(() => api.listParked(c.connectionId, undefined, 1), [c.connectionId, refresh]);
  const parts = healthParts(c.health, parked.state === 'ready' && parked.data.data.length > 0);
  return (
    <dl class="health-parts">
      {parts.map((p) => (
        <div key={p.label}>
          <dt>{p.label}</dt>
          <dd>{p.value}</dd>
        </div>
      ))}
    </dl>
  );
}
