/** What recovery probes cost (docs/design.md §9 "Recovery probes"): arithmetic on the default schedule and the prices. */

import { DEFAULT_RECOVERY_PROBES_MS, PROBE_HORIZON_MS } from '../../lambdas/core/probes';
import type { CostDoc } from './context';
import { money, num } from './format';

/** A check's message waits at most 15 minutes in SQS, then is delayed again. */
const HOP_MS = 15 * 60_000;
/** Per check: the attempt record (2 units: a failure keeps its snippet), the claim, the re-park, the health write. */
const WRITES_PER_CHECK = 5;
/** Billed milliseconds of an invocation that only re-delays a message or makes one check, at 256 MB. */
const INVOCATION_MS = 50;

export function recoveryProbes({ prices }: CostDoc): string {
  // The chain's waits: the schedule, its last wait repeated up to the horizon.
  const waits: number[] = [];
  for (let at = 0, i = 0; ; i++) {
    const wait = DEFAULT_RECOVERY_PROBES_MS[Math.min(i, DEFAULT_RECOVERY_PROBES_MS.length - 1)]!;
    if (at + wait > PROBE_HORIZON_MS) break;
    at += wait;
    waits.push(wait);
  }
  const hours = waits.reduce((a, b) => a + b, 0) / 3_600_000;
  const messages = waits.reduce((n, wait) => n + Math.ceil(wait / HOP_MS), 0);
  const perConnection =
    (messages * 3 * prices.sqsPerMillionRequests) / 1e6 +
    (messages * prices.lambdaPerMillionRequests) / 1e6 +
    messages * 0.25 * (INVOCATION_MS / 1000) * prices.lambdaArmPerGbSecond +
    (waits.length * WRITES_PER_CHECK * prices.dynamoDbPerMillionWriteUnits) / 1e6;
  return `## Recovery probes

A down endpoint gets ${waits.length} checks over about ${num(Math.round(hours))} h (default \`recoveryProbes\`): ${num(messages)} SQS messages
(hops of at most 15 minutes), as many short invocations, ${WRITES_PER_CHECK} DynamoDB writes per check:
**${money(perConnection)} per down connection**, ${money(perConnection * 1_000)} for 1,000. Healthy connections cost nothing.`;
}
