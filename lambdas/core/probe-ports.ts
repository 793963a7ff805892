/**
 * The ports of recovery checks (core/prober.ts, docs/design.md §9 "Recovery probes"): where a
 * check waits until due, and what a check needs besides the dispatcher's own ports.
 */

import type { ParkedItem } from './parking';
import type { ProbeMessage } from './types';

/** A parked delivery claimed by a recovery check until `claimedUntil` (epoch ms). */
export type ClaimedParked = ParkedItem & { claimedUntil: number };

/** What a recovery check needs besides the dispatcher's own ports (docs/design.md §9 "Recovery probes"). */
export interface RecoveryPorts {
  /**
   * Claims a connection's oldest parked delivery (by its event's time) until `untilMs`.
   * `parked: false` when it has none; `item` absent when a recovery holds the oldest.
   */
  claimOldest(
    connectionId: string,
    nowMs: number,
    untilMs: number,
  ): Promise<{ parked: boolean; item?: ClaimedParked }>;
  /** Removes a delivered check's parked item, unless it was parked again since the claim. */
  release(connectionId: string, deliveryId: string, claimedUntil: number): Promise<void>;
  /** The Recover of the console and CLI (management/parked.ts): the rest, oldest first, at `ratePerSecond`. */
  recover(connectionId: string, ratePerSecond: number): Promise<{ requeued: number; remaining: number }>;
  queue: ProbeQueue;
}

/** Where recovery checks wait until due: the retry queue, with a delay (docs/design.md §9). */
export interface ProbeQueue {
  /** Queues the check, delayed up to 15 minutes (a later one is re-delayed when it arrives). */
  queue(message: ProbeMessage, delaySeconds: number): Promise<void>;
}
