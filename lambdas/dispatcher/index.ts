/**
 * The dispatcher Lambda: wiring only (STYLE.md rule 3). Config and adapters are built once
 * per container; each invocation hands its SQS records to the core and returns the
 * partial batch response, so only the records that must be redelivered come back.
 */

import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadConfig } from '../config';
import { wireDispatcher } from './wiring';

const { dispatcher } = wireDispatcher(loadConfig());

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const { failures } = await dispatcher.processBatch(event.Records, {
    remainingMs: () => context.getRemainingTimeInMillis(),
  });
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}
