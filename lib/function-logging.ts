import * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * Lambda's JSON log format with its level filter set from a log level (the dispatcher's `logLevel`
 * prop; INFO for the management API). The dispatcher's Powertools lines are JSON already and pass
 * unchanged; a line logged as one object becomes the `message` of a JSON record (the management
 * API's error lines); Lambda's own lines become JSON records too (`platform.report` carries
 * duration, memory and a timeout), at INFO and below.
 */
export function functionLogging(level: string): Partial<lambda.FunctionProps> {
  const application: Record<string, lambda.ApplicationLogLevel> = {
    TRACE: lambda.ApplicationLogLevel.TRACE,
    DEBUG: lambda.ApplicationLogLevel.DEBUG,
    INFO: lambda.ApplicationLogLevel.INFO,
    WARN: lambda.ApplicationLogLevel.WARN,
  };
  const system: Record<string, lambda.SystemLogLevel> = {
    TRACE: lambda.SystemLogLevel.DEBUG,
    DEBUG: lambda.SystemLogLevel.DEBUG,
    INFO: lambda.SystemLogLevel.INFO,
    WARN: lambda.SystemLogLevel.WARN,
  };
  // resolveProps refuses the other levels (they would silence the failed-attempt lines).
  return {
    loggingFormat: lambda.LoggingFormat.JSON,
    applicationLogLevelV2: application[level] ?? lambda.ApplicationLogLevel.INFO,
    systemLogLevelV2: system[level] ?? lambda.SystemLogLevel.INFO,
  };
}
