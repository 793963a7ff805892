import { Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

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

/**
 * The saved query of the management API's failures over its own log group: each 5xx its handler
 * answered (lambdas/api/app.ts logs one object: the route, the error's name and message) and each
 * invocation that never answered (an uncaught error, a timeout, out of memory: Lambda's own
 * `platform.report` record, its status other than success).
 */
export const API_ERRORS_QUERY = {
  name: 'management API errors',
  query: {
    fields: [
      '@timestamp',
      'requestId',
      'message.method',
      'message.path',
      'message.error',
      'message.detail',
      'errorType',
      'errorMessage',
      'record.status',
    ],
    filterStatements: ['level = "ERROR" or (type = "platform.report" and record.status != "success")'],
    sort: '@timestamp desc',
    limit: 200,
  },
} as const satisfies { name: string; query: logs.QueryStringProps };

/** One saved Logs Insights query over `logGroups`, named `<stack>/webhooks/<name>`. */
export function savedQuery(
  scope: Construct,
  id: string,
  q: { name: string; query: logs.QueryStringProps },
  logGroups: logs.ILogGroup[],
): logs.QueryDefinition {
  return new logs.QueryDefinition(scope, id, {
    queryDefinitionName: `${Stack.of(scope).stackName}/webhooks/${q.name}`,
    queryString: new logs.QueryString(q.query),
    logGroups,
  });
}

/** One saved query per {@link LOG_QUERIES} entry over `logGroups`, named `<stack>/webhooks/<name>`. */
export function createLogQueries(
  scope: Construct,
  id: string,
  logGroups: logs.ILogGroup[],
): Record<LogQueryName, logs.QueryDefinition> {
  const entries = Object.entries(LOG_QUERIES).map(
    ([key, q]) =>
      [key, savedQuery(scope, `${id}${key[0]!.toUpperCase()}${key.slice(1)}`, q, logGroups)] as const,
  );
  return Object.fromEntries(entries) as Record<LogQueryName, logs.QueryDefinition>;
}
