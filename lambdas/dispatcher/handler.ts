/** Adapts the core dispatcher to Lambda's SQS event and partial batch response. */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queueArnSuffix } from '../adapters/sqs/queue-arn';
import type { QueueSource } from '../core/envelope';
import type { Dispatcher } from '../core/ports';

export type SqsBatchHandler = (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'> & Partial<Pick<Context, 'awsRequestId'>>,
) => Promise<SQSBatchResponse>;

/** What the wiring does around each invocation (lambdas/wiring.ts `Wired.invocation`). */
export interface InvocationHooks {
  /** Runs the invocation so that every log line it writes carries its request id and cold start. */
  during?<T>(requestId: string, run: () => Promise<T>): Promise<T>;
  /** After the batch, failed records or not: the invocation's metrics are written (one flush). */
  finish?(): void;
}

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
