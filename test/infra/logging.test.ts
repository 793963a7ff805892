/**
 * The dispatcher's logs: Lambda's JSON log format with levels from `logLevel`, no level that
 * would silence the failed-attempt lines the failing-connections rule counts, and the saved
 * Logs Insights queries over the fields the dispatcher's lines carry.
 */

import { Template } from 'aws-cdk-lib/assertions';
import { attemptIdsOf } from '../../lambdas/core/ids';
import { CONNECTION_ID_FIELD, OUTCOME_FIELD } from '../../lib/failing-connections';
import { API_ERRORS_QUERY, LOG_QUERIES } from '../../lib/log-queries';
import { type DispatcherLogLevel, WebhookDeliveryPropsError } from '../../lib/webhook-delivery';
import { WebhookStack } from '../../lib/webhook-stack';
import { defaultStack, logicalId, testApp } from './fixtures';

const dispatcherLogging = (t: Template) =>
  Object.values(t.findResources('AWS::Lambda::Function')).find((f) =>
    String(f.Properties.Description).startsWith('Signs and sends webhook deliveries'),
  )!.Properties.LoggingConfig;

describe('dispatcher logs', () => {
  let stack: WebhookStack;
  let t: Template;

  beforeAll(() => {
    stack = defaultStack();
    t = Template.fromStack(stack);
  });

  it("uses Lambda's JSON log format, its levels set from logLevel", () => {
    expect(dispatcherLogging(t)).toEqual({
      LogFormat: 'JSON',
      ApplicationLogLevel: 'INFO',
      SystemLogLevel: 'INFO',
      LogGroup: { Ref: logicalId(stack, stack.delivery.logGroup) },
    });
    const at = (logLevel: DispatcherLogLevel) =>
      dispatcherLogging(Template.fromStack(new WebhookStack(testApp(), 'Webhooks', { logLevel })));
    expect(at('DEBUG')).toMatchObject({ ApplicationLogLevel: 'DEBUG', SystemLogLevel: 'DEBUG' });
    expect(at('WARN')).toMatchObject({ ApplicationLogLevel: 'WARN', SystemLogLevel: 'WARN' });
  });

  it.each(['ERROR', 'CRITICAL', 'SILENT'] as const)(
    'refuses logLevel %s, which would silence the failed-attempt lines the fleet failure alarm counts',
    (logLevel) => {
      let error: unknown;
      try {
        new WebhookStack(testApp(), 'Webhooks', { logLevel });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WebhookDeliveryPropsError);
      expect((error as WebhookDeliveryPropsError).prop).toBe('logLevel');
      expect((error as Error).message).toMatch(
        new RegExp(`must be one of TRACE, DEBUG, INFO, WARN, got "${logLevel}": .*fleet failure alarm`),
      );
    },
  );

  it('saves Logs Insights queries by delivery, connection and application, and failures by reason', () => {
    const queries = Object.values(t.findResources('AWS::Logs::QueryDefinition'))
      .map((q) => q.Properties)
      .filter((q) => q.Name !== `Webhooks/webhooks/${API_ERRORS_QUERY.name}`);
    expect(queries.map((q) => q.Name).sort()).toEqual([
      'Webhooks/webhooks/application by id',
      'Webhooks/webhooks/connection by id',
      'Webhooks/webhooks/delivery by id',
      'Webhooks/webhooks/failures by reason',
    ]);
    for (const q of queries)
      expect(q.LogGroupNames).toEqual([{ Ref: logicalId(stack, stack.delivery.logGroup) }]);
    const query = (name: string) => queries.find((q) => q.Name === `Webhooks/webhooks/${name}`)!.QueryString;
    expect(query('delivery by id')).toMatch(
      /\| filter deliveryId = "dlv_REPLACE_ME"\n\| sort @timestamp asc/,
    );
    expect(query('connection by id')).toContain('filter connectionId = "con_REPLACE_ME"');
    expect(query('application by id')).toContain('filter applicationId = "app_REPLACE_ME"');
    expect(query('failures by reason')).toContain('by message, outcome, reason');
  });

  it('queries the fields the dispatcher writes on every attempt line', () => {
    const ids = Object.keys(attemptIdsOf({ connectionId: 'con_1', deliveryId: 'dlv_1', attempt: 1 }));
    expect(ids).toEqual(expect.arrayContaining(['deliveryId', CONNECTION_ID_FIELD]));
    expect(LOG_QUERIES.byDelivery.query.fields).toContain(OUTCOME_FIELD);
  });
});

describe('management API logs', () => {
  it("uses Lambda's JSON log format at INFO, and saves the query of its error lines over its own log group", () => {
    const stack = defaultStack();
    const t = Template.fromStack(stack);
    const api = stack.delivery.managementApi!;
    const logging = Object.values(t.findResources('AWS::Lambda::Function')).find(
      (f) => f.Properties.Description === 'Webhooks management API and console',
    )!.Properties.LoggingConfig;
    expect(logging).toEqual({
      LogFormat: 'JSON',
      ApplicationLogLevel: 'INFO',
      SystemLogLevel: 'INFO',
      LogGroup: { Ref: logicalId(stack, api.logGroup) },
    });
    const query = Object.values(t.findResources('AWS::Logs::QueryDefinition'))
      .map((q) => q.Properties)
      .find((q) => q.Name === 'Webhooks/webhooks/management API errors')!;
    expect(query.LogGroupNames).toEqual([{ Ref: logicalId(stack, api.logGroup) }]);
    expect(query.QueryString).toContain(
      'filter level = "ERROR" or (type = "platform.report" and record.status != "success")',
    );
    expect(query.QueryString).toContain('message.path');
  });
});
