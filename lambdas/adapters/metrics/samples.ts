/**
 * A fact of the core (core/metrics.ts) as the catalogue's metrics: which metric, with which
 * second-dimension values, and what value. Both adapters (EMF, Prometheus) start from these, so
 * they count the same things under the same names.
 */

import type { MetricFact } from '../../core/metrics';
import type { MetricDimension, MetricKey, StatusClass } from './catalogue';

export interface Sample {
  metric: MetricKey;
  /** The second dimensions of the catalogue, with this fact's values (none for an undimensioned metric). */
  dims: Partial<Record<MetricDimension, string>>;
  /** 1 for a count; milliseconds for a duration or latency. */
  value: number;
}

const one = (metric: MetricKey, dims: Sample['dims'] = {}): Sample[] => [{ metric, dims, value: 1 }];

/** The status class of a response status; `none` without a response (or outside 200-599). */
export function statusClassOf(status: number | undefined): StatusClass {
  if (status === undefined) return 'none';
  if (status < 200 || status > 599) return 'other';
  return `${Math.floor(status / 100)}xx` as StatusClass;
}

/** The samples of facts recorded together, in order. */
export function samplesOf(facts: readonly MetricFact[]): Sample[] {
  return facts.flatMap(samplesOfFact);
}

function samplesOfFact(fact: MetricFact): Sample[] {
  switch (fact.kind) {
    case 'attempt': {
      const counted = one('attempts', { Outcome: fact.outcome, StatusClass: statusClassOf(fact.statusCode) });
      return fact.durationMs === undefined
        ? counted
        : [
            ...counted,
            { metric: 'attemptDuration', dims: { Outcome: fact.outcome }, value: fact.durationMs },
          ];
    }
    case 'final':
      return fact.result === 'parked'
        ? [...one('deliveries', { Result: 'parked' }), ...one('parked', { Reason: fact.reason })]
        : one('deliveries', { Result: fact.result });
    case 'parkedAgain':
      return one('parked', { Reason: fact.reason });
    case 'retryLag':
      return [{ metric: 'retryStartLag', dims: {}, value: fact.ms }];
    case 'latency':
      return [{ metric: 'deliveryLatency', dims: {}, value: fact.ms }];
    case 'retry':
      return one('retriesScheduled');
    case 'deadLetter':
      return one('deadLetters', { Reason: fact.reason });
    case 'health':
      return one('healthTransitions', { State: fact.state });
    case 'infrastructure':
      return one('infrastructureFailures', { Dependency: fact.dependency });
    case 'attemptLogDeferred':
      return one('attemptLogDeferred');
    case 'senderResend':
      return one('senderResends');
    case 'blocked':
      return one('blockedDestinations');
    case 'rateLimitDeferral':
      return one('rateLimitDeferrals');
    case 'recoveryCheck':
      return one('recoveryChecks');
    case 'recovery':
      return one('recoveries');
  }
}
