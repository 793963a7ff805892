/** Adapts the core dispatcher to Lambda's SQS event and partial batch response. */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Dispatcher } from '../core/dispatch';

export type SqsBatchHandler = (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
) => Promise<SQSBatchResponse>;

export function createHandler(dispatcher: Dispatcher): SqsBatchHandler {
  return async (event, context) => {
    const { failures } = await dispatcher.processBatch(event.Records, {
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
