/**
 * The dispatcher Lambda: wiring only (docs/design.md §2, rule 3). Config and adapters are built once
 * per container; each invocation hands its SQS records to the core and returns the
 * partial batch response, so only the records that must be redelivered come back.
 */

import { lightDocumentClient } from '../adapters/dynamodb/light-client';
import { wireDispatcher } from '../backend/dispatcher';
import { type DispatcherConfig, loadConfig } from '../config';
import { createHandler, type SqsBatchHandler } from './handler';

const config = loadConfig();
/** The handler once wired: awaited by every invocation, and by the cold-start bench. */
export const ready = wire(config);
export const handler: SqsBatchHandler = async (event, context) => (await ready)(event, context);

/**
 * Tracing (the construct's `tracing` prop) is loaded only when on: the X-Ray SDK stays in a chunk
 * an untraced dispatcher never reads (docs/design.md §10 "Traces", docs/performance.md). Started at
 * init.
 */
async function wire(config: DispatcherConfig): Promise<SqsBatchHandler> {
  const tracing = config.tracing ? (await import('../adapters/tracing/xray.js')).xrayTracing() : undefined;
  const wired = wireDispatcher(config, {
    documentClient: lightDocumentClient,
    ...(tracing ? { deps: { tracing } } : {}),
  });
  return createHandler(wired.dispatcher, config.retryQueueUrl, wired.invocation);
}
