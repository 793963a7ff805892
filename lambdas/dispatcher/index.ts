/**
 * The dispatcher Lambda: wiring only (docs/design.md §2, rule 3). Config and adapters are built once
 * per container; each invocation hands its SQS records to the core and returns the
 * partial batch response, so only the records that must be redelivered come back.
 */

import { loadConfig } from '../config';
import { wireDispatcher } from '../wiring';
import { createHandler } from './handler';

const config = loadConfig();
const wired = wireDispatcher(config);
export const handler = createHandler(wired.dispatcher, config.retryQueueUrl, wired.invocation);
