/**
 * "Resend": sends a delivery again as its next attempt (same delivery id, freshly signed), shows
 * what the API answered (the new attempt's number, or the 409's reason in words) and moves focus
 * to that answer, as Send Test does. A delivery whose body is not kept cannot be sent again: the
 * panel says why instead of offering a button that can only fail.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import type { Delivery } from '../types';

export function ResendPanel(props: {
  api: ApiClient;
  deliveryId: string;
  onQueued: () => void;
  /** Set when the delivery's body is not kept: Resend has nothing to send. */
  bodyUnavailable?: Delivery['bodyUnavailable'];
}) {
  const [queued, setQueued] = useState<number>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const sent = useRef(false);
  const resultEl = useRef<HTMLParagraphElement>(null);
  const errorEl = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!sent.current) return;
    sent.current = false;
    (resultEl.current ?? errorEl.current)?.focus();
  }, [queued, error]);

  const resend = async () => {
    setBusy(true);
    setError(undefined);
    setQueued(undefined);
    try {
      const answer = await props.api.resendDelivery(props.deliveryId);
      sent.current = true;
      setQueued(answer.attempt);
      props.onQueued();
    } catch (e) {
      sent.current = true;
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (props.bodyUnavailable) {
    return (
      <div class="card">
        <h2>Resend</h2>
        <p class="muted resend-unavailable">
          This delivery cannot be sent again: {props.bodyUnavailable.message}.
        </p>
      </div>
    );
  }

  return (
    <div class="card">
      <h2>Resend</h2>
      <p class="muted">
        Sends this delivery again through the pipeline as its next attempt, freshly signed, whatever its
        outcome so far.
      </p>
      <p class="muted resend-terms">
        It goes to the connection's current URL, method, headers and secret, not those of the first attempt,
        and waits for the connection's rate limit like any delivery (a resent test too).
      </p>
      <button type="button" class="button primary" onClick={resend} disabled={busy}>
        {busy ? 'Resending…' : 'Resend'}
      </button>
      {error && (
        <p class="form-error" role="alert" tabIndex={-1} ref={errorEl}>
          {error}
        </p>
      )}
      {queued !== undefined && (
        <p class="resend-result" role="status" tabIndex={-1} ref={resultEl}>
          Queued again as attempt {queued}.
        </p>
      )}
    </div>
  );
}
