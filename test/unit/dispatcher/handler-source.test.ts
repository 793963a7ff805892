import type { SQSEvent } from 'aws-lambda';
import type { Dispatcher, InputRecord } from '../../../lambdas/core/ports';
import { createHandler } from '../../../lambdas/dispatcher/handler';

const RETRY_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks-RetryQueue-abc';

function handlerSeeing(): { handler: ReturnType<typeof createHandler>; seen: InputRecord[] } {
  const seen: InputRecord[] = [];
  const dispatcher = {
    processBatch: async (records: readonly InputRecord[]) => {
      seen.push(...records);
      return { failures: [] };
    },
    attemptOnce: async () => {
      throw new Error('not used');
    },
  } as unknown as Dispatcher;
  return { handler: createHandler(dispatcher, RETRY_URL), seen };
}

const record = (messageId: string, eventSourceARN: string) =>
  ({ messageId, body: '{}', eventSourceARN }) as SQSEvent['Records'][number];

describe('the handler tells the queues apart by eventSourceARN', () => {
  it('reads the retry queue as retry and everything else as ingress (the fail-safe side)', async () => {
    const { handler, seen } = handlerSeeing();
    await handler(
      {
        Records: [
          record('r', 'arn:aws:sqs:eu-west-1:123456789012:webhooks-RetryQueue-abc'),
          record('i', 'arn:aws:sqs:eu-west-1:123456789012:webhooks-Queue-xyz'),
          record('other-account', 'arn:aws:sqs:eu-west-1:999999999999:webhooks-RetryQueue-abc'),
          record('suffix-only', 'webhooks-RetryQueue-abc'),
          record('empty', ''),
        ],
      },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    expect(seen.map((r) => [r.messageId, r.source])).toEqual([
      ['r', 'retry'],
      ['i', 'ingress'],
      ['other-account', 'ingress'],
      ['suffix-only', 'ingress'],
      ['empty', 'ingress'],
    ]);
  });

  it('refuses to start with a retry queue URL it cannot read', () => {
    const { handler } = handlerSeeing();
    expect(handler).toBeDefined();
    expect(() => createHandler({} as Dispatcher, 'https://sqs.eu-west-1.amazonaws.com/')).toThrow(
      /not an SQS queue URL/,
    );
  });
});

describe("the handler reads the publisher's trace context of each record", () => {
  const ARN = 'arn:aws:sqs:eu-west-1:123456789012:webhooks-Queue-xyz';
  const traced = (messageId: string, extra: object) => ({ ...record(messageId, ARN), ...extra });

  it('takes a valid traceparent attribute first, else converts the X-Ray AWSTraceHeader, else none', async () => {
    const { handler, seen } = handlerSeeing();
    const traceparent = '00-6925a3c00123456789abcdef01234567-53995c3f42cd8ad8-01';
    const xray = 'Root=1-6925a3c0-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=0';
    await handler(
      {
        Records: [
          traced('w3c', {
            messageAttributes: { traceparent: { stringValue: traceparent, dataType: 'String' } },
            attributes: {
              AWSTraceHeader: 'Root=1-00000001-000000000000000000000001;Parent=0000000000000001',
            },
          }),
          traced('xray', { attributes: { AWSTraceHeader: xray } }),
          traced('bad', {
            messageAttributes: { traceparent: { stringValue: 'not-a-trace', dataType: 'String' } },
            attributes: { AWSTraceHeader: 'Root=nonsense' },
          }),
          traced('none', {}),
        ] as SQSEvent['Records'],
      },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    expect(seen.map((r) => [r.messageId, r.traceparent])).toEqual([
      ['w3c', traceparent],
      ['xray', '00-6925a3c00123456789abcdef01234567-53995c3f42cd8ad8-00'],
      ['bad', undefined],
      ['none', undefined],
    ]);
  });
});
