/**
 * One delivery: every attempt, oldest first, with the request as it went out (method, target,
 * headers as kept) and what the receiver answered; the body once for the delivery, or why it is
 * not kept; and Resend. Every value is untrusted text, rendered as text.
 */

import { useRef } from 'preact/hooks';
import type { ApiClient } from '../api';
import { OutcomeBadge } from '../components/badges';
import { FailureAdvice, useLocalMode } from '../components/failure-advice';
import { ResendPanel } from '../components/resend-panel';
import { Empty, Failed, Loading } from '../components/states';
import { deliveryState, formatDuration, formatTime } from '../format';
import { href } from '../router';
import type { Attempt, Delivery } from '../types';
import { useResource } from '../use-resource';

export function DeliveryPage(props: { api: ApiClient; deliveryId: string; connectionId?: string }) {
  const [resource, reload] = useResource(() => props.api.getDelivery(props.deliveryId), [props.deliveryId]);
  // While a refresh (after Resend) loads, keep showing what was there, so the Resend result and
  // its focus stay put instead of the page blanking to "Loading".
  const last = useRef<Delivery | undefined>(undefined);
  if (resource.state === 'ready') last.current = resource.data;
  const delivery =
    resource.state === 'ready'
      ? resource.data
      : resource.state === 'loading' && last.current?.deliveryId === props.deliveryId
        ? last.current
        : undefined;
  const attempts = delivery ? [...delivery.attempts].sort((a, b) => a.attempt - b.attempt) : [];
  const connectionId = props.connectionId ?? delivery?.connectionId;
  const local = useLocalMode();
  return (
    <section>
      <nav class="crumbs break" aria-label="Breadcrumb">
        <a href={href.connections()}>CRM Connections</a> <span aria-hidden="true">/</span>{' '}
        {connectionId && (
          <>
            <ConnectionCrumb api={props.api} connectionId={connectionId} /> <span aria-hidden="true">
              /
            </span>{' '}
          </>
        )}
        Delivery
      </nav>
      <h1>Delivery</h1>
      <p class="mono muted break">{props.deliveryId}</p>
      {resource.state === 'loading' && !delivery && <Loading what="the delivery" />}
      {resource.state === 'error' && <Failed what="the delivery" error={resource.error} retry={reload} />}
      {resource.state === 'ready' && attempts.length === 0 && (
        <Empty title="No attempts recorded">
          <p class="muted">The attempt log keeps records for a limited time; this delivery has none left.</p>
        </Empty>
      )}
      {attempts[0] && (
        <div class="card">
          <dl class="facts">
            <dt>Event</dt>
            <dd class="mono">{attempts[0].event}</dd>
            <dt>Event id</dt>
            <dd class="mono">{attempts[0].eventId}</dd>
            <dt>Target</dt>
            <dd class="mono break">
              <span class="method">{attempts[0].method}</span> {attempts[0].target}
            </dd>
            <dt>Attempts</dt>
            <dd>{attempts.length}</dd>
            <dt>State</dt>
            <dd class="delivery-state">{deliveryState(attempts)}</dd>
          </dl>
        </div>
      )}
      {delivery && attempts.length > 0 && (
        <>
          <RequestBody delivery={delivery} />
          <ResendPanel
            api={props.api}
            deliveryId={props.deliveryId}
            onQueued={reload}
            bodyUnavailable={delivery.body === undefined ? delivery.bodyUnavailable : undefined}
          />
        </>
      )}
      <ol class="attempts">
        {attempts.map((a) => (
          <AttemptCard key={a.attempt} attempt={a} local={local} />
        ))}
      </ol>
    </section>
  );
}

/** The connection's name in the breadcrumb (its id until it loads, or if it cannot be read). */
function ConnectionCrumb({ api, connectionId }: { api: ApiClient; connectionId: string }) {
  const [connection] = useResource(() => api.getConnection(connectionId), [connectionId]);
  return (
    <a href={href.connection(connectionId)}>
      {connection.state === 'ready' ? connection.data.name : connectionId}
    </a>
  );
}

function AttemptCard({ attempt: a, local }: { attempt: Attempt; local: boolean | undefined }) {
  return (
    <li class="card attempt">
      <div class="card-head wrap">
        <h2>
          Attempt {a.attempt} <OutcomeBadge outcome={a.outcome} />
          {a.final && <span class="tag">final</span>}
          {a.test && <span class="tag">test</span>}
        </h2>
        <span class="muted nowrap">{formatTime(a.requestedAt)}</span>
      </div>
      <dl class="facts">
        <dt>Status</dt>
        <dd>{a.statusCode ?? '—'}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(a.durationMs)}</dd>
        {a.nextAttemptAt && (
          <>
            <dt>Next attempt</dt>
            <dd>{formatTime(a.nextAttemptAt)}</dd>
          </>
        )}
        {a.error && (
          <>
            <dt>Error</dt>
            <dd>{a.error}</dd>
          </>
        )}
        {a.traceId && (
          <>
            <dt>Trace</dt>
            <dd>
              <code>{a.traceId}</code>
            </dd>
          </>
        )}
      </dl>
      <FailureAdvice attempt={a} local={local} />
      <RequestView attempt={a} />
      <h3>Response</h3>
      {a.responseSnippet ? (
        <pre class="snippet">{a.responseSnippet}</pre>
      ) : (
        <p class="muted">No response body.</p>
      )}
    </li>
  );
}

/** The body every attempt sent, shown once; or the API's reason, in words, when it is not kept. */
function RequestBody({ delivery }: { delivery: Delivery }) {
  return (
    <section class="card" aria-labelledby="request-body-heading">
      <h2 id="request-body-heading">Request body</h2>
      {delivery.body !== undefined ? (
        <pre class="snippet request-body">{delivery.body}</pre>
      ) : (
        <p class="muted">{delivery.bodyUnavailable?.message ?? 'The request body is not shown.'}</p>
      )}
    </section>
  );
}

/** One attempt's request line and headers as kept (custom header values read [hidden]). */
function RequestView({ attempt: a }: { attempt: Attempt }) {
  return (
    <>
      <h3>Request</h3>
      <p class="mono break">
        <span class="method">{a.method}</span> {a.target}
      </p>
      {a.requestHeaders && a.requestHeaders.length > 0 ? (
        <div class="table-scroll">
          <table class="table" aria-label={`Request headers of attempt ${a.attempt}`}>
            <thead>
              <tr>
                <th scope="col">Header</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {a.requestHeaders.map((h, i) => (
                <tr key={i}>
                  <td class="mono">{h.name}</td>
                  <td class="mono break">{h.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No request was sent on this attempt.</p>
      )}
      {a.resentAs !== undefined && <p class="muted">Resent afterwards as attempt {a.resentAs}.</p>}
    </>
  );
}
