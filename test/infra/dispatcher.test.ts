import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lambdas/config';
import type { WebhookStack } from '../../lib/webhook-stack';
import { CUSTOM_PROPS, customStack, defaultStack, logicalId } from './fixtures';

describe('dispatcher function', () => {
  let stack: WebhookStack;
  let defaults: Template;
  let custom: Template;
  let dispatcherId: string;
  let env: Record<string, unknown>;

  beforeAll(() => {
    stack = defaultStack();
    defaults = Template.fromStack(stack);
    dispatcherId = logicalId(stack, stack.delivery.dispatcher);
    env = defaults.toJSON().Resources[dispatcherId].Properties.Environment.Variables;
    custom = Template.fromStack(customStack().stack);
  });

  it('runs on Node.js 24 on arm64 with the ESM handler', () => {
    defaults.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
    });
  });

  it('times out after 90 s with 256 MB by default', () => {
    defaults.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Timeout: 90,
      MemorySize: 256,
    });
  });

  it('uses the functionTimeout and memorySize props', () => {
    custom.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Handler: 'index.handler',
      Timeout: CUSTOM_PROPS.functionTimeout.toSeconds(),
      MemorySize: CUSTOM_PROPS.memorySize,
    });
  });

  it('tells the dispatcher where its queues and tables are', () => {
    const ref = (construct: Parameters<typeof logicalId>[1]) => ({ Ref: logicalId(stack, construct) });
    expect(env).toMatchObject({
      [ENV.retryQueueUrl]: ref(stack.delivery.retryQueue),
      [ENV.dlqUrl]: ref(stack.delivery.deadLetterQueue),
      [ENV.connectionsTable]: ref(stack.delivery.connectionsTable),
      [ENV.attemptsTable]: ref(stack.delivery.attemptsTable),
      [ENV.rateWindowsTable]: ref(stack.delivery.rateWindowsTable),
    });
  });

  it('passes the default delivery settings', () => {
    expect(env).toMatchObject({
      [ENV.secretPrefix]: 'webhooks/Webhooks/',
      [ENV.headerPrefix]: 'X-Service',
      [ENV.attemptTimeoutMs]: '30000',
      [ENV.attemptTtlDays]: '30',
      [ENV.batchConcurrency]: '10',
      [ENV.connectionCacheTtlMs]: '30000',
      [ENV.allowedPorts]: '443',
      // No stack default: connections without their own limit are not limited.
      [ENV.defaultRateLimit]: '',
      POWERTOOLS_SERVICE_NAME: 'webhook-dispatcher',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  it('sets every variable the dispatcher reads except the local-mode loopback flag', () => {
    const deployed = Object.entries(ENV).filter(([key]) => key !== 'allowLoopback' && key !== 'queueUrl');
    for (const [, name] of deployed) expect(env).toHaveProperty([name]);
    // The ingress queue's URL is the publisher's variable: the dispatcher never writes there.
    expect(env).not.toHaveProperty([ENV.queueUrl]);
  });

  it('never lets the stack allow loopback destinations', () => {
    expect(env).not.toHaveProperty([ENV.allowLoopback]);
    expect(JSON.stringify(custom.toJSON())).not.toContain(ENV.allowLoopback);
  });

  it('passes the delivery settings given as props', () => {
    custom.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.secretPrefix]: CUSTOM_PROPS.secretPrefix,
          [ENV.headerPrefix]: CUSTOM_PROPS.headerPrefix,
          [ENV.attemptTimeoutMs]: '20000',
          [ENV.attemptTtlDays]: '7',
          [ENV.batchConcurrency]: '4',
          [ENV.defaultRateLimit]: '50',
          [ENV.rateLimitCeiling]: '1000',
          [ENV.connectionCacheTtlMs]: '5000',
          [ENV.allowedPorts]: '443,8443',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
        }),
      },
    });
  });

  it('logs to its own log group kept for 30 days', () => {
    const logGroupId = logicalId(stack, stack.delivery.logGroup);
    defaults.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    defaults.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: { Ref: logGroupId } },
    });
  });

  it('keeps logs for the logRetention prop', () => {
    custom.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  describe('SQS event source', () => {
    it('feeds the dispatcher from both queues in batches of up to 10 records, with partial failures', () => {
      defaults.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
      for (const queue of [stack.delivery.queue, stack.delivery.retryQueue]) {
        defaults.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
          EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, queue), 'Arn'] },
          FunctionName: { Ref: dispatcherId },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        });
      }
    });

    it('sets no concurrency limit by default', () => {
      defaults.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: Match.absent() });
    });

    it('limits concurrent dispatchers to maxConcurrency when given', () => {
      custom.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: CUSTOM_PROPS.maxConcurrency },
      });
    });
  });
});
