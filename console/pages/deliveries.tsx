/**
 * The application's deliveries across its connections (`GET …/deliveries`), newest first by
 * when each was created, narrowed to a user, an event or a connection; each with where it stands
 * now. What the top bar's search lands on for an event or user id.
 */

import type { ApiClient } from '../api';
import { OutcomeBadge } from '../components/badges';
import { Empty, Failed, Loading } from '../components/states';
import { DELIVERY_STATE_LABELS, formatTime } from '../format';
import { href } from '../router';
import type { DeliveryFilters } from '../types';
import { useCursorPages, useResource } from '../use-resource';
import { Pager } from './connections';

const PAGE_SIZE = 20;

/** The heading for what the list is narrowed to. */
function titleOf(filters: DeliveryFilters): string {
  if (filters.userId) return `Deliveries for user ${filters.userId}`;
  if (filters.eventId) return `Deliveries of event ${filters.eventId}`;
  if (filters.connectionId) return `Deliveries to ${filters.connectionId}`;
  return 'Deliveries';
}

export function DeliveriesPage({ api, filters }: { api: ApiClient; filters: DeliveryFilters }) {
  const key = JSON.stringify(filters);
  // A new search starts at its first page.
  const { cursor, pager } = useCursorPages(key);
  const [page, reload] = useResource(() => api.listDeliveries(filters, cursor, PAGE_SIZE), [key, cursor]);
  const narrowed = key !== '{}';

  return (
    <section>
      <div class="page-head">
        <div>
          <h1 class="break">{titleOf(filters)}</h1>
          <p class="lede">
            Every connection of {api.applicationId}, newest deliveries first (by when each was created), with
            where each stands now.
          </p>
        </div>
        <button type="button" class="button subtle" onClick={reload}>
          Refresh
        </button>
      </div>
      {narrowed && (
        <p>
          <a href={href.deliveries()}>All deliveries</a>
        </p>
      )}
      {page.state === 'loading' && <Loading what="deliveries" />}
      {page.state === 'error' && <Failed what="deliveries" error={page.error} retry={reload} />}
      {page.state === 'ready' && page.data.data.length === 0 && (
        <Empty title={narrowed ? 'No deliveries found' : 'No deliveries yet'}>
          <p class="muted">
            {page.data.nextCursor
              ? 'None on this page of the log: older pages may hold some.'
              : 'Attempts are kept 30 days by default; a delivery older than that is gone from the log.'}
          </p>
        </Empty>
      )}
      {page.state === 'ready' && page.data.data.length > 0 && (
        <div class="card flush table-scroll">
          <table class="table stack" aria-label="Deliveries">
            <caption class="table-caption">
              Newest events first (the time in each delivery id); First attempt is when it was first sent,
              later for one held by a rate limit. State is where it stands now.
            </caption>
            <thead>
              <tr>
                <th scope="col">First attempt</th>
                <th scope="col">User</th>
                <th scope="col">Event</th>
                <th scope="col">Connection</th>
                <th scope="col">Last outcome</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((d) => (
                <tr key={d.deliveryId}>
                  <td data-label="First attempt">
                    <a href={href.delivery(d.deliveryId, d.connectionId)}>{formatTime(d.firstAttemptAt)}</a>
                    <div class="muted mono small break">{d.deliveryId}</div>
                  </td>
                  <td class="mono break" data-label="User">
                    {d.userId}
                  </td>
                  <td class="break" data-label="Event">
                    <span class="mono">{d.eventId}</span>
                    <div class="muted small">
                      {d.event}
                      {d.test && <span class="tag">test</span>}
                    </div>
                  </td>
                  <td class="mono break" data-label="Connection">
                    <a href={href.connection(d.connectionId)}>{d.connectionId}</a>
                  </td>
                  <td data-label="Last outcome">
                    <OutcomeBadge outcome={d.outcome} /> <span class="muted small">#{d.attempts}</span>
                  </td>
                  <td data-label="State">{DELIVERY_STATE_LABELS[d.state] ?? d.state}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.state === 'ready' && (
        <Pager label="Delivery pages" nextCursor={page.data.nextCursor ?? undefined} {...pager} />
      )}
    </section>
  );
}
