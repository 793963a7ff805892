/**
 * Recovery probes under the fault suite's ledger (docs/design.md §9 "Recovery probes"): an
 * endpoint is down until every delivery to it has exhausted its 4 attempts and parked, then comes
 * back, and nobody recovers anything. The checks (WEBHOOKS_RECOVERY_PROBES, seconds-long here)
 * find it back and recover the rest: every delivery ends delivered, each of its attempts, the
 * checks included, logged and received once, and the queues drain once the chain has ended.
 */
import { type Stack, startStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { expectNoLoss, report, servicesInfo, size } from './helpers';

const EVENTS = size(6, 30);
let stack: Stack | undefined;

afterAll(async () => {
  await stack?.stop();
});

it(
  'loses nothing when an endpoint comes back by itself: checks find it, the parked deliveries are recovered with no command',
  async () => {
    const s = await startStack({
      services: servicesInfo(),
      label: 'probes',
      visibilityTimeoutSeconds: 7,
      attemptTimeoutMs: 1_000,
      functionTimeoutMs: 6_500,
      recoveryProbes: '2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
    });
    stack = s;
    const app = 'app_probes';
    const receiver = await s.addReceiver('fail');
    const { connection } = await s.connect(receiver, app);
    await s.startDispatcher();
    await s.publishEvents(EVENTS, { applicationId: app, connections: [connection.connectionId] });
    await waitFor(
      'every delivery parked',
      async () =>
        (await s.management.listParked(connection.connectionId, { limit: 200 })).data.length === EVENTS,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    receiver.behave('ok');
    // A chain of checks keeps a delayed message on the retry queue: drained means it has ended.
    const drainedAt = await s.waitForDrain({ timeoutMs: 90_000, quietMs: 2_000 });
    const ledger = await s.ledger(drainedAt);
    const recovered =
      s.log.counts[
        'info: endpoint answered a recovery check; its parked deliveries are queued, oldest first'
      ] ?? 0;
    report('endpoint back by itself, recovered by checks', ledger, `${recovered} recovery after a check`, s);

    expectNoLoss(ledger);
    expect(ledger.delivered).toBe(EVENTS);
    expect(ledger.parked).toBe(0);
    expect(recovered).toBeGreaterThanOrEqual(1);
    const health = (await s.management.getConnection(connection.connectionId)).health;
    expect(health.state).toBe('healthy');
    expect(health.nextCheckAt).toBeUndefined();
  },
  size(150_000, 240_000),
);
