import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { parseMessage } from '../../lambdas/core/envelope';
import { ValidationError, WebhookPublisher } from '../../lambdas/publisher';

const sqs = mockClient(SQSClient);
const publisher = () =>
  new WebhookPublisher({ queueUrl: 'https://sqs.example/q', sqsClient: new SQSClient({}) });
const input = (n = 1) => ({
  user: { id: `usr_${n}`, email: 'ada@example.com', metadata: { plan: 'pro' } },
  application: { id: 'app_1', name: 'Acme' },
});

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.field;
    throw error;
  }
  return undefined;
}

describe('WebhookPublisher', () => {
  it('enqueues a v1 event the dispatcher accepts, with a new evt_ id and the current time', async () => {
    const { eventId, messageId } = await publisher().publishUserIdentified(input());
    expect(eventId).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(messageId).toBe('m-1');
    const body = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!;
    const message = parseMessage(body);
    expect(message).toMatchObject({
      v: 1,
      type: 'event',
      eventId,
      event: 'user.identified',
      application: { id: 'app_1' },
    });
    expect(Date.now() - Date.parse((message as { occurredAt: string }).occurredAt)).toBeLessThan(5_000);
  });

  it('keeps a given occurredAt, event id and connection ids', async () => {
    await publisher().publishUserIdentified({
      ...input(),
      occurredAt: '2026-11-21T14:53:00.123Z',
      eventId: 'evt_custom',
      connectionIds: ['con_a'],
    });
    const body = JSON.parse(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!);
    expect(body).toMatchObject({
      occurredAt: '2026-11-21T14:53:00.123Z',
      eventId: 'evt_custom',
      connectionIds: ['con_a'],
    });
  });

  it.each([
    [{ ...input(), user: { email: 'a@b.c' } }, 'user.id'],
    [{ ...input(), application: { id: 'app_1' } }, 'application.name'],
    [{ ...input(), occurredAt: 'yesterday' }, 'occurredAt'],
    [{ ...input(), connectionIds: ['x'] }, 'connectionIds[0]'],
    [{ ...input(), user: { id: 'usr_1', metadata: { big: 'x'.repeat(300_000) } } }, 'body'],
  ])('refuses an invalid event before sending, naming the field (%#)', async (bad, field) => {
    const error = await publisher()
      .publishUserIdentified(bad)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(field);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('requires a queue URL', () => {
    expect(fieldOf(() => new WebhookPublisher({ queueUrl: '' }))).toBe('queueUrl');
  });
});

describe('WebhookPublisher batch', () => {
  it('sends 10 events per SendMessageBatch and returns each published entry by index', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((cmd) => ({
      Successful: cmd.Entries.map((e: { Id: string }) => ({ Id: e.Id, MessageId: `m-${e.Id}` })),
      Failed: [],
    }));
    const result = await publisher().publishUserIdentifiedBatch(
      Array.from({ length: 23 }, (_, i) => input(i)),
    );
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries!.length)).toEqual([10, 10, 3]);
    expect(result.published.map((p) => p.index)).toEqual(Array.from({ length: 23 }, (_, i) => i));
    expect(result.failed).toEqual([]);
  });

  it('surfaces entries SQS refused, and every entry of a chunk whose call failed, and keeps going', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }))
      .callsFake((cmd) => ({
        Successful: cmd.Entries.filter((e: { Id: string }) => e.Id !== '12').map((e: { Id: string }) => ({
          Id: e.Id,
          MessageId: 'm',
        })),
        Failed: [{ Id: '12', Code: 'InternalError', Message: 'try again', SenderFault: false }],
      }));
    const result = await publisher().publishUserIdentifiedBatch(
      Array.from({ length: 15 }, (_, i) => input(i)),
    );
    expect(result.failed.map((f) => [f.index, f.code])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [i, 'ThrottlingException']),
      [12, 'InternalError'],
    ]);
    expect(result.published.map((p) => p.index)).toEqual([10, 11, 13, 14]);
    expect(result.failed.length + result.published.length).toBe(15);
  });

  it('refuses the whole batch before sending when one event is invalid, naming it', async () => {
    const error = await publisher()
      .publishUserIdentifiedBatch([input(1), { ...input(2), user: {} }])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as ValidationError).field).toBe('events[1].user.id');
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });
});

describe("the caller's trace context", () => {
  const TRACEPARENT = '00-6925a3c00123456789abcdef01234567-53995c3f42cd8ad8-01';
  const XRAY = 'Root=1-6925a3c0-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1';
  const saved = process.env._X_AMZN_TRACE_ID;
  afterEach(() => {
    if (saved === undefined) delete process.env._X_AMZN_TRACE_ID;
    else process.env._X_AMZN_TRACE_ID = saved;
  });

  it("sends the Lambda's X-Ray header as AWSTraceHeader and a given traceparent as a message attribute", async () => {
    process.env._X_AMZN_TRACE_ID = XRAY;
    await publisher().publishUserIdentified(input(), { traceparent: TRACEPARENT });
    const sent = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(sent.MessageSystemAttributes).toEqual({
      AWSTraceHeader: { DataType: 'String', StringValue: XRAY },
    });
    expect(sent.MessageAttributes).toEqual({ traceparent: { DataType: 'String', StringValue: TRACEPARENT } });
  });

  it('sends the same on every entry of a batch, and nothing outside a traced Lambda without a traceparent', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    process.env._X_AMZN_TRACE_ID = XRAY;
    await publisher().publishUserIdentifiedBatch([input(1), input(2)], { traceparent: TRACEPARENT });
    const entries = sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries!;
    for (const entry of entries) {
      expect(entry.MessageSystemAttributes?.AWSTraceHeader?.StringValue).toBe(XRAY);
      expect(entry.MessageAttributes?.traceparent?.StringValue).toBe(TRACEPARENT);
    }
    delete process.env._X_AMZN_TRACE_ID;
    await publisher().publishUserIdentified(input());
    const plain = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(plain.MessageSystemAttributes).toBeUndefined();
    expect(plain.MessageAttributes).toBeUndefined();
  });

  it('refuses a traceparent that is not one, naming the field, before anything is sent', async () => {
    await expect(publisher().publishUserIdentified(input(), { traceparent: 'abc' })).rejects.toMatchObject({
      field: 'traceparent',
    });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });
});
