/**
 * The queue ports in memory, as lambdas/adapters/sqs/queues.ts gives them: delayed retries and
 * recovery batches (at most 10 a call, the ids it took returned), dead letters, and attempt
 * records waiting for the attempt log. What was sent is kept in order for tests to read; the
 * contract suite (test/contract/queues.test.ts) holds both to the same behaviour.
 */

import type { AttemptLogFallback, DeadLetters, RetryScheduler } from '../../../lambdas/core/ports';
import type { ProbeQueue } from '../../../lambdas/core/probe-ports';
import type { AttemptRecord, DeadLetter, DeliveryMessage, ProbeMessage } from '../../../lambdas/core/types';
import { checkOutage, noOutage, type Outage } from './outage';

/** SendMessageBatch's limit, which the SQS adapter keeps too. */
const BATCH_LIMIT = 10;

export class MemoryQueues implements RetryScheduler, DeadLetters, AttemptLogFallback, ProbeQueue {
  readonly scheduled: Array<{ delivery: DeliveryMessage; delaySeconds: number }> = [];
  /** Recovery checks queued (core/prober.ts), in order. */
  readonly probes: Array<{ message: ProbeMessage; delaySeconds: number }> = [];
  readonly deadLetters: DeadLetter[] = [];
  readonly deferred: AttemptRecord[] = [];

  constructor(
    /** Operations: schedule, scheduleBatch, put, defer. */
    private readonly outage: Outage = noOutage,
  ) {}

  private check(operation: string): void {
    checkOutage(this.outage, operation, 'SQS');
  }

  /** Forgets what was sent (between benchmark rounds). */
  clear(): void {
    this.scheduled.length = 0;
    this.probes.length = 0;
    this.deadLetters.length = 0;
    this.deferred.length = 0;
  }

  async schedule(delivery: DeliveryMessage, delaySeconds: number): Promise<void> {
    this.check('schedule');
    this.scheduled.push({ delivery, delaySeconds });
  }

  async queue(message: ProbeMessage, delaySeconds: number): Promise<void> {
    this.check('schedule');
    this.probes.push({ message, delaySeconds });
  }

  async scheduleBatch(
    items: readonly { delivery: DeliveryMessage; delaySeconds: number }[],
  ): Promise<string[]> {
    this.check('scheduleBatch');
    if (items.length > BATCH_LIMIT) throw new RangeError(`at most ${BATCH_LIMIT} messages per batch`);
    this.scheduled.push(...items);
    return items.map((item) => item.delivery.deliveryId);
  }

  async put(letter: DeadLetter): Promise<void> {
    this.check('put');
    this.deadLetters.push(letter);
  }

  async defer(record: AttemptRecord): Promise<void> {
    this.check('defer');
    this.deferred.push(record);
  }
}
