/**
 * Hand-made inputs for the ledger's own tests (ledger.test.ts, ledger-load.test.ts): one
 * receiver on connection `con_a`, its receipts as (attempt, time, answer) triples, attempt
 * records with only the fields the ledger reads. Pure: nothing listens.
 */
import type { AttemptRecord } from '../../lambdas/core/types';
import { computeLedger, type LedgerInput, type PublishedEvent } from '../support/ledger';
import { testPki } from '../support/pki';
import { type FleetBehaviour, type FleetReceiver, ReceiverFleet, type Send } from '../support/receivers';

export const CON = 'con_a';
export const event = (n: number): PublishedEvent => ({
  eventId: `evt_${n}`,
  userId: `usr_${n}`,
  publishedAt: 1_000,
  deliveries: [{ connectionId: CON, deliveryId: `dlv_${n}_${CON}` }],
});

export function fleetWith(
  behaviour: FleetBehaviour,
  sends: Record<string, Array<[attempt: number, at: number, answer: string]>>,
) {
  const fleet = new ReceiverFleet(testPki());
  const receiver = { connectionId: CON, behaviour, connections: 0 } as unknown as FleetReceiver;
  fleet.receivers.push(receiver);
  for (const [deliveryId, list] of Object.entries(sends)) {
    const n = deliveryId.split('_')[1];
    const entry = {
      deliveryId,
      connectionId: CON,
      userId: `usr_${n}`,
      bodyHash: 'h',
      sends: list.map(([attempt, at, answer]): Send => ({ attempt, at, answer })),
    } as Parameters<typeof fleet.deliveries.set>[1];
    const accepted = list.find(([, , answer]) => answer === '200');
    if (accepted) {
      entry.acceptedAttempt = accepted[0];
      entry.acceptedAt = accepted[1];
    }
    fleet.deliveries.set(deliveryId, entry);
  }
  return fleet;
}

export const attempt = (n: number, a: number, outcome: AttemptRecord['outcome']) =>
  ({ deliveryId: `dlv_${n}_${CON}`, attempt: a, connectionId: CON, outcome }) as AttemptRecord;

export function ledger(overrides: Partial<LedgerInput>) {
  return computeLedger({
    events: [event(1)],
    fleet: fleetWith('ok', {}),
    dlq: [],
    attempts: [],
    startedAt: 1_000,
    drainedAt: 9_000,
    ...overrides,
  });
}
