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
