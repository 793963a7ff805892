import { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { DispatcherLogLevel } from './webhook-delivery-props';

/**
 * Lambda's JSON log format with its level filter set from the `logLevel` prop. The dispatcher's
 * Powertools lines are JSON already and pass unchanged; Lambda's own lines become JSON records
 * too (`platform.report` carries duration, memory and a timeout), at INFO and below.
 */
export function functionLogging(level: DispatcherLogLevel): Partial<lambda.FunctionProps> {
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

/** Placeholder in a saved query that the operator replaces with the id they look for. */
const ID = (prefix: string) => `"${prefix}_REPLACE_ME"`;

/**
 * The saved Logs Insights queries, by key, with the fields the dispatcher's lines carry
 * (lambdas/core/settle-report.ts, batch.ts, fan-out.ts, health-tracker.ts). Open one in the
 * console (Logs Insights, "Queries", folder `<stack>/webhooks`) and replace the placeholder.
 */
export const LOG_QUERIES = {
  byDelivery: {
    name: 'delivery by id',
    query: {
      fields: [
        '@timestamp',
        'level',
        'message',
        'attempt',
        'outcome',
        'statusCode',
        'durationMs',
        'nextAttemptAt',
        'reason',
        'error',
      ],
      filterStatements: [`deliveryId = ${ID('dlv')}`],
      sort: '@timestamp asc',
    },
  },
  byConnection: {
    name: 'connection by id',
    query: {
      fields: [
        '@timestamp',
        'level',
        'message',
        'deliveryId',
        'attempt',
        'outcome',
        'statusCode',
        'reason',
        'error',
      ],
      // A foreign delivery names the connection under namedConnectionId (the failing-connections rule skips it).
      filterStatements: [`connectionId = ${ID('con')} or namedConnectionId = ${ID('con')}`],
      sort: '@timestamp desc',
      limit: 200,
    },
  },
  byApplication: {
    name: 'application by id',
    query: {
      // Attempt lines carry no applicationId: these are fan-out, health and refusal lines.
      fields: [
        '@timestamp',
        'level',
        'message',
        'connectionId',
        'namedConnectionId',
        'eventId',
        'state',
        'error',
      ],
      filterStatements: [`applicationId = ${ID('app')}`],
      sort: '@timestamp desc',
      limit: 200,
    },
  },
  failuresByReason: {
    name: 'failures by reason',
    query: {
      filterStatements: ['level in ["WARN", "ERROR"]'],
      statsStatements: [
        'count(*) as lines, count_distinct(connectionId) as connections by message, outcome, reason',
      ],
      sort: 'lines desc',
    },
  },
} as const satisfies Record<string, { name: string; query: logs.QueryStringProps }>;
export type LogQueryName = keyof typeof LOG_QUERIES;

/** One saved query per {@link LOG_QUERIES} entry over `logGroups`, named `<stack>/webhooks/<name>`. */
export function createLogQueries(
  scope: Construct,
  id: string,
  logGroups: logs.ILogGroup[],
): Record<LogQueryName, logs.QueryDefinition> {
  const folder = `${Stack.of(scope).stackName}/webhooks`;
  const entries = Object.entries(LOG_QUERIES).map(([key, q]) => {
    const definition = new logs.QueryDefinition(scope, `${id}${key[0]!.toUpperCase()}${key.slice(1)}`, {
      queryDefinitionName: `${folder}/${q.name}`,
      queryString: new logs.QueryString(q.query),
      logGroups,
    });
    return [key, definition] as const;
  });
  return Object.fromEntries(entries) as Record<LogQueryName, logs.QueryDefinition>;
}
