/** "Send Test": one signed test delivery now, and what the receiver answered. */

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { formatDuration } from '../format';
import { href } from '../router';
import type { Attempt } from '../types';
import { OutcomeBadge } from './badges';
import { FailureAdvice, useLocalMode } from './failure-advice';

export function TestPanel(props: { api: ApiClient; connectionId: string; onSent: () => void }) {
  const [result, setResult] = useState<Attempt>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const local = useLocalMode();
  // After a send, focus moves to what it produced (the result, or why it failed), not to <body>.
  const sent = useRef(false);
  const resultEl = useRef<HTMLElement>(null);
  const errorEl = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!sent.current) return;
    sent.current = false;
    (resultEl.current ?? errorEl.current)?.focus();
  }, [result, error]);

  const send = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await props.api.sendTest(props.connectionId);
      sent.current = true;
      setResult(answer);
      props.onSent();
    } catch (e) {
      sent.current = true;
      setResult(undefined);
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="card">
      <h2>Test delivery</h2>
      <p class="muted">
        Sends one signed test event to the URL at once and shows the answer. It is not held to the rate limit.
      </p>
      <button type="button" class="button primary" onClick={send} disabled={busy}>
        {busy ? 'Sending…' : 'Send Test'}
      </button>
      {error && (
        <p class="form-error" role="alert" tabIndex={-1} ref={errorEl}>
          {error}
        </p>
      )}
      {result && (
        <section class="test-result" aria-label="Test result" tabIndex={-1} ref={resultEl}>
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
          <FailureAdvice attempt={result} local={local} />
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
