/**
 * The queue ports' contract (core/ports.ts RetryScheduler, DeadLetters, AttemptLogFallback, and
 * the recovery's batches), run against test/support/memory/queues.ts and
 * lambdas/adapters/sqs/queues.ts on fauxqs, each test on a retry queue and a DLQ of its own.
 * What a port sent is read back from where it went: the memory queues' lists, or the queues.
 */

import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueues } from '../../lambdas/adapters/sqs/queues';
import type { AttemptLogFallback, DeadLetters, RetryScheduler } from '../../lambdas/core/ports';
import type { DeadLetter, DeliveryMessage } from '../../lambdas/core/types';
import { createQueue, uniqueName } from '../support/emulators';
import { attemptAt, id } from '../support/fixtures';
import { MemoryQueues } from '../support/memory';
import { takeMessages } from '../support/queries';
import { contract } from './contract';

interface QueuesUnderTest {
  queues: RetryScheduler & DeadLetters & AttemptLogFallback & Pick<SqsQueues, 'scheduleBatch'>;
  /** The message bodies that reached the retry queue (exactly `count` expected), parsed. */
  retryQueue(count: number): Promise<unknown[]>;
  deadLetterQueue(count: number): Promise<unknown[]>;
}

const sqs = new SQSClient({});
afterAll(() => sqs.destroy());

function onSqs(): QueuesUnderTest {
  const made = Promise.all([
    createQueue(sqs, uniqueName('retry', 'ct')),
    createQueue(sqs, uniqueName('dlq', 'ct')),
  ]);
  let queues: SqsQueues | undefined;
  const ready = async () => {
    const [retry, dlq] = await made;
    queues ??= new SqsQueues({ retryQueueUrl: retry.url, dlqUrl: dlq.url, client: sqs });
    return { queues, retry, dlq };
  };
  return {
    queues: {
      schedule: async (delivery, delaySeconds) => (await ready()).queues.schedule(delivery, delaySeconds),
      scheduleBatch: async (items) => (await ready()).queues.scheduleBatch(items),
      put: async (letter) => (await ready()).queues.put(letter),
      defer: async (record) => (await ready()).queues.defer(record),
    },
    retryQueue: async (count) => takeMessages(sqs, (await ready()).retry.url, count, 10_000),
    deadLetterQueue: async (count) => takeMessages(sqs, (await ready()).dlq.url, count, 10_000),
  };
}

function inMemory(): QueuesUnderTest {
  const queues = new MemoryQueues();
  return {
    queues,
    retryQueue: async () => [
      ...queues.scheduled.map((s) => s.delivery),
      ...queues.deferred.map((record) => ({ v: 1, type: 'attempt-log', record })),
    ],
    deadLetterQueue: async () => [...queues.deadLetters],
  };
}

/** Text SQS refuses raw (U+FFFF): what a receiver or a user may put in a body or an error. */
const HOSTILE = 'tab\tnul\u0000 \uFFFF end';

function delivery(attempt = 2): DeliveryMessage {
  const connectionId = id('con');
  return {
    v: 1,
    type: 'delivery',
    deliveryId: attemptAt(connectionId, 'app_1', Date.now()).deliveryId,
    eventId: id('evt'),
    connectionId,
    attempt,
    chainStart: 1,
    body: JSON.stringify({ event: 'user.identified', name: HOSTILE }),
    firstAttemptAt: new Date().toISOString(),
  };
}

contract('queues', { memory: inMemory, emulators: onSqs }, (make) => {
  it('schedules a retry on the retry queue, byte for byte, whatever text its body holds', async () => {
    const { queues, retryQueue } = make();
    const retry = delivery();
    await queues.schedule(retry, 0);
    expect(await retryQueue(1)).toEqual([retry]);
  });

  it("sends a recovery's batch of up to 10 and says which it took; more than 10 is refused whole", async () => {
    const { queues, retryQueue } = make();
    const batch = [delivery(5), delivery(5), delivery(5)];
    const taken = await queues.scheduleBatch(batch.map((d) => ({ delivery: d, delaySeconds: 0 })));
    expect(taken.sort()).toEqual(batch.map((d) => d.deliveryId).sort());
    expect(await queues.scheduleBatch([])).toEqual([]);
    const eleven = Array.from({ length: 11 }, () => ({ delivery: delivery(), delaySeconds: 0 }));
    await expect(queues.scheduleBatch(eleven)).rejects.toThrow(RangeError);
    const arrived = (await retryQueue(3)) as DeliveryMessage[];
    expect(arrived.map((d) => d.deliveryId).sort()).toEqual(taken);
  });

  it('puts a dead letter on the DLQ as written, and only there', async () => {
    const { queues, retryQueue, deadLetterQueue } = make();
    const letter: DeadLetter = {
      v: 1,
      type: 'dead-letter',
      reason: 'connection_missing',
      error: `connection is gone: ${HOSTILE}`,
      failedAt: new Date().toISOString(),
      delivery: delivery(),
    };
    await queues.put(letter);
    expect(await deadLetterQueue(1)).toEqual([letter]);
    expect(await retryQueue(0)).toEqual([]);
  });

  it('defers an attempt record to the retry queue as an attempt-log message', async () => {
    const { queues, retryQueue, deadLetterQueue } = make();
    const record = attemptAt(id('con'), id('app'), Date.now(), { error: HOSTILE, outcome: 'network_error' });
    await queues.defer(record);
    expect(await retryQueue(1)).toEqual([{ v: 1, type: 'attempt-log', record }]);
    expect(await deadLetterQueue(0)).toEqual([]);
  });
});
