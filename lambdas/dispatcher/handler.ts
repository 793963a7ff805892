/** Adapts the core dispatcher to Lambda's SQS event and partial batch response. */

import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { queueArnSuffix } from '../adapters/sqs/queue-arn';
import type { InvocationHooks } from '../backend/dispatcher';
import type { QueueSource } from '../core/envelope';
import type { Dispatcher } from '../core/ports';
import { isTraceparent, traceparentOfXray } from '../core/trace-context';

export type SqsBatchHandler = (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'> & Partial<Pick<Context, 'awsRequestId'>>,
) => Promise<SQSBatchResponse>;

/**
 * The publisher's trace context of a record: its `traceparent` message attribute when valid,
 * else the X-Ray `AWSTraceHeader` SQS keeps for it (set by the publisher library, or by the SDK
 * in a traced Lambda). Only an ingress event's is used: a retry's travels in its body.
 */
function publisherTrace(r: SQSRecord): string | undefined {
  const given = r.messageAttributes?.traceparent?.stringValue;
  if (isTraceparent(given)) return given;
  return traceparentOfXray(r.attributes?.AWSTraceHeader);
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
      const traceparent = publisherTrace(r);
      return {
        messageId: r.messageId,
        body: r.body,
        source: sourceOf(r.eventSourceARN),
        ...(Number.isFinite(sent) && sent > 0 ? { sentAtMs: sent } : {}),
        ...(traceparent ? { traceparent } : {}),
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
