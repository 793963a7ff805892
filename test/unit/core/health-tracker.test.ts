import type { ConnectionHealth } from '../../../lambdas/core/health';
import { createHealthTracker } from '../../../lambdas/core/health-tracker';
import type { OperationalEvent } from '../../../lambdas/core/parking';
import type { HealthStore, HealthWrite, Log } from '../../../lambdas/core/ports';
import type { Connection } from '../../../lambdas/core/types';

const connection: Connection = {
  connectionId: 'con_1',
  applicationId: 'app_1',
  type: 'webhook',
  name: 'CRM',
  url: 'https://crm.example.com/hooks?token=sekret',
  method: 'POST',
  headers: { Authorization: 'Bearer sekret' },
  enabled: true,
  secretArn: 'arn:aws:secretsmanager:eu-west-1:1:secret:x',
  createdAt: '2026-11-22T00:00:00.000Z',
  updatedAt: '2026-11-22T00:00:00.000Z',
};

class Store implements HealthStore {
  health: ConnectionHealth | undefined;
  reads = 0;
  writes = 0;
  failing = false;
  async read() {
    this.reads++;
    if (this.failing) throw new Error('DynamoDB is down');
    return this.health;
  }
  async write(_id: string, next: ConnectionHealth, expected: number): Promise<HealthWrite> {
    if ((this.health?.version ?? 0) !== expected) return 'conflict';
    this.health = next;
    this.writes++;
    return 'written';
  }
}

const quiet: Log = { debug() {}, info() {}, warn() {}, error() {} };

function setup(thresholds = { failingAfter: 3, disableAfter: 4 }) {
  const store = new Store();
  const events: OperationalEvent[] = [];
  const tracker = createHealthTracker(
    {
      health: store,
      events: { publish: async (e) => void events.push(e) },
      clock: { now: () => 0 },
      log: quiet,
    },
    thresholds,
  );
  return { store, events, tracker };
}

describe('health tracker (the dispatcher side of docs/design.md §9)', () => {
  it('spends no read and no write on deliveries to a healthy connection', async () => {
    const { store, tracker } = setup();
    for (let i = 0; i < 5; i++) await tracker.delivered(connection);
    expect(store.reads + store.writes).toBe(0);
  });

  it('announces failing then disabled once each, without a secret, URL or header value', async () => {
    const { events, tracker } = setup();
    await Promise.all([1, 2, 3, 4, 5].map(() => tracker.exhausted(connection)));
    expect(events.map((e) => e.type)).toEqual(['connection.failing', 'connection.disabled']);
    expect(events[1]).toMatchObject({
      connectionId: 'con_1',
      applicationId: 'app_1',
      state: 'disabled',
      consecutiveFailures: 4,
    });
    expect(JSON.stringify(events)).not.toMatch(/sekret|crm\.example\.com/);
  });

  it('resets the count on a delivery after failures it recorded itself, though its cached copy says healthy', async () => {
    const { store, events, tracker } = setup({ failingAfter: 3, disableAfter: 10 } as never);
    await tracker.exhausted(connection);
    await tracker.exhausted(connection);
    await tracker.delivered(connection);
    expect(store.health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
    await tracker.exhausted(connection);
    expect(events).toEqual([]);
  });

  it('recovers a failing connection on a delivery and says so once', async () => {
    const { events, tracker } = setup();
    for (let i = 0; i < 3; i++) await tracker.exhausted(connection);
    await tracker.delivered(connection);
    await tracker.delivered(connection);
    expect(events.map((e) => e.type)).toEqual(['connection.failing', 'connection.recovered']);
  });

  it('never fails the delivery when health cannot be written (DynamoDB down)', async () => {
    const { store, tracker } = setup();
    store.failing = true;
    await expect(tracker.exhausted(connection)).resolves.toBeUndefined();
  });
});
