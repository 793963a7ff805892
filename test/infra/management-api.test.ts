import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_ENV } from '../../lambdas/api-config';
import { ENV } from '../../lambdas/config';
import { MANAGEMENT_API_OUTPUTS } from '../../lambdas/stack-outputs';
import { ManagementApiPropsError } from '../../lib/management-api';
import { WebhookDelivery } from '../../lib/webhook-delivery';
import { WebhookStack } from '../../lib/webhook-stack';
import { actionsOn, defaultStack, logicalId, permissionsOf, testApp } from './fixtures';

const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const indexArn = (tableId: string, index: string) => ({
  'Fn::Join': ['', [getAtt(tableId), `/index/${index}`]],
});

describe('management API and console', () => {
  let stack: WebhookStack;
  let template: Template;

  beforeAll(() => {
    stack = defaultStack();
    template = Template.fromStack(stack);
  });

  it('deploys an HTTP API whose one catch-all route invokes the management Lambda', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: getAtt(logicalId(stack, stack.delivery.managementApi!.handler)),
    });
  });

  it('throttles the stage (25 requests/s, bursts of 50 by default) and writes JSON access logs', () => {
    const api = stack.delivery.managementApi!;
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 },
      AccessLogSettings: {
        DestinationArn: getAtt(logicalId(stack, api.accessLogGroup)),
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
  });

  it('sets throttling from the construct props and refuses nonsense limits', () => {
    const custom = new WebhookStack(testApp(), 'Throttled', {
      managementApi: { throttlingRateLimit: 5, throttlingBurstLimit: 10 },
    });
    Template.fromStack(custom).hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
    });
    for (const bad of [0, -1, 2.5, 20_000]) {
      expect(
        () => new WebhookStack(testApp(), 'Bad', { managementApi: { throttlingRateLimit: bad } }),
      ).toThrow(ManagementApiPropsError);
    }
  });

  it('keeps the console session key in Secrets Manager and hands its ARN to the Lambda', () => {
    const api = stack.delivery.managementApi!;
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Timeout: 30,
      Environment: {
        Variables: Match.objectLike({
          [API_ENV.consoleKeySecret]: { Ref: logicalId(stack, api.sessionKey) },
          [API_ENV.consoleDir]: '/var/task/console',
          [ENV.attemptTimeoutMs]: '25000',
        }),
      },
    });
  });

  it('grants the management Lambda exactly what the management library calls', () => {
    const d = stack.delivery;
    const api = d.managementApi!;
    const granted = permissionsOf(template, logicalId(stack, api.role));
    const connections = logicalId(stack, d.connectionsTable);
    const attempts = logicalId(stack, d.attemptsTable);
    expect(actionsOn(granted, getAtt(connections))).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(actionsOn(granted, indexArn(connections, 'byApplication'))).toEqual(['dynamodb:Query']);
    // Query reads, PutItem records a Send Test, UpdateItem marks a Resend; the index is read only.
    expect(actionsOn(granted, getAtt(attempts))).toEqual([
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(actionsOn(granted, indexArn(attempts, 'finalFailures'))).toEqual(['dynamodb:Query']);
    expect(actionsOn(granted, stack.resolve(d.secretArnPattern))).toEqual([
      'secretsmanager:CreateSecret',
      'secretsmanager:DeleteSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:PutSecretValue',
      'secretsmanager:TagResource',
    ]);
    expect(actionsOn(granted, { Ref: logicalId(stack, api.sessionKey) })).toEqual([
      'secretsmanager:GetSecretValue',
    ]);
    // A Send Test defers an attempt record it cannot write to the retry queue; it publishes nothing.
    expect(actionsOn(granted, getAtt(logicalId(stack, d.retryQueue)))).toEqual(['sqs:SendMessage']);
    expect(actionsOn(granted, getAtt(logicalId(stack, d.queue)))).toEqual([]);
    expect(granted.filter((p) => p.resource === '*')).toEqual([]);
    expect(granted.map((p) => p.action)).not.toContain('dynamodb:Scan');
  });

  it('outputs the API URL and the session key secret', () => {
    const api = stack.delivery.managementApi!;
    template.hasOutput(MANAGEMENT_API_OUTPUTS.apiUrl, {
      Value: Match.objectLike({
        'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: logicalId(stack, api.api) }])]),
      }),
    });
    template.hasOutput(MANAGEMENT_API_OUTPUTS.consoleKeySecret, {
      Value: { Ref: logicalId(stack, api.sessionKey) },
    });
  });

  it('leaves the API, its key and its outputs out with managementApi: false', () => {
    const off = Template.fromStack(new WebhookStack(testApp(), 'NoApi', { managementApi: false }));
    off.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    off.resourceCountIs('AWS::SecretsManager::Secret', 0);
    off.resourceCountIs('AWS::Lambda::Function', 1);
    expect(Object.keys(off.toJSON().Outputs)).not.toContain(MANAGEMENT_API_OUTPUTS.apiUrl);
  });

  it('turns the console off with console: false (the API stays)', () => {
    const s = new Stack(testApp(), 'NoConsole');
    const d = new WebhookDelivery(s, 'Delivery', { managementApi: { console: false } });
    Template.fromStack(s).hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [API_ENV.consoleDir]: 'off' }) },
    });
    expect(d.managementApi).toBeDefined();
  });
});
