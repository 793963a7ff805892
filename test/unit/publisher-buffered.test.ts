import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { parseMessage } from '../../lambdas/core/envelope';
import { BufferedPublisher, PublishError, ValidationError } from '../../lambdas/publisher';

const sqs = mockClient(SQSClient);
const input = (n: number) => ({
  user: { id: `usr_${n}`, email: 'ada@example.com' },
  application: { id: 'app_1', name: 'Acme' },
});

/** Timers the test fires by hand: nothing happens until `fire()`. */
function manualTimers() {
  const due: Array<{ callback: () => void; ms: number }> = [];
  return {
    due,
    set: (callback: () => void, ms: number) => {
      const entry = { callback, ms };
      due.push(entry);
      return entry;
    },
    clear: (handle: unknown) => {
      const i = due.indexOf(handle as (typeof due)[number]);
      if (i >= 0) due.splice(i, 1);
    },
    /** Runs every timer set so far (and those they set, after the sends settle). */
    async fire(rounds = 5) {
      for (let r = 0; r < rounds; r++) {
        const now = due.splice(0);
        for (const t of now) t.callback();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

/** SQS accepts every entry, answering with `m-<Id>`. */
function acceptAll() {
  sqs.on(SendMessageBatchCommand).callsFake((i: SendMessageBatchCommandInput) => ({
    Successful: i.Entries!.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })),
  }));
}

const batches = () => sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries!.length);

beforeEach(() => sqs.reset());

describe('BufferedPublisher', () => {
  it('sends full batches of 10 at once and the rest after maxDelayMs, each promise settling when SQS took it', async () => {
    acceptAll();
    const timers = manualTimers();
    const publisher = new BufferedPublisher({
      queueUrl: 'https://sqs.example/q',
      sqsClient: new SQSClient({}),
      timers,
    });
    const results = Array.from({ length: 25 }, (_, n) => publisher.publishUserIdentified(input(n)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches()).toEqual([10, 10]);
    expect(timers.due.map((t) => t.ms)).toEqual([100]);
    expect(publisher.pending).toBe(5);
    await timers.fire();
    expect(batches()).toEqual([10, 10, 5]);
    const published = await Promise.all(results);
    expect(new Set(published.map((p) => p.eventId)).size).toBe(25);
    expect(published.every((p) => p.messageId.startsWith('m-'))).toBe(true);
    const bodies = sqs.commandCalls(SendMessageBatchCommand).flatMap((c) => c.args[0].input.Entries!);
    expect(bodies.map((e) => parseMessage(e.MessageBody!).type)).toEqual(Array(25).fill('event'));
    expect(publisher.pending).toBe(0);
  });

  it('sends what waits on flush() without waiting for the delay', async () => {
    acceptAll();
    const timers = manualTimers();
    const publisher = new BufferedPublisher({
      queueUrl: 'https://sqs.example/q',
      sqsClient: new SQSClient({}),
      timers,
    });
    const one = publisher.publishUserIdentified(input(1));
    const two = publisher.publishUserIdentified(input(2));
    await publisher.flush();
    expect(batches()).toEqual([2]);
    expect(timers.due).toEqual([]);
    await expect(Promise.all([one, two])).resolves.toHaveLength(2);
  });

  it('refuses an invalid event at once, naming the field, and queues nothing', () => {
    const publisher = new BufferedPublisher({
      queueUrl: 'https://sqs.example/q',
      sqsClient: new SQSClient({}),
    });
    expect(() => publisher.publishUserIdentified({ ...input(1), user: { id: '' } } as never)).toThrow(
      ValidationError,
    );
    expect(publisher.pending).toBe(0);
  });

  it('sends an entry SQS refused for a reason of its own again, and rejects an entry at fault at once', async () => {
    let call = 0;
    sqs.on(SendMessageBatchCommand).callsFake((i: SendMessageBatchCommandInput) => {
      call += 1;
      const [first, second, ...rest] = i.Entries!;
      if (call === 1)
        return {
          Successful: rest.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })),
          Failed: [
            { Id: first!.Id, Code: 'ThrottlingException', Message: 'slow down', SenderFault: false },
            { Id: second!.Id, Code: 'InvalidMessageContents', Message: 'bad', SenderFault: true },
          ],
        };
      return { Successful: i.Entries!.map((e) => ({ Id: e.Id, MessageId: `again-${e.Id}` })) };
    });
    const timers = manualTimers();
    const publisher = new BufferedPublisher({
      queueUrl: 'https://sqs.example/q',
      sqsClient: new SQSClient({}),
      timers,
    });
    const results = Array.from({ length: 3 }, (_, n) => publisher.publishUserIdentified(input(n)));
    const settled = Promise.allSettled(results);
    const flushed = publisher.flush();
    await timers.fire();
    await flushed;
    const [throttled, atFault, fine] = await settled;
    expect(throttled).toMatchObject({ status: 'fulfilled', value: { messageId: 'again-0' } });
    expect(fine).toMatchObject({ status: 'fulfilled', value: { messageId: 'm-2' } });
    expect(atFault!.status).toBe('rejected');
    const error = (atFault as PromiseRejectedResult).reason as PublishError;
    expect(error).toBeInstanceOf(PublishError);
    expect(error).toMatchObject({ code: 'InvalidMessageContents', senderFault: true, attempts: 1 });
    expect(batches()).toEqual([3, 1]);
  });

  it('rejects with PublishError after 1 + retries sends when SQS cannot be reached: never a silent drop', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .rejects(Object.assign(new Error('connect ETIMEDOUT'), { name: 'TimeoutError' }));
    const timers = manualTimers();
    const publisher = new BufferedPublisher({
      queueUrl: 'https://sqs.example/q',
      sqsClient: new SQSClient({}),
      timers,
      retries: 2,
    });
    const result = publisher.publishUserIdentified(input(1)).catch((e: unknown) => e);
    void publisher.flush();
    await timers.fire(10);
    const error = (await result) as PublishError;
    expect(error).toBeInstanceOf(PublishError);
    expect(error.message).toMatch(
      /^event evt_\w+ was not queued after 3 sends: TimeoutError: connect ETIMEDOUT$/,
    );
    expect(batches()).toEqual([1, 1, 1]);
  });

  it('refuses settings out of range by name', () => {
    expect(
      () =>
        new BufferedPublisher({
          queueUrl: 'https://sqs.example/q',
          sqsClient: new SQSClient({}),
          maxDelayMs: 5000,
        }),
    ).toThrow(/maxDelayMs/);
  });
});
