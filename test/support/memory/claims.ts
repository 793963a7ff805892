/**
 * The claims of events' deliveries in memory, as lambdas/adapters/dynamodb/claims.ts keeps them:
 * one claim per application, event and connection; a claim is taken when there is none (or it
 * has expired), or when a send's lease has run out, keeping the time first claimed; a settled
 * claim is never taken again until it expires (the contract suite, test/contract/claims.test.ts,
 * holds both to the same behaviour).
 */

import type { DeliveryClaims } from '../../../lambdas/core/ports';
import type { Claim, ClaimKey } from '../../../lambdas/core/types';
import { checkOutage, noOutage, type Outage } from './outage';

interface Held {
  state: 'sending' | 'settled';
  timeMs: number;
  leaseUntilMs: number;
  expiresAtS: number;
}

export class MemoryClaims implements DeliveryClaims {
  /** Claims by `<applicationId>#<eventId>#<connectionId>`. */
  readonly items = new Map<string, Held>();

  constructor(private readonly outage: Outage = noOutage) {}

  async claim(
    key: ClaimKey,
    at: { timeMs: number; nowMs: number; leaseUntilMs: number; expiresAtS: number },
  ): Promise<Claim> {
    checkOutage(this.outage, 'claim', 'DynamoDB');
    const id = keyOf(key);
    const held = this.items.get(id);
    if (!held || held.expiresAtS * 1000 <= at.nowMs) {
      this.items.set(id, {
        state: 'sending',
        timeMs: at.timeMs,
        leaseUntilMs: at.leaseUntilMs,
        expiresAtS: at.expiresAtS,
      });
      return { kind: 'claimed', timeMs: at.timeMs };
    }
    if (held.state === 'sending' && held.leaseUntilMs < at.nowMs) {
      held.leaseUntilMs = at.leaseUntilMs;
      return { kind: 'claimed', timeMs: held.timeMs };
    }
    return { kind: held.state === 'settled' ? 'settled' : 'busy', timeMs: held.timeMs };
  }

  async settle(key: ClaimKey): Promise<void> {
    checkOutage(this.outage, 'settle', 'DynamoDB');
    const held = this.items.get(keyOf(key));
    if (held) held.state = 'settled';
  }
}

const keyOf = (key: ClaimKey) => `${key.applicationId}#${key.eventId}#${key.connectionId}`;
