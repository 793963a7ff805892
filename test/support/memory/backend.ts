/**
 * The management library's backend in memory (lambdas/management/ports.ts ManagementBackend):
 * the memory tables and queues of the dispatcher's tests, a secret keeper, the dead-letter
 * queue's messages and Send Test, so `new WebhookManagement({ resources, backend })` runs with
 * no emulator. Each part is readable for assertions.
 */

import type { AttemptRecord, Connection } from '../../../lambdas/core/types';
import type {
  DlqMessage,
  DlqMessages,
  ManagementBackend,
  SecretKeeper,
} from '../../../lambdas/management/ports';
import type { WebhookResources } from '../../../lambdas/management/types';
import { WebhookPublisher } from '../../../lambdas/publisher';
import { MemoryAttempts } from './attempts';
import { MemoryConnections } from './connections';
import { MemoryEvents } from './events';
import { MemoryParked } from './parked';
import { MemoryQueues } from './queues';
import { MemoryRateWindows } from './rate-windows';

/** Secrets by their ARN and version; a rotation is a new version, read by the version a connection names. */
export class MemorySecretKeeper implements SecretKeeper {
  /** `<arn>#<version>` to the secret. */
  readonly secrets = new Map<string, string>();
  private versions = 0;

  async create(owner: { connectionId: string }, secret: string) {
    return this.keep(owner.connectionId, secret);
  }
  async discard(fields: { secretArn: string; secretVersion: string }) {
    this.secrets.delete(`${fields.secretArn}#${fields.secretVersion}`);
  }
  async reveal(connection: Connection) {
    return {
      secret: this.secrets.get(`${connection.secretArn}#${connection.secretVersion}`) ?? '',
      secretVersion: connection.secretVersion,
    };
  }
  async rotate(connection: Connection, secret: string) {
    return this.keep(connection.connectionId, secret);
  }
  async remove(connection: Connection) {
    for (const key of this.secrets.keys())
      if (key.startsWith(`${connection.secretArn}#`)) this.secrets.delete(key);
  }
  private keep(connectionId: string, secret: string) {
    const secretVersion = `v${++this.versions}`;
    const secretArn = `memory:secret:${connectionId}`;
    this.secrets.set(`${secretArn}#${secretVersion}`, secret);
    return { secretArn, secretVersion };
  }
}

/** The dead-letter queue's messages: received ones are hidden until released or deleted. */
export class MemoryDlqMessages implements DlqMessages {
  readonly waiting: DlqMessage[] = [];
  readonly sent: Array<{ queue: 'ingress' | 'retry'; body: string }> = [];
  private hidden = new Set<string>();

  add(body: string, movedFrom?: 'ingress' | 'retry'): void {
    const id = `m${this.waiting.length + 1}`;
    this.waiting.push({ id, receipt: id, body, sentAtMs: Date.now(), ...(movedFrom ? { movedFrom } : {}) });
  }
  async receive(): Promise<DlqMessage[]> {
    const page = this.waiting.filter((m) => !this.hidden.has(m.receipt)).slice(0, 10);
    for (const m of page) this.hidden.add(m.receipt);
    return page;
  }
  async release(messages: readonly DlqMessage[]): Promise<void> {
    for (const m of messages) this.hidden.delete(m.receipt);
  }
  async send(queue: 'ingress' | 'retry', body: string): Promise<void> {
    this.sent.push({ queue, body });
  }
  async delete(message: DlqMessage): Promise<void> {
    this.waiting.splice(this.waiting.indexOf(message), 1);
    this.hidden.delete(message.receipt);
  }
}

export const MEMORY_RESOURCES: WebhookResources = {
  queueUrl: 'memory://ingress',
  retryQueueUrl: 'memory://retry',
  dlqUrl: 'memory://dlq',
  connectionsTable: 'connections',
  attemptsTable: 'attempts',
  parkedTable: 'parked',
  secretPrefix: 'memory/',
  consoleKeySecret: 'console-key',
  apiUrl: 'http://127.0.0.1:1',
};

/** A backend of memory ports; `testSend` answers each Send Test (delivered by default). */
export function memoryBackend(
  testSend: (connection: Connection) => AttemptRecord['outcome'] = () => 'delivered',
) {
  const attempts = new MemoryAttempts();
  const published: string[] = [];
  const parts = {
    connections: new MemoryConnections(),
    attempts,
    parked: new MemoryParked(),
    retryQueue: new MemoryQueues(),
    deadLetters: new MemoryDlqMessages(),
    secrets: new MemorySecretKeeper(),
    events: new MemoryEvents(),
    rateWindows: new MemoryRateWindows(),
    published,
  };
  const backend: ManagementBackend = {
    ...parts,
    secretString: async () => 'k'.repeat(48),
    stats: { read: async () => Promise.reject(new Error('no stats in memory')) },
    publisher: new WebhookPublisher({
      queueUrl: MEMORY_RESOURCES.queueUrl,
      sqsClient: {
        send: async (command: { input: { MessageBody?: string } }) => {
          published.push(command.input.MessageBody ?? '');
          return { MessageId: `p${published.length}` };
        },
      } as never,
    }),
    testSends: () => ({
      async send(delivery, connection) {
        const record: AttemptRecord = {
          deliveryId: delivery.deliveryId,
          attempt: delivery.attempt,
          eventId: delivery.eventId,
          connectionId: connection.connectionId,
          applicationId: connection.applicationId,
          userId: 'usr_test_0000000000',
          event: 'user.identified',
          method: connection.method,
          target: connection.url,
          requestedAt: new Date().toISOString(),
          durationMs: 1,
          outcome: testSend(connection),
          final: true,
          test: true,
          expiresAt: Math.floor(Date.now() / 1000) + 86_400,
        };
        await attempts.append(record);
        return record;
      },
      close: async () => undefined,
    }),
  };
  return { backend, ...parts };
}
