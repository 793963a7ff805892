import { createLimiter, type Limiter } from '../../../lambdas/core/limiter';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A task holding a slot, as the attempter holds one. */
async function holding<T>(limiter: Limiter, task: () => Promise<T>): Promise<T> {
  const slot = limiter.acquire();
  if (slot) await slot;
  try {
    return await task();
  } finally {
    limiter.release();
  }
}

describe('createLimiter', () => {
  it('never lets more than the limit hold a slot, even when newcomers arrive as slots are given back', async () => {
    const limiter = createLimiter(3);
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
    };
    const all: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      all.push(holding(limiter, task));
      // Newcomers in the middle of releases: the moment a slot frees, one more arrives.
      if (i % 4 === 3) await tick();
    }
    await Promise.all(all);
    expect(most).toBe(3);
    expect(running).toBe(0);
  });

  it('hands slots to waiters in the order they came', async () => {
    const limiter = createLimiter(1);
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        holding(limiter, async () => {
          order.push(n);
          await tick();
        }),
      ),
    );
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('gives a free slot at once, and one given back to the next asker', async () => {
    const limiter = createLimiter(1);
    expect(limiter.acquire()).toBeUndefined();
    const waiter = limiter.acquire();
    expect(waiter).toBeInstanceOf(Promise);
    limiter.release();
    await expect(waiter).resolves.toBeUndefined();
    limiter.release();
    expect(limiter.acquire()).toBeUndefined();
  });

  it('refuses a limit that is not a whole number of at least 1', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(RangeError);
  });
});
