/** Adapts the core dispatcher to Lambda's SQS event and partial batch response. */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queueArnSuffix } from '../adapters/sqs/queue-arn';
import type { InvocationHooks } from '../backend/dispatcher';
import type { QueueSource } from '../core/envelope';
import type { Dispatcher } from '../core/ports';

export type SqsBatchHandler = (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'> & Partial<Pick<Context, 'awsRequestId'>>,
) => Promise<SQSBatchResponse>;

/**
 * The handler of both event source mappings. A record from the retry queue (by its
 * `eventSourceARN`) is read as a retry record; any other record as an ingress record, which
 * may only be an event (docs/security.md): the fail-safe side.
 */
export function createHandler(
  dispatcher: Dispatcher,
  retryQueueUrl: string,
  hooks: InvocationHooks = {},
): SqsBatchHandler {
  const retrySuffix = queueArnSuffix(retryQueueUrl);
  const sourceOf = (arn: string | undefined): QueueSource =>
    arn?.startsWith('arn:') && arn.endsWith(retrySuffix) ? 'retry' : 'ingress';
  return async (event, context) => {
    const records = event.Records.map((r) => {
      const sent = Number(r.attributes?.SentTimestamp);
      return {
        messageId: r.messageId,
        body: r.body,
        source: sourceOf(r.eventSourceARN),
        ...(Number.isFinite(sent) && sent > 0 ? { sentAtMs: sent } : {}),
      };
    });
    const run = () =>
      dispatcher.processBatch(records, { remainingMs: () => context.getRemainingTimeInMillis() });
    try {
      const { failures } = hooks.during ? await hooks.during(context.awsRequestId ?? '', run) : await run();
      return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
    } finally {
      hooks.finish?.();
    }
  };
}
