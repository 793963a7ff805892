/**
 * The claims of events' deliveries (core/ports.ts DeliveryClaims), run against
 * test/support/memory/claims.ts and lambdas/adapters/dynamodb/claims.ts on dynalite: a delivery
 * claimed once, its time fixed at first sight, a crashed send's claim taken over after its lease.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { claimKey, DynamoClaims } from '../../lambdas/adapters/dynamodb/claims';
import { documentClient } from '../../lambdas/adapters/dynamodb/client';
import { WriteBuffer } from '../../lambdas/adapters/dynamodb/write-buffer';
import { ENV } from '../../lambdas/config';
import type { DeliveryClaims } from '../../lambdas/core/ports';
import type { ClaimKey } from '../../lambdas/core/types';
import { id } from '../support/fixtures';
import { MemoryClaims } from '../support/memory';
import { contract, lightClient } from './contract';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const FIRST = Date.parse('2026-11-25T11:59:58.123Z');
const LATER = Date.parse('2026-11-25T12:04:00.000Z');
const DAY_S = 86_400;
const newKey = (): ClaimKey => ({ applicationId: id('app'), eventId: id('evt'), connectionId: id('con') });
/** A claim's times at `nowMs`, for a send of 30 s. */
const at = (timeMs: number, nowMs = NOW) => ({
  timeMs,
  nowMs,
  leaseUntilMs: nowMs + 30_000,
  expiresAtS: Math.floor(nowMs / 1000) + DAY_S,
});

contract<DeliveryClaims>(
  'DeliveryClaims',
  {
    memory: () => new MemoryClaims(),
    emulators: () => new DynamoClaims({ tableName: process.env[ENV.rateWindowsTable]! }),
    light: () => new DynamoClaims({ tableName: process.env[ENV.rateWindowsTable]!, client: lightClient() }),
  },
  (make) => {
    it('claims a delivery once: busy while its send lives, settled after, always with the first time', async () => {
      const claims = make();
      const key = newKey();
      expect(await claims.claim(key, at(FIRST))).toMatchObject({ kind: 'claimed', timeMs: FIRST });
      expect(await claims.claim(key, at(LATER, NOW + 1_000))).toEqual({ kind: 'busy', timeMs: FIRST });
      await claims.settle(key);
      expect(await claims.claim(key, at(LATER, NOW + 2_000))).toEqual({ kind: 'settled', timeMs: FIRST });
      // Settled stays settled past any lease: the delivery belongs to its own chain.
      expect(await claims.claim(key, at(LATER, NOW + 3_600_000))).toEqual({ kind: 'settled', timeMs: FIRST });
      // Another connection's delivery of the same event is its own claim.
      expect(await claims.claim({ ...key, connectionId: id('con') }, at(LATER))).toMatchObject({
        kind: 'claimed',
        timeMs: LATER,
      });
    });

    it('gives a claim whose send outlived its lease (it crashed) to the next send, keeping the first time', async () => {
      const claims = make();
      const key = newKey();
      await claims.claim(key, at(FIRST));
      expect((await claims.claim(key, at(LATER, NOW + 30_000))).kind).toBe('busy');
      expect(await claims.claim(key, at(LATER, NOW + 30_001))).toMatchObject({
        kind: 'claimed',
        timeMs: FIRST,
      });
      // The new send holds it for its own lease.
      expect(await claims.claim(key, at(LATER, NOW + 31_000))).toEqual({ kind: 'busy', timeMs: FIRST });
    });

    it('counts a claim past its expiry as none: the event is new again, with the time it says', async () => {
      const claims = make();
      const key = newKey();
      await claims.claim(key, at(FIRST));
      await claims.settle(key);
      const dayLater = NOW + DAY_S * 1000 + 1;
      expect(await claims.claim(key, at(LATER, dayLater))).toMatchObject({ kind: 'claimed', timeMs: LATER });
      expect((await claims.claim(key, at(LATER, dayLater + 1))).kind).toBe('busy');
    });

    it('settles only a claim that exists, and gives one claim to many sends at once', async () => {
      const claims = make();
      const key = newKey();
      await claims.settle(key);
      expect((await claims.claim(key, at(FIRST))).kind).toBe('claimed');
      const other = newKey();
      const kinds = await Promise.all(Array.from({ length: 5 }, () => claims.claim(other, at(FIRST))));
      expect(kinds.map((c) => c.kind).sort()).toEqual(['busy', 'busy', 'busy', 'busy', 'claimed']);
    });
  },
);

describe('DynamoClaims with a write buffer (settled when the batch ends)', () => {
  const tableName = () => process.env[ENV.rateWindowsTable]!;

  it('holds a settlement until the flush, then reads settled with the time and expiry the claim had', async () => {
    const doc = documentClient();
    const buffer = new WriteBuffer(doc);
    const claims = new DynamoClaims({ tableName: tableName(), client: doc, buffer });
    const key = newKey();
    const claim = await claims.claim(key, at(FIRST));
    expect(claim).toEqual({ kind: 'claimed', timeMs: FIRST, expiresAtS: at(FIRST).expiresAtS });
    await claims.settle(key, claim);
    expect(buffer.size).toBe(1);
    // Not written yet: another send sees the claim's own send in flight.
    expect((await claims.claim(key, at(LATER, NOW + 1_000))).kind).toBe('busy');
    await buffer.flush();
    expect(await claims.claim(key, at(LATER, NOW + 3_600_000))).toMatchObject({
      kind: 'settled',
      timeMs: FIRST,
    });
    const { Item } = await doc.send(
      new GetCommand({ TableName: tableName(), Key: { window: claimKey(key) } }),
    );
    expect(Item).toMatchObject({ state: 'settled', idTime: FIRST, expiresAt: at(FIRST).expiresAtS });
    // Past the claim's expiry it is none, as an unbuffered settlement leaves it.
    expect((await claims.claim(key, at(LATER, NOW + DAY_S * 1000 + 1))).kind).toBe('claimed');
  });
});
