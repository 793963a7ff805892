/**
 * "Show Secret": reveal, copy and rotate the connection's signing secret. A rotation makes a new
 * secret at once and switches deliveries to it at its switch time (docs/console.md): until then
 * the panel shows both, as Show Secret answers, with the time.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import { formatTime } from '../format';
import type { RotateSecretChoice, Secret } from '../types';

/** When a rotation switches, as the confirmation offers it. */
const SWITCH_CHOICES: ReadonlyArray<{ value: string; label: string; choice?: RotateSecretChoice }> = [
  { value: 'default', label: "after the deployment's overlap (24 h by default)" },
  { value: 'hour', label: 'in 1 hour', choice: { switchAfter: 3_600 } },
  {
    value: 'now',
    label: 'at once (the current secret stops signing)',
    choice: { switchAfter: 0 },
  },
];

function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso)}
    </time>
  );
}

function SecretRow(props: {
  secret: string;
  which: 'current' | 'next';
  copy: (s: string) => void;
  focusRef?: { current: HTMLElement | null };
}) {
  return (
    <div class="secret-row">
      <code class="secret" tabIndex={-1} ref={props.focusRef} data-secret={props.which}>
        {props.secret}
      </code>
      <button type="button" class="button" onClick={() => props.copy(props.secret)}>
        Copy
      </button>
    </div>
  );
}

export function SecretPanel({ api, connectionId }: { api: ApiClient; connectionId: string }) {
  const [shown, setShown] = useState<Secret>();
  const [busy, setBusy] = useState<'show' | 'rotate'>();
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [when, setWhen] = useState('default');
  // Where focus goes once the panel has re-rendered: to the secret that appeared (Show Secret,
  // Rotate now), or back to Show Secret when it is hidden; never left to fall to <body>.
  const focusNext = useRef<'secret' | 'show' | undefined>(undefined);
  const secretEl = useRef<HTMLElement>(null);
  const showButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusNext.current === 'secret') secretEl.current?.focus();
    if (focusNext.current === 'show') showButton.current?.focus();
    focusNext.current = undefined;
  }, [shown]);

  const run = async (kind: 'show' | 'rotate') => {
    setBusy(kind);
    setError(undefined);
    setNote(undefined);
    try {
      if (kind === 'rotate') {
        const choice = SWITCH_CHOICES.find((c) => c.value === when)?.choice;
        const rotated = await api.rotateSecret(connectionId, choice);
        setNote(
          Date.parse(rotated.switchAt) <= Date.now()
            ? 'New secret in use at once: the old one no longer signs deliveries.'
            : `New secret made. It signs deliveries from ${formatTime(rotated.switchAt)}; until then the current one does. Have your receiver accept both now.`,
        );
      }
      // Show what Show Secret answers, after a rotation too: the same secrets and times everywhere.
      const answer = await api.showSecret(connectionId);
      focusNext.current = 'secret';
      setShown(answer);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(undefined);
      setConfirming(false);
    }
  };

  const copy = async (secret: string) => {
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
      {shown ? (
        <div class="secrets">
          <p class="secret-label">{shown.next ? 'Current secret (signs deliveries now)' : 'Secret'}</p>
          <SecretRow secret={shown.secret} which="current" copy={copy} focusRef={secretEl} />
          {shown.next && (
            <div class="secret-next">
              <p class="secret-label">
                Next secret, signs deliveries from <Time iso={shown.next.switchAt} />
              </p>
              <SecretRow secret={shown.next.secret} which="next" copy={copy} />
              <p class="muted">
                Until then the current secret signs. Have your receiver accept both now (verifyWebhook takes a
                list of secrets), and drop the current one after the switch.
              </p>
            </div>
          )}
          <button
            type="button"
            class="button"
            onClick={() => {
              focusNext.current = 'show';
              setShown(undefined);
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
          onClick={() => run('show')}
        >
          {busy === 'show' ? 'Loading…' : 'Show Secret'}
        </button>
      )}
      <div class="secret-rotate">
        {confirming ? (
          <fieldset class="confirm">
            <legend class="visually-hidden">Confirm rotation</legend>
            <p>
              Rotate the secret? A new secret is made now; deliveries keep being signed with the current one
              until the switch. Rotating again before the switch replaces the new secret.
            </p>
            <label for={`switch-${connectionId}`}>Switch to the new secret</label>{' '}
            <select
              id={`switch-${connectionId}`}
              value={when}
              onChange={(e) => setWhen((e.target as HTMLSelectElement).value)}
            >
              {SWITCH_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="button danger"
              disabled={busy !== undefined}
              onClick={() => run('rotate')}
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
