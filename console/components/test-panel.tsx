/** "Send Test": one signed test delivery now, and what the receiver answered. */

import { useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { formatDuration } from '../format';
import { href } from '../router';
import type { Attempt } from '../types';
import { OutcomeBadge } from './badges';

export function TestPanel(props: { api: ApiClient; connectionId: string; onSent: () => void }) {
  const [result, setResult] = useState<Attempt>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const send = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await props.api.sendTest(props.connectionId));
      props.onSent();
    } catch (e) {
      setResult(undefined);
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="card">
      <h2>Test delivery</h2>
      <p class="muted">Sends one signed test event to the URL now and shows the answer.</p>
      <button type="button" class="button primary" onClick={send} disabled={busy}>
        {busy ? 'Sending…' : 'Send Test'}
      </button>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <section class="test-result" aria-label="Test result" aria-live="polite">
          <dl class="facts">
            <dt>Outcome</dt>
            <dd>
              <OutcomeBadge outcome={result.outcome} />
            </dd>
            <dt>Status</dt>
            <dd>{result.statusCode ?? '—'}</dd>
            <dt>Duration</dt>
            <dd>{formatDuration(result.durationMs)}</dd>
            <dt>Delivery</dt>
            <dd>
              <a class="mono" href={href.delivery(result.deliveryId, props.connectionId)}>
                {result.deliveryId}
              </a>
            </dd>
          </dl>
          {result.error && <p class="form-error">{result.error}</p>}
          <h3>Response</h3>
          {result.responseSnippet ? (
            <pre class="snippet">{result.responseSnippet}</pre>
          ) : (
            <p class="muted">The receiver sent no body.</p>
          )}
        </section>
      )}
    </div>
  );
}
