/**
 * The one decision point for outcomes (docs/design.md §2, rule 4): an attempt's result (refusals
 * included) and its position in the chain in, delivered / retry after N s / dead-letter /
 * report (test sends) out.
 */

import { ATTEMPTS_PER_CHAIN, RETRY_DELAYS_S } from './constants';
import type { AttemptResult, Decision, Outcome } from './types';

/** Classifies an attempt's result (docs/protocol.md §7): only a 2xx within the deadline is a delivery. */
export function outcomeOf(result: AttemptResult): Outcome {
  switch (result.kind) {
    case 'response':
      return result.status >= 200 && result.status <= 299 ? 'delivered' : 'http_error';
    case 'timeout':
      return 'timeout';
    case 'network':
      return 'network_error';
    case 'blocked':
      return 'blocked';
    case 'refused':
      return result.reason === 'blocked' ? 'blocked' : 'rejected';
  }
}

/**
 * Decides what follows an attempt.
 * @param position 0-based position of the attempt in its chain (attempt - chainStart).
 * @param retries whether failures may be retried and dead-lettered (false for dashboard test
 *   sends: their failure is reported to the caller, nothing more).
 */
export function decide(result: AttemptResult, position: number, retries = true): Decision {
  const outcome = outcomeOf(result);
  if (outcome === 'delivered') return { action: 'done', outcome };
  if (!retries) return { action: 'report', outcome };
  // A refused connection or destination stays refused: retrying would only knock on the same door.
  if (result.kind === 'refused') return { action: 'dead-letter', outcome, reason: result.reason };
  if (outcome === 'blocked') return { action: 'dead-letter', outcome, reason: 'blocked' };
  const delaySeconds = RETRY_DELAYS_S[position];
  if (delaySeconds !== undefined && position < ATTEMPTS_PER_CHAIN - 1) {
    return { action: 'retry', outcome, delaySeconds };
  }
  return { action: 'dead-letter', outcome, reason: 'exhausted' };
}
