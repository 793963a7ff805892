/** Adapts the core dispatcher to Lambda's SQS event and partial batch response. */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queueArnSuffix } from '../adapters/sqs/queue-arn';
import type { QueueSource } from '../core/envelope';
import type { Dispatcher } from '../core/ports';

export type SqsBatchHandler = (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
) => Promise<SQSBatchResponse>;

/**
 * The handler of both event source mappings. A record from the retry queue (by its
 * `eventSourceARN`) is read as a retry record; any other record as an ingress record, which
 * may only be an event (docs/security.md): the fail-safe side.
 */
export function createHandler(dispatcher: Dispatcher, retryQueueUrl: string): SqsBatchHandler {
  const retrySuffix = queueArnSuffix(retryQueueUrl);
  const sourceOf = (arn: string | undefined): QueueSource =>
    arn?.startsWith('arn:') && arn.endsWith(retrySuffix) ? 'retry' : 'ingress';
  return async (event, context) => {
    const records = event.Records.map((r) => ({
      messageId: r.messageId,
      body: r.body,
      source: sourceOf(r.eventSourceARN),
    }));
    const { failures } = await dispatcher.processBatch(records, {
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
