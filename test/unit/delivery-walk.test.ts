/** scripts/delivery-walk.ts: how the files of a traced delivery's pauses become its walk. */

import { walkOf } from '../../scripts/delivery-walk';

describe('the walk of a delivery', () => {
  it('keeps the files under lambdas/, collapses repeats and counts returns to a file left earlier', () => {
    const walk = walkOf([
      'lambdas/core/dispatch.ts',
      'lambdas/core/batch.ts',
      'lambdas/core/batch.ts',
      'node:buffer',
      'lambdas/core/batch.ts',
      'lambdas/core/envelope.ts',
      'test/unit/dispatcher/fakes.ts',
      'lambdas/core/envelope.ts',
      'lambdas/core/batch.ts',
      'lambdas/core/dispatch.ts',
    ]);
    expect(walk).toEqual({
      files: ['lambdas/core/dispatch.ts', 'lambdas/core/batch.ts', 'lambdas/core/envelope.ts'],
      walk: [
        'lambdas/core/dispatch.ts',
        'lambdas/core/batch.ts',
        'lambdas/core/envelope.ts',
        'lambdas/core/batch.ts',
        'lambdas/core/dispatch.ts',
      ],
      distinct: 3,
      reentries: 2,
    });
  });

  it('is empty when no product code ran', () => {
    expect(walkOf(['node:internal/timers', 'scripts/delivery-walk.ts'])).toEqual({
      files: [],
      walk: [],
      distinct: 0,
      reentries: 0,
    });
  });
});
