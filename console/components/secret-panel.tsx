/** "Show Secret": reveal, copy and rotate the connection's signing secret. */

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import type { RotatedSecret, Secret } from '../types';

function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} minutes`;
  return `${Math.round(seconds / 3_600)} hours`;
}

export function SecretPanel({ api, connectionId }: { api: ApiClient; connectionId: string }) {
  const [secret, setSecret] = useState<string>();
  const [busy, setBusy] = useState<'show' | 'rotate'>();
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  // Where focus goes once the panel has re-rendered: to the secret that appeared (Show Secret,
  // Rotate now), or back to Show Secret when it is hidden; never left to fall to <body>.
  const focusNext = useRef<'secret' | 'show' | undefined>(undefined);
  const secretEl = useRef<HTMLElement>(null);
  const showButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusNext.current === 'secret') secretEl.current?.focus();
    if (focusNext.current === 'show') showButton.current?.focus();
    focusNext.current = undefined;
  }, [secret]);

  const run = async (kind: 'show' | 'rotate', call: () => Promise<Secret | RotatedSecret>) => {
    setBusy(kind);
    setError(undefined);
    setNote(undefined);
    try {
      const answer = await call();
      focusNext.current = 'secret';
      setSecret(answer.secret);
      if ('overlapSeconds' in answer)
        setNote(
          `New secret in use. Receivers should accept the old one too for ${formatSeconds(answer.overlapSeconds)} while they switch.`,
        );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(undefined);
      setConfirming(false);
    }
  };

  const copy = async () => {
    if (!secret) return;
    try {
      await navigator.clipboard.writeText(secret);
      setNote('Copied to the clipboard.');
    } catch {
      setNote('The browser refused the clipboard: select the secret and copy it by hand.');
    }
  };

  return (
    <div class="card">
      <h2>Signing secret</h2>
      <p class="muted">
        Your receiver verifies each delivery's signature with this secret. Keep it on your server only.
      </p>
      {secret ? (
        <div class="secret-row">
          <code class="secret" tabIndex={-1} ref={secretEl}>
            {secret}
          </code>
          <button type="button" class="button" onClick={copy}>
            Copy
          </button>
          <button
            type="button"
            class="button"
            onClick={() => {
              focusNext.current = 'show';
              setSecret(undefined);
            }}
          >
            Hide
          </button>
        </div>
      ) : (
        <button
          type="button"
          class="button"
          ref={showButton}
          disabled={busy !== undefined}
          onClick={() => run('show', () => api.showSecret(connectionId))}
        >
          {busy === 'show' ? 'Loading…' : 'Show Secret'}
        </button>
      )}
      <div class="secret-rotate">
        {confirming ? (
          <fieldset class="confirm">
            <legend class="visually-hidden">Confirm rotation</legend>
            <p>
              Rotate the secret? Receivers must switch to the new one; the old one keeps working only for a
              short overlap.
            </p>
            <button
              type="button"
              class="button danger"
              disabled={busy !== undefined}
              onClick={() => run('rotate', () => api.rotateSecret(connectionId))}
            >
              {busy === 'rotate' ? 'Rotating…' : 'Rotate now'}
            </button>
            <button type="button" class="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </fieldset>
        ) : (
          <button type="button" class="button" onClick={() => setConfirming(true)}>
            Rotate
          </button>
        )}
      </div>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
