/** What `npm start` prints while it rebuilds a kept table for this version's indexes (local/table-upgrade.ts). */

import { rebuildLine } from '../../../local/start/stack';

describe('the start line of a local table rebuild', () => {
  it('says before it starts that the items are copied aside, so stopping it loses nothing', () => {
    expect(rebuildLine({ table: 'webhooks-attempts', step: 'started' })).toBe(
      "Rebuilding the local table webhooks-attempts for this version's indexes (its items are copied aside first, so an interrupted rebuild is finished by the next start)…",
    );
  });

  it('says how many items it kept, and how many a start restored from an interrupted rebuild', () => {
    expect(rebuildLine({ table: 'webhooks-attempts', step: 'done', items: 12_345 })).toBe(
      'Rebuilt the local table webhooks-attempts: 12,345 items kept.',
    );
    expect(rebuildLine({ table: 'webhooks-attempts', step: 'finished-interrupted', items: 3 })).toBe(
      'Finished the interrupted rebuild of the local table webhooks-attempts: 3 items restored.',
    );
  });
});
