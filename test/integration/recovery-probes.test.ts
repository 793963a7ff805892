/**
 * Recovery probes end to end (docs/design.md §9 "Recovery probes"), on the local pipeline (the
 * production wiring under local mode's event-source runner, the emulators) with a real HTTPS
 * receiver: the receiver is down until every delivery is parked, then comes back, and with no
 * command every parked delivery arrives, the oldest event's first (the check, marked in the
 * attempt log), then the rest. WEBHOOKS_RECOVERY_PROBES is seconds here, not minutes to hours.
 */

import { id, userIdentified } from '../support/fixtures';
import { type Harness, startHarness } from '../support/pipeline';
import { type Receiver, respond, startReceiver } from '../support/receivers';
import { waitFor } from '../support/wait';

let receiver: Receiver;
let harness: Harness;

beforeAll(async () => {
  receiver = await startReceiver(respond(503, 'down for maintenance'));
  harness = await startHarness({
    ports: [receiver.port],
    attemptTimeoutMs: 2_000,
    recoveryProbes: '2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
  });
});
afterAll(async () => {
  await harness.stop();
  await receiver.close();
});

it('a receiver down then up gets every parked delivery, oldest event first, with no command', async () => {
  const applicationId = id('app');
  // One a second at most: the recovery after the check is spread by the connection's rate limit.
  const conn = await harness.createConnection({ url: receiver.url, applicationId, rateLimit: 1 });
  for (let i = 0; i < 3; i++) await harness.publish(userIdentified(applicationId));
  const parked = await waitFor(
    'three parked deliveries',
    async () => {
      const items = await harness.parkedOf(conn.connectionId);
      return items.length === 3 && items;
    },
    { timeoutMs: 40_000, intervalMs: 250 },
  );
  const oldestFirst = parked.map((p) => p.deliveryId).sort();

  const upAt = receiver.requests.length;
  receiver.behave(respond(200));
  const arrived = await waitFor(
    'every parked delivery delivered',
    () => {
      const after = receiver.requests.slice(upAt);
      return after.length >= 3 && after;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const ids = arrived.map((r) => r.headers['x-service-delivery']);
  // The check is the oldest event's delivery; the rest are queued oldest first, one a second (the
  // connection's limit), and SQS may hand two that are due together to one batch in either order.
  expect(ids[0]).toBe(oldestFirst[0]);
  expect([...ids].sort()).toEqual(oldestFirst);
  // Each continues its numbering after its 4 attempts: a check (one attempt each) may have sent
  // whichever was oldest among those parked at the time, before the others had parked.
  expect(arrived.every((r) => Number(r.headers['x-service-attempt']) >= 5)).toBe(true);
  await waitFor(
    'the parked table emptied',
    async () => (await harness.parkedOf(conn.connectionId)).length === 0,
    {
      timeoutMs: 10_000,
      intervalMs: 250,
    },
  );
  const attempts = await harness.attemptsOf(conn.connectionId);
  const delivered = attempts.filter((a) => a.outcome === 'delivered');
  expect(delivered.map((a) => a.deliveryId).sort()).toEqual(oldestFirst);
  const checks = attempts.filter((a) => a.trigger === 'probe');
  expect(checks.length).toBeGreaterThanOrEqual(1);
  // The one that got through came after all three were parked: the oldest event's.
  expect(checks.filter((a) => a.outcome === 'delivered').map((a) => a.deliveryId)).toEqual([oldestFirst[0]]);
}, 90_000);
