/**
 * What the management library is handed (docs/design.md §2, rule 8): the
 * stores, queues and secret keepers it works through, declared here by the code that uses
 * them. It builds none of them: the composition root (lambdas/backend/) builds them for the deployed stack or local
 * mode's emulators, and tests hand in memory ones. Nothing under lambdas/management/ imports
 * an AWS SDK or an adapter (test/unit/architecture.test.ts).
 */

import type { OperationalEvents, RateWindowReader, RetryScheduler } from '../core/ports';
import type { AttemptTable, ConnectionTable, ParkedTable, SecretFields } from '../core/stores';
import type { AttemptRecord, Connection, DeliveryMessage } from '../core/types';
import type { WebhookPublisher } from '../publisher';
import type { OperatorStatsSource } from './stats-port';

/** SQS's longest `DelaySeconds`, and the most messages one batch send takes. */
export const MAX_DELAY_SECONDS = 900;
export const QUEUE_BATCH_LIMIT = 10;

/** The retry queue as recovery uses it: one delivery, or up to {@link QUEUE_BATCH_LIMIT} at once. */
export interface DeliveryQueue extends RetryScheduler {
  /** Sends the batch; the delivery ids that were queued (the rest failed and may be sent again). */
  scheduleBatch(items: readonly { delivery: DeliveryMessage; delaySeconds: number }[]): Promise<string[]>;
}

/** A message of the dead-letter queue, received and hidden until it is released or deleted. */
export interface DlqMessage {
  id: string;
  /** What releases or deletes this receipt of it. */
  receipt: string;
  body: string;
  sentAtMs?: number;
  /** The queue SQS moved it from, when the queue says (`DeadLetterQueueSourceArn`). */
  movedFrom?: 'ingress' | 'retry';
}

/** The dead-letter queue, message by message (management/dead-letters.ts reads what they are). */
export interface DlqMessages {
  /** Up to 10 messages, each hidden for `visibilitySeconds`; none when the queue is empty. */
  receive(visibilitySeconds: number): Promise<DlqMessage[]>;
  /** Makes received messages visible again at once. */
  release(messages: readonly DlqMessage[]): Promise<void>;
  /** Sends a body to the ingress or the retry queue. */
  send(queue: 'ingress' | 'retry', body: string): Promise<void>;
  delete(message: DlqMessage): Promise<void>;
}

export interface NewSecretOf {
  connectionId: string;
  applicationId: string;
  /** Friendly name of the connection, for a description. */
  name: string;
}

/** Where connection secrets are kept (docs/design.md §5 "The KMS secret store"). */
export interface SecretKeeper {
  /** Keeps the secret of a new connection; the fields its item stores. */
  create(owner: NewSecretOf, secret: string): Promise<SecretFields>;
  /** Undoes {@link create} when the connection could not be saved; never throws. */
  discard(fields: SecretFields): Promise<void>;
  /**
   * The secret of the version the connection names, and that version: its current secret, or a
   * rotation's next one when handed core/secret-switch.ts pendingAsCurrent(connection).
   */
  reveal(connection: Connection): Promise<{ secret: string; secretVersion?: string }>;
  /** Keeps a new secret for the connection; the fields to write over the item's. */
  rotate(connection: Connection, secret: string): Promise<SecretFields>;
  /** Removes the secret of a deleted connection (gone already is fine). */
  remove(connection: Connection): Promise<void>;
}

/** One Send Test: a delivery attempted once through the dispatcher's own code, then closed. */
export interface TestSends {
  send(delivery: DeliveryMessage, connection: Connection): Promise<AttemptRecord>;
  close(): Promise<void>;
}

/** Everything the management library works through, built once per process. */
export interface ManagementBackend {
  connections: ConnectionTable;
  attempts: AttemptTable;
  /** Absent on a stack that predates parked deliveries. */
  parked?: ParkedTable;
  retryQueue: DeliveryQueue;
  deadLetters: DlqMessages;
  secrets: SecretKeeper;
  /** Where `connection.recovered` goes; absent: not published. */
  events?: OperationalEvents;
  /** The rate-limit counters; absent on a stack that predates them. */
  rateWindows?: RateWindowReader;
  /** A secret's string value (the console session key). */
  secretString(secretId: string): Promise<string>;
  /** `webhooks stats`' figures. */
  stats: OperatorStatsSource;
  publisher: WebhookPublisher;
  /** A Send Test's wiring, made for one send. */
  testSends(): TestSends;
}
