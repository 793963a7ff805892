/**
 * The core's Log port on Powertools Logger (one JSON line per call, fields merged in), and the
 * invocation's fields every dispatcher line carries: the Lambda request id and whether the
 * invocation was a cold start.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import type { Log } from '../core/ports';

export function powertoolsLog(
  logger: Logger = new Logger({ serviceName: 'webhook-dispatcher' }),
): Log & { logger: Logger } {
  return {
    logger,
    // Read when asked: sampling (POWERTOOLS_LOGGER_SAMPLE_RATE) and setLogLevel change the level.
    debugEnabled: () => logger.level <= LogLevelThreshold.DEBUG,
    debug: (message, fields) => logger.debug(message, fields ?? {}),
    info: (message, fields) => logger.info(message, fields ?? {}),
    warn: (message, fields) => logger.warn(message, fields ?? {}),
    error: (message, fields) => logger.error(message, fields ?? {}),
  };
}

/** What every line of an invocation carries, under Powertools' own names for them. */
export interface InvocationFields {
  function_request_id: string;
  cold_start: boolean;
}

export interface InvocationLog extends Log {
  /** Runs one invocation: every line it logs, however concurrent, carries its fields. */
  during<T>(requestId: string, run: () => Promise<T>): Promise<T>;
}

/**
 * Wraps a Log so each line of an invocation carries its request id and cold-start flag. The
 * first invocation of the process is the cold start (not one Lambda initialised ahead, as
 * provisioned concurrency does). Fields are kept per invocation (AsyncLocalStorage), so two
 * batches in flight at once (local mode's runner) never swap them.
 */
export function invocationLog(
  log: Log,
  env: Record<string, string | undefined> = process.env,
): InvocationLog {
  const current = new AsyncLocalStorage<InvocationFields>();
  let cold = env.AWS_LAMBDA_INITIALIZATION_TYPE !== 'provisioned-concurrency';
  const withFields = (fields: Record<string, unknown> | undefined) => {
    const invocation = current.getStore();
    return invocation ? { ...invocation, ...fields } : fields;
  };
  return {
    ...(log.debugEnabled ? { debugEnabled: () => log.debugEnabled!() } : {}),
    debug: (message, fields) => log.debug(message, withFields(fields)),
    info: (message, fields) => log.info(message, withFields(fields)),
    warn: (message, fields) => log.warn(message, withFields(fields)),
    error: (message, fields) => log.error(message, withFields(fields)),
    during(requestId, run) {
      const fields = { function_request_id: requestId, cold_start: cold };
      cold = false;
      return current.run(fields, run);
    },
  };
}
