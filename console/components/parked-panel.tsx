/**
 * "Parked deliveries" (docs/design.md §9): what failed for good, or met a disabled connection or a
 * refused destination, with its reason and last error; Retry sends one again, Recover sends
 * them all (or those since a time) again, oldest first, at a bounded rate. Same delivery ids
 * and bodies: receivers that de-duplicate on the delivery id see each at most once more.
 */

import { useState } from 'preact/hooks';
import { RECOVERY_OFF, recoveryStatus } from '../../lambdas/core/recovery-status';
import type { ApiClient } from '../api';
import { deliveryCreatedAt, formatTime, PARK_REASON_LABELS } from '../format';
import { Pager } from '../pages/connections';
import { href } from '../router';
import type { Health, ParkedDelivery, RecoverResult } from '../types';
import { useCursorPages, useResource } from '../use-resource';
import { Empty, Failed, Loading } from './states';

const PAGE_SIZE = 10;

/** The time ranges Recover offers, as the API's `since`. */
export const RECOVER_RANGES = [
  { value: '1h', label: 'the last hour' },
  { value: '24h', label: 'the last 24 hours' },
  { value: '7d', label: 'the last 7 days' },
  { value: '', label: 'all parked deliveries' },
] as const;

export function ParkedPanel(props: {
  api: ApiClient;
  connectionId: string;
  /** The connection is enabled: recovering a disabled one would only park them again. */
  enabled: boolean;
  /** Its health: when the endpoint went down and when the next recovery check is. */
  health?: Health;
  /** The connection's own switch is off: no check is made, parked deliveries wait for Recover. */
  recoveryOff?: boolean;
  refresh: number;
  onRequeued: () => void;
}) {
  const { api, connectionId } = props;
  const pages = useCursorPages();
  const { cursor } = pages;
  const [generation, setGeneration] = useState(0);
  const [page, reload] = useResource(
    () => api.listParked(connectionId, cursor, PAGE_SIZE),
    [connectionId, cursor, props.refresh, generation],
  );
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();

  const afterRequeue = (text: string) => {
    setMessage(text);
    pages.reset();
    setGeneration((g) => g + 1);
    props.onRequeued();
  };

  const retry = async (p: ParkedDelivery) => {
    setBusy(p.deliveryId);
    setError(undefined);
    setMessage(undefined);
    try {
      await api.retryDelivery(p.deliveryId);
      afterRequeue(`Delivery ${p.deliveryId} is queued again (attempt ${p.attempts + 1} next).`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(undefined);
    }
  };

  const empty = page.state === 'ready' && page.data.data.length === 0 && pages.onFirstPage;
  const probesOff = props.recoveryOff === true;
  const status =
    recoveryStatus(props.health, formatTime, { probesOff }) ??
    (probesOff && page.state === 'ready' && !empty ? RECOVERY_OFF : undefined);
  return (
    <section class="card" aria-labelledby="parked-title">
      <div class="card-head">
        <h2 id="parked-title">Parked deliveries</h2>
        <button type="button" class="button subtle" onClick={reload}>
          Refresh
        </button>
      </div>
      <p class="muted">
        Deliveries that failed on every attempt, or met a disabled connection or a refused destination, are
        kept here with their exact body. Fix the endpoint, then send them again: Retry and Recover send to the
        connection's current URL, method, headers and secret, and wait for its rate limit like any delivery.
      </p>
      {status && (
        <p class="note" data-recovery-status>
          {status}
        </p>
      )}
      {!empty && page.state === 'ready' && (
        <RecoverControl
          id="parked-recover-since"
          api={api}
          connectionId={connectionId}
          enabled={props.enabled}
          onDone={(r) =>
            afterRequeue(
              `${r.requeued} ${r.requeued === 1 ? 'delivery is' : 'deliveries are'} queued again, oldest first${r.remaining ? `; ${r.remaining} still parked: recover again to send them` : ''}.`,
            )
          }
          onError={setError}
        />
      )}
      {message && (
        <p class="note" role="status">
          {message}
        </p>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {page.state === 'loading' && <Loading what="parked deliveries" />}
      {page.state === 'error' && <Failed what="parked deliveries" error={page.error} retry={reload} />}
      {empty && (
        <Empty title="Nothing parked">
          <p class="muted">Every delivery to this connection either arrived or is still being retried.</p>
        </Empty>
      )}
      {page.state === 'ready' && page.data.data.length > 0 && (
        <div class="table-scroll">
          <table class="table stack" aria-label="Parked deliveries">
            <caption class="table-caption">
              Newest events first (Event time); Parked is when each was parked, later for one retried since.
            </caption>
            <thead>
              <tr>
                <th scope="col">Event time</th>
                <th scope="col">Parked</th>
                <th scope="col">Reason</th>
                <th scope="col">Last error</th>
                <th scope="col">Attempts</th>
                <th scope="col">
                  <span class="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((p) => (
                <tr key={p.deliveryId}>
                  <td data-label="Event time">
                    <div>
                      <a href={href.delivery(p.deliveryId, connectionId)}>
                        {formatTime(deliveryCreatedAt(p.deliveryId))}
                      </a>
                      <div class="muted mono small break">{p.deliveryId}</div>
                    </div>
                  </td>
                  <td class="nowrap" data-label="Parked">
                    {formatTime(p.parkedAt)}
                  </td>
                  <td data-label="Reason">{PARK_REASON_LABELS[p.reason] ?? p.reason}</td>
                  <td class="break" data-label="Last error">
                    {p.lastStatusCode ? `HTTP ${p.lastStatusCode}` : ''}
                    {p.lastStatusCode && p.lastError ? ': ' : ''}
                    {p.lastError ?? (p.lastStatusCode ? '' : '—')}
                  </td>
                  <td data-label="Attempts">{p.attempts}</td>
                  <td class="stack-full">
                    <button
                      type="button"
                      class="button"
                      disabled={busy !== undefined}
                      aria-label={`Retry delivery ${p.deliveryId}`}
                      onClick={() => retry(p)}
                    >
                      {busy === p.deliveryId ? 'Retrying…' : 'Retry'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.state === 'ready' && (
        <Pager
          label="Parked delivery pages"
          nextCursor={page.data.nextCursor ?? undefined}
          {...pages.pager}
        />
      )}
    </section>
  );
}

/** Recover with a time range, after a confirmation that says what will happen. */
export function RecoverControl(props: {
  /** Id of the range select (unique on the page: the offer and the panel may both show one). */
  id: string;
  api: ApiClient;
  connectionId: string;
  enabled: boolean;
  onDone: (result: RecoverResult) => void;
  onError: (message: string) => void;
}) {
  const [since, setSince] = useState<string>('24h');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const range = RECOVER_RANGES.find((r) => r.value === since) ?? RECOVER_RANGES[1];

  const recover = async () => {
    setBusy(true);
    try {
      props.onDone(await props.api.recover(props.connectionId, since || undefined));
      setConfirming(false);
    } catch (e) {
      props.onError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (!props.enabled)
    return (
      <p class="note">
        This connection is disabled: enable it first, or recovered deliveries would only be parked again.
      </p>
    );
  return (
    <div class="recover">
      <label for="recover-since">Recover deliveries of</label>
      <select
        id="recover-since"
        value={since}
        onChange={(e) => setSince((e.target as HTMLSelectElement).value)}
      >
        {RECOVER_RANGES.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </select>
      <button
        type="button"
        class="button primary"
        onClick={() => setConfirming(true)}
        disabled={busy || confirming}
      >
        Recover
      </button>
      {confirming && (
        <div class="confirm" role="alertdialog" aria-label="Confirm recover">
          <p>
            Send the parked deliveries of {range.label} again, oldest first, at a gentle pace? Each keeps its
            delivery id and body.
          </p>
          <button type="button" class="button primary" onClick={recover} disabled={busy}>
            {busy ? 'Recovering…' : 'Recover deliveries'}
          </button>
          <button type="button" class="button" onClick={() => setConfirming(false)} disabled={busy}>
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}

/**
 * Shown after a disabled connection is enabled: when deliveries were parked meanwhile, offer
 * to send them now (nothing is sent without the confirmation).
 */
export function RecoveryOffer(props: { api: ApiClient; connectionId: string; onRequeued: () => void }) {
  const [parked] = useResource(
    () => props.api.listParked(props.connectionId, undefined, 1),
    [props.connectionId],
  );
  const [result, setResult] = useState<RecoverResult>();
  const [error, setError] = useState<string>();
  if (parked.state !== 'ready' || parked.data.data.length === 0) return null;
  return (
    <section class="card offer" aria-label="Recover parked deliveries">
      <h2>Send the parked deliveries now?</h2>
      {result ? (
        <p class="note" role="status">
          {result.requeued} {result.requeued === 1 ? 'delivery is' : 'deliveries are'} queued again, oldest
          first
          {result.remaining ? `; ${result.remaining} still parked: recover again to send them` : ''}.
        </p>
      ) : (
        <>
          <p class="muted">
            The connection is enabled again. Deliveries parked while it was failing or disabled can be sent to
            it now.
          </p>
          <RecoverControl
            id="offer-recover-since"
            api={props.api}
            connectionId={props.connectionId}
            enabled
            onDone={(r) => {
              setResult(r);
              props.onRequeued();
            }}
            onError={setError}
          />
        </>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
