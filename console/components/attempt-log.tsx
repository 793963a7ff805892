/**
 * The attempt log of one connection, with filters and paging, in the API's order: by attempt
 * time, newest first. A retried or rate-limited delivery is attempted later than its event, so the
 * event time (second column) can read older than the rows above; the caption says which is which.
 */

import { useId, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import {
  deliveryCreatedAt,
  formatDuration,
  formatTime,
  localInputToIso,
  OUTCOME_LABELS,
  timeZoneName,
} from '../format';
import { Pager } from '../pages/connections';
import { href } from '../router';
import { type AttemptFilters, OUTCOMES, type Outcome } from '../types';
import { useCursorPages, useResource } from '../use-resource';
import { OutcomeBadge } from './badges';
import { Empty, Failed, Loading } from './states';

interface FilterDraft {
  outcome: Outcome | '';
  since: string;
  until: string;
  final: '' | 'true' | 'false';
}

const NO_FILTERS: FilterDraft = { outcome: '', since: '', until: '', final: '' };

function toFilters(draft: FilterDraft): AttemptFilters {
  const filters: AttemptFilters = {};
  if (draft.outcome) filters.outcome = draft.outcome;
  if (draft.final) filters.final = draft.final;
  const since = localInputToIso(draft.since);
  const until = localInputToIso(draft.until);
  if (since) filters.since = since;
  if (until) filters.until = until;
  return filters;
}

export function AttemptLog(props: { api: ApiClient; connectionId: string; refresh: number }) {
  const id = useId();
  const [draft, setDraft] = useState<FilterDraft>(NO_FILTERS);
  const [applied, setApplied] = useState<FilterDraft>(NO_FILTERS);
  const pages = useCursorPages();
  const { cursor } = pages;
  const [page, reload] = useResource(
    () => props.api.listAttempts(props.connectionId, toFilters(applied), cursor),
    [props.connectionId, applied, cursor, props.refresh],
  );
  const filtered = JSON.stringify(applied) !== JSON.stringify(NO_FILTERS);

  const apply = (event: Event) => {
    event.preventDefault();
    setApplied(draft);
    pages.reset();
  };
  const clear = () => {
    setDraft(NO_FILTERS);
    setApplied(NO_FILTERS);
    pages.reset();
  };
  const set = (key: keyof FilterDraft) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [key]: e.currentTarget.value });

  return (
    <div class="card">
      <div class="card-head">
        <h2>Attempt log</h2>
        <button type="button" class="button subtle" onClick={reload}>
          Refresh
        </button>
      </div>
      <form class="filters" onSubmit={apply} aria-label="Filter attempts">
        <div class="field">
          <label for={`${id}-outcome`}>Outcome</label>
          <select id={`${id}-outcome`} value={draft.outcome} onChange={set('outcome')}>
            <option value="">Any outcome</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {OUTCOME_LABELS[o]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-since`}>Since ({timeZoneName()})</label>
          <input id={`${id}-since`} type="datetime-local" value={draft.since} onInput={set('since')} />
        </div>
        <div class="field">
          <label for={`${id}-until`}>Until ({timeZoneName()})</label>
          <input id={`${id}-until`} type="datetime-local" value={draft.until} onInput={set('until')} />
        </div>
        <div class="field">
          <label for={`${id}-final`}>Final</label>
          <select id={`${id}-final`} value={draft.final} onChange={set('final')}>
            <option value="">All attempts</option>
            <option value="true">Final attempts only</option>
            <option value="false">Retried attempts only</option>
          </select>
        </div>
        <div class="filter-actions">
          <button type="submit" class="button">
            Apply filters
          </button>
          {filtered && (
            <button type="button" class="button subtle" onClick={clear}>
              Clear filters
            </button>
          )}
        </div>
      </form>
      {page.state === 'loading' && <Loading what="attempts" />}
      {page.state === 'error' && <Failed what="the attempt log" error={page.error} retry={reload} />}
      {page.state === 'ready' && page.data.data.length === 0 && (
        <Empty title={filtered ? 'No attempts match these filters' : 'No delivery attempts yet'}>
          <p class="muted">
            {filtered
              ? 'Widen the time range or clear the filters.'
              : 'Attempts appear here as events are delivered. Send a test to see one now.'}
          </p>
        </Empty>
      )}
      {page.state === 'ready' && page.data.data.length > 0 && (
        <>
          <div class="table-scroll">
            <table class="table stack" aria-label="Attempts">
              <caption class="table-caption">
                Ordered by when each attempt was sent, newest first. Event time is when its event happened: a
                retried, rate-limited or recovered delivery is sent after its event, so it can read older than
                the rows above.
              </caption>
              <thead>
                <tr>
                  <th scope="col">Attempted</th>
                  <th scope="col">Event time</th>
                  <th scope="col">User</th>
                  <th scope="col">Event</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Status</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Attempt</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((a) => (
                  <tr key={`${a.deliveryId}#${a.attempt}`}>
                    <td class="nowrap" data-label="Attempted">
                      <a href={href.delivery(a.deliveryId, props.connectionId)}>
                        {formatTime(a.requestedAt)}
                      </a>
                    </td>
                    <td class="nowrap" data-label="Event time">
                      {formatTime(deliveryCreatedAt(a.deliveryId))}
                    </td>
                    <td class="mono break" data-label="User">
                      {a.userId}
                    </td>
                    <td class="break" data-label="Event">
                      <span class="mono">{a.event}</span>
                      {a.test && <span class="tag">test</span>}
                      <div class="muted mono small">{a.eventId}</div>
                    </td>
                    <td data-label="Outcome">
                      <OutcomeBadge outcome={a.outcome} />
                    </td>
                    <td data-label="Status">{a.statusCode ?? '—'}</td>
                    <td class="nowrap" data-label="Duration">
                      {formatDuration(a.durationMs)}
                    </td>
                    <td class="nowrap" data-label="Attempt">
                      #{a.attempt}
                      {a.final ? <span class="tag">final</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Attempt pages" nextCursor={page.data.nextCursor ?? undefined} {...pages.pager} />
        </>
      )}
    </div>
  );
}
