/**
 * "Waiting for the rate limit", live: whether a connection's deliveries are being held back by
 * its rate limit right now, read every few seconds from the API (GET …/rate-limit, which counts
 * the dispatchers' own counter items: nothing is written to show it).
 */

import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api';
import type { RateLimitActivity } from '../types';

/** How often the state is read again while the page is open. */
export const RATE_LIMIT_POLL_MS = 5_000;

export function RateLimitState(props: {
  api: ApiClient;
  connectionId: string;
  /** The connection's own limit: read again when it is edited. */
  rateLimit: number | undefined;
}) {
  const { api, connectionId, rateLimit } = props;
  const [activity, setActivity] = useState<RateLimitActivity>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    const read = () =>
      api.rateLimitActivity(connectionId).then(
        (a) => {
          if (!live) return;
          setActivity(a);
          setError(undefined);
        },
        (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
      );
    read();
    const timer = setInterval(read, RATE_LIMIT_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, connectionId, rateLimit]);

  if (!activity) {
    return error ? <p class="muted">Rate limit: its state could not be read ({error}).</p> : null;
  }
  if (activity.rateLimit === null) return null;
  const whose = activity.source === 'default' ? " (this deployment's default)" : '';
  const lastMinute = `${activity.deferred.toLocaleString('en-US')} deferred in the last minute`;
  if (activity.waiting) {
    return (
      <p class="note rate-waiting" role="status">
        <strong>Waiting for the rate limit:</strong> sending at {activity.rateLimit}/s{whose}, {lastMinute}.
        Deliveries over the limit wait their turn and show no attempt until they are sent.
      </p>
    );
  }
  return (
    <p class="muted" role="status">
      Rate limit: {activity.rateLimit} deliveries per second{whose}. Nothing is waiting for the rate limit now
      {activity.deferred > 0 ? `; ${lastMinute}` : ''}.
    </p>
  );
}
