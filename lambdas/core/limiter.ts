/**
 * A counting semaphore: at most `limit` holders at once; the rest wait in order. The holder
 * takes and gives back its slot itself (`try … finally`), so a delivery that finds a slot free,
 * nearly every one, waits on no promise and wraps its work in no closure.
 */
/** The slots held: now, and the most at once since the previous reading (the gauge DeliveriesInFlight). */
export interface InFlight {
  now: number;
  peak: number;
}

export interface Limiter {
  /** Takes a slot: nothing to wait for when one is free, else a promise of the next one given back. */
  acquire(): Promise<void> | undefined;
  /** Gives a slot back, to the first waiter if there is one. */
  release(): void;
  /**
   * The slots held, read by the metrics adapters (a gauge is sampled, not evented): each
   * reading starts the next peak from the slots held then.
   */
  inFlight(): InFlight;
}

export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number >= 1, got ${limit}`);
  let active = 0;
  let peak = 0;
  const waiting: Array<() => void> = [];
  return {
    acquire() {
      if (active < limit) {
        active++;
        peak = Math.max(peak, active);
        return undefined;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    // A slot given back goes straight to the first waiter, so a newcomer arriving in between
    // can never take it and push the count over the limit.
    release() {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
    inFlight() {
      const reading = { now: active, peak };
      peak = active;
      return reading;
    },
  };
}
