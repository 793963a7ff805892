/** The core's Log port on Powertools Logger: one JSON line per call, fields merged in. */

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
