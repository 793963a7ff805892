/**
 * The buffered publisher against the SQS emulator: 25 events in three SendMessageBatch calls,
 * every one on the queue once, each a valid event message.
 */

import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseMessage } from '../../lambdas/core/envelope';
import { BufferedPublisher } from '../../lambdas/publisher';
import { createQueue, uniqueName } from '../support/emulators';
import { messagesLeft } from '../support/queries';

describe('BufferedPublisher on a real queue', () => {
  it('enqueues every event once, in batches', async () => {
    const sqs = new SQSClient({});
    const queue = await createQueue(sqs, uniqueName('buffered'));
    let batches = 0;
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendMessageBatchCommand') batches += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    const publisher = new BufferedPublisher({ queueUrl: queue.url, sqsClient: sqs, maxDelayMs: 20 });
    const published = await Promise.all(
      Array.from({ length: 25 }, (_, n) =>
        publisher.publishUserIdentified({
          user: { id: `usr_${n}`, email: 'ada@example.com' },
          application: { id: 'app_buffered', name: 'Acme' },
        }),
      ),
    );
    expect(batches).toBe(3);
    expect(await messagesLeft(sqs, queue.url)).toBe(25);
    const seen = new Set<string>();
    while (seen.size < 25) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      for (const m of Messages) {
        const message = parseMessage(m.Body!);
        if (message.type === 'event') seen.add(message.eventId);
      }
      if (Messages.length === 0) break;
    }
    expect([...seen].sort()).toEqual(published.map((p) => p.eventId).sort());
    sqs.destroy();
  });
});
