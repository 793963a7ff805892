/**
 * `npm run demo`: a scripted tour of what the pipeline does, against the demo receiver:
 * a delivery that succeeds, a flaky receiver that recovers on the 2nd retry, a dead one
 * whose delivery is parked for its connection, the attempt log of each, and a retry of the
 * parked delivery once the receiver is fixed.
 */

import type { AttemptRecord } from '../lambdas/core/types';
import type { WebhookManagement } from '../lambdas/management';
import type { DemoReceiver } from './demo-receiver';

const TOUR_APPLICATION = { id: 'app_demo_tour', name: 'Demo Tour' };
const WAIT_MS = 45_000;

interface TourOptions {
  management: WebhookManagement;
  receiver: DemoReceiver;
  out(line?: string): void;
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`demo: gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function table(records: AttemptRecord[]): string[] {
  return [...records]
    .sort((a, b) => a.attempt - b.attempt)
    .map(
      (r) =>
        `    attempt ${r.attempt}  ${r.requestedAt.slice(11, 23)}  ${r.outcome.padEnd(10)} ${String(r.statusCode ?? '-').padEnd(4)} ${String(r.durationMs).padStart(4)} ms${r.final ? '  final' : `  next ${r.nextAttemptAt?.slice(11, 23) ?? ''}`}`,
    );
}

export async function runDemoTour({ management, receiver, out }: TourOptions): Promise<void> {
  const { connections, attempts } = management;
  for (const old of await connections.list({ applicationId: TOUR_APPLICATION.id }))
    await connections.delete(old.connectionId);

  out('\n── Demo tour ─────────────────────────────────────────────');
  const make = (name: string, path: string) =>
    connections.create({ applicationId: TOUR_APPLICATION.id, name, url: `${receiver.origin}${path}` });
  const healthy = await make('Healthy receiver', '/hooks');
  const flaky = await make('Flaky receiver', '/flaky');
  const dead = await make('Dead receiver', '/dead');
  out(`1. Three connections of ${TOUR_APPLICATION.id}: healthy (${healthy.connectionId}), flaky, dead.`);

  const { eventId } = await management.publisher.publishUserIdentified({
    user: { id: 'usr_tour_1', email: 'grace@example.com', name: 'Grace Hopper', metadata: { plan: 'team' } },
    application: TOUR_APPLICATION,
  });
  out(
    `2. Published ${eventId}; the dispatcher fans it out to all three. Retries come after 1 s, 2 s and 4 s.\n`,
  );

  const ofConnection = (id: string) => () => attempts.list({ connectionId: id, limit: 20 });
  const ok = await until('the healthy delivery', ofConnection(healthy.connectionId), (a) =>
    a.some((r) => r.outcome === 'delivered'),
  );
  out('Healthy receiver: delivered at once.');
  out(table(ok).join('\n'));
  const fl = await until('the flaky receiver to recover', ofConnection(flaky.connectionId), (a) =>
    a.some((r) => r.outcome === 'delivered'),
  );
  out('Flaky receiver: two 503s, then delivered on the 2nd retry.');
  out(table(fl).join('\n'));
  const dd = await until('the dead receiver to give up', ofConnection(dead.connectionId), (a) =>
    a.some((r) => r.final),
  );
  out('Dead receiver: four failed attempts, then parked for its connection.');
  out(table(dd).join('\n'));

  const parked = await until(
    'the parked delivery',
    () => management.listParked(dead.connectionId),
    (p) => p.data.length > 0,
  );
  const item = parked.data[0]!;
  out(
    `\n3. Parked for ${dead.connectionId}: ${item.deliveryId} reason=${item.reason} error="${item.lastError}"`,
  );

  receiver.heal();
  out('4. The dead receiver is fixed. Retrying its delivery (same id and body, a fresh chain of attempts)…');
  await management.retryDelivery(item.deliveryId);
  const after = await until(
    'the retried delivery',
    () => attempts.ofDelivery(item.deliveryId),
    (a) => a.some((r) => r.outcome === 'delivered'),
  );
  out(`Attempt log of ${item.deliveryId}:`);
  out(table(after).join('\n'));
  out(
    '\nTour complete: every event ended delivered, or parked for its connection with its reason and full attempt history.',
  );
}
