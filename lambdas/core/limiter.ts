/** A counting semaphore: at most `limit` tasks run at once; the rest wait in order. */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number >= 1, got ${limit}`);
  let active = 0;
  const waiting: Array<() => void> = [];
  // A finished task hands its slot straight to the first waiter, so a newcomer arriving
  // in between can never take it and push the count over the limit.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  /** Runs a task that holds a slot; the slot is released however the task ends. */
  const holding = <T>(task: () => Promise<T>): Promise<T> => {
    let pending: Promise<T>;
    try {
      pending = task();
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.finally(release);
  };
  return <T>(task: () => Promise<T>): Promise<T> => {
    if (active < limit) {
      active++;
      return holding(task);
    }
    return new Promise<void>((resolve) => waiting.push(resolve)).then(() => holding(task));
  };
}
