/**
 * Local mode's Prometheus text (local/prometheus.ts): the same facts as EMF under the catalogue's
 * names, every labelled series there at zero from the start, the attempt durations by outcome
 * with buckets past the 30 s deadline, the deliveries in flight as a gauge, and retry start lag.
 */

import { createLimiter } from '../../../lambdas/core/limiter';
import { PrometheusMetrics } from '../../../local/prometheus';

/** Every sample of the text by its series (`name{label="v",…}`). */
async function series(metrics: PrometheusMetrics): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await metrics.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

it('shows every labelled series at zero before anything is counted, so increase() sees the first one', async () => {
  const s = await series(new PrometheusMetrics());
  expect(s.get('webhooks_dead_letters_total{reason="exhausted"}')).toBe(0);
  expect(s.get('webhooks_dead_letters_total{reason="invalid_payload"}')).toBe(0);
  expect(s.get('webhooks_deliveries_total{result="recovered"}')).toBe(0);
  expect(s.get('webhooks_parked_total{reason="blocked"}')).toBe(0);
  expect(s.get('webhooks_health_transitions_total{state="failing"}')).toBe(0);
  expect(s.get('webhooks_infrastructure_failures_total{dependency="sqs"}')).toBe(0);
  expect(s.get('webhooks_attempts_total{outcome="http_error",status_class="5xx"}')).toBe(0);
  expect(s.get('webhooks_attempts_total{outcome="timeout",status_class="none"}')).toBe(0);
  expect(s.get('webhooks_attempt_duration_seconds_count{outcome="timeout"}')).toBe(0);
  expect(s.get('webhooks_deliveries_in_flight')).toBe(0);
  // A parked delivery has 3 reasons, not every dead-letter reason.
  expect(s.has('webhooks_parked_total{reason="invalid_message"}')).toBe(false);
});

it('puts a send that overran the 30 s deadline in a bucket of its own, labelled by outcome', async () => {
  const metrics = new PrometheusMetrics();
  metrics.record({ kind: 'attempt', outcome: 'timeout', durationMs: 31_500 });
  metrics.record({ kind: 'attempt', outcome: 'delivered', statusCode: 200, durationMs: 40 });
  const s = await series(metrics);
  expect(s.get('webhooks_attempt_duration_seconds_bucket{le="30",outcome="timeout"}')).toBe(0);
  expect(s.get('webhooks_attempt_duration_seconds_bucket{le="35",outcome="timeout"}')).toBe(1);
  expect(s.get('webhooks_attempt_duration_seconds_bucket{le="60",outcome="timeout"}')).toBe(1);
  expect(s.get('webhooks_attempt_duration_seconds_count{outcome="delivered"}')).toBe(1);
});

it('shows the deliveries in flight now across the dispatcher instances, and how late retries started', async () => {
  const metrics = new PrometheusMetrics();
  const [one, two] = [createLimiter(10), createLimiter(10)];
  metrics.readInFlight(one.inFlight);
  metrics.readInFlight(two.inFlight);
  one.acquire();
  one.acquire();
  one.release();
  two.acquire();
  metrics.record({ kind: 'retryLag', ms: 1_500 });
  const s = await series(metrics);
  expect(s.get('webhooks_deliveries_in_flight')).toBe(2);
  expect(s.get('webhooks_retry_start_lag_seconds_count')).toBe(1);
  expect(s.get('webhooks_retry_start_lag_seconds_sum')).toBe(1.5);
  expect(s.get('webhooks_retry_start_lag_seconds_bucket{le="1"}')).toBe(0);
  expect(s.get('webhooks_retry_start_lag_seconds_bucket{le="2"}')).toBe(1);
});
