/**
 * "What to do" under a failed attempt, when its error says enough (an untrusted, misnamed or
 * expired certificate, nothing listening): the same line the CLI prints, from the one copy both
 * import (lambdas/core/failure-advice.ts). Local mode's advice differs (its own CA issues a
 * certificate it trusts), so nothing is said until the API's index has said which it is.
 */

import { type FailedAttempt, failureAdvice } from '../../lambdas/core/failure-advice';
import { isLocalMode, useApiIndex } from '../use-api-index';

/** Whether the API runs in local mode; undefined while its index loads. */
export function useLocalMode(): boolean | undefined {
  const index = useApiIndex();
  return index === 'loading' ? undefined : isLocalMode(index);
}

export function FailureAdvice({ attempt, local }: { attempt: FailedAttempt; local: boolean | undefined }) {
  if (local === undefined) return null;
  const advice = failureAdvice(attempt, {
    local,
    suggest: (command) => `npx webhooks${local ? ' --local' : ''} ${command}`,
  });
  if (!advice) return null;
  return (
    <p class="note advice">
      <strong>What to do:</strong> {advice}
    </p>
  );
}
