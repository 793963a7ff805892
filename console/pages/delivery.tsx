/** One delivery: every attempt, oldest first, with what the receiver answered. */

import type { ApiClient } from '../api';
import { OutcomeBadge } from '../components/badges';
import { Empty, Failed, Loading } from '../components/states';
import { formatDuration, formatTime } from '../format';
import { href } from '../router';
import type { Attempt } from '../types';
import { useResource } from '../use-resource';

export function DeliveryPage(props: { api: ApiClient; deliveryId: string; connectionId?: string }) {
  const [resource, reload] = useResource(() => props.api.getDelivery(props.deliveryId), [props.deliveryId]);
  const attempts =
    resource.state === 'ready' ? [...resource.data.attempts].sort((a, b) => a.attempt - b.attempt) : [];
  const connectionId =
    props.connectionId ?? (resource.state === 'ready' ? resource.data.connectionId : undefined);
  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href={href.connections()}>CRM Connections</a> <span aria-hidden="true">/</span>{' '}
        {connectionId && (
          <>
            <a href={href.connection(connectionId)}>Connection</a> <span aria-hidden="true">/</span>{' '}
          </>
        )}
        Delivery
      </nav>
      <h1>Delivery</h1>
      <p class="mono muted">{props.deliveryId}</p>
      {resource.state === 'loading' && <Loading what="the delivery" />}
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
          </dl>
        </div>
      )}
      <ol class="attempts">
        {attempts.map((a) => (
          <AttemptCard key={a.attempt} attempt={a} />
        ))}
      </ol>
    </section>
  );
}

function AttemptCard({ attempt: a }: { attempt: Attempt }) {
  return (
    <li class="card attempt">
      <div class="card-head">
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
      {a.responseSnippet ? (
        <pre class="snippet">{a.responseSnippet}</pre>
      ) : (
        <p class="muted">No response body.</p>
      )}
    </li>
  );
}
