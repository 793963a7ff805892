import { createLimiter } from '../../../lambdas/core/limiter';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createLimiter', () => {
  it('never runs more than the limit at once, even when newcomers arrive as tasks finish', async () => {
    const limit = createLimiter(3);
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
      all.push(limit(task));
      // Newcomers in the middle of releases: the moment a slot frees, one more arrives.
      if (i % 4 === 3) await tick();
    }
    await Promise.all(all);
    expect(most).toBe(3);
    expect(running).toBe(0);
  });

  it('starts waiting tasks in the order they came', async () => {
    const limit = createLimiter(1);
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        limit(async () => {
          order.push(n);
          await tick();
        }),
      ),
    );
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('frees the slot of a task that fails, synchronously or not', async () => {
    const limit = createLimiter(1);
    await expect(
      limit(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(limit(() => Promise.reject(new Error('async')))).rejects.toThrow('async');
    await expect(limit(async () => 'ran')).resolves.toBe('ran');
  });

  it('refuses a limit that is not a whole number of at least 1', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(RangeError);
  });
});
