/**
 * Secrets Manager unavailable for a window. A connection whose secret the dispatcher has already
 * read keeps being delivered to (the secret is cached by version); a connection created during the
 * outage cannot be signed for: its delivery is handed back to the queue (docs/design.md §4
 * "Infrastructure errors") and fails until Secrets Manager is back, then goes out. Nothing lost,
 * nothing twice.
 */
import { type Stack, startStack } from '../support/stack';
import { sleep } from '../support/wait';
import { describeFaults, expectNoLoss, publishSteadily, report, servicesInfo, size } from './helpers';

const WINDOW_MS = size(3_000, 8_000);
const EVENTS = size(20, 60);

let stack: Stack;

afterAll(async () => {
  await stack?.stop();
});

it(
  'keeps delivering with a cached secret, and redelivers what needs an uncached one until it is back',
  async () => {
    stack = await startStack({
      services: servicesInfo(),
      label: 'secrets',
      visibilityTimeoutSeconds: 7,
      attemptTimeoutMs: 1_000,
      functionTimeoutMs: 6_500,
      proxies: true,
    });
    const app = 'app_secrets';
    const cached = await stack.connect(await stack.addReceiver('ok'), app);
    const laterReceiver = await stack.addReceiver('ok');
    await stack.startDispatcher();
    // One delivery before the outage: the dispatcher reads (and caches) this connection's secret.
    await stack.publishEvents(1, { applicationId: app, connections: [cached.connection.connectionId] });
    await sleep(1_500);

    const outage = await stack.proxies!.secretsManager.refuse(WINDOW_MS, 'Secrets Manager unreachable');
    const outageStart = Date.now();
    // Created during the outage (the management API still reaches Secrets Manager; the dispatcher does not).
    const uncached = await stack.connect(laterReceiver, app);
    const both = [cached.connection.connectionId, uncached.connection.connectionId];
    await publishSteadily(stack, {
      applicationId: app,
      connections: both,
      total: EVENTS,
      overMs: WINDOW_MS - 1_000,
    });
    await sleep(outageStart + WINDOW_MS - Date.now());
    await stack.proxies!.secretsManager.clear();
    const outageEnd = outage.endedAt ?? Date.now();
    const drainedAt = await stack.waitForDrain({ timeoutMs: 60_000, quietMs: 2_000 });
    const ledger = await stack.ledger(drainedAt);
    const handedBack = stack.log.counts['warn: delivery handed back to the queue'] ?? 0;
    report(
      'Secrets Manager unreachable',
      ledger,
      `${describeFaults([outage])}; ${handedBack} deliveries handed back, ${stack.batchStats().recordsLeft} records redelivered`,
      stack,
    );

    expectNoLoss(ledger);
    expect(ledger.duplicateSends).toBe(0);
    const sendsOf = (connectionId: string) =>
      [...stack.fleet.deliveries.values()]
        .filter((d) => d.connectionId === connectionId)
        .flatMap((d) => d.sends);
    // The cached connection was delivered to during the outage…
    expect(sendsOf(cached.connection.connectionId).some((s) => s.at > outageStart && s.at < outageEnd)).toBe(
      true,
    );
    // …the uncached one only after it, once its records came round again.
    const later = sendsOf(uncached.connection.connectionId);
    expect(later).toHaveLength(EVENTS);
    expect(later.every((s) => s.at >= outageEnd - 100)).toBe(true);
    expect(handedBack).toBeGreaterThan(0);
  },
  size(90_000, 180_000),
);
