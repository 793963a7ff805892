import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { API_ENV } from '../../lambdas/api-config';
import { MANAGEMENT_API_OUTPUTS, STACK_OUTPUTS } from '../../lambdas/stack-outputs';
import { WebhookDelivery } from '../../lib/webhook-delivery';
import type { WebhookStack } from '../../lib/webhook-stack';
import { CUSTOM_PROPS, customStack, defaultStack, logicalId, testApp } from './fixtures';

describe('stack outputs', () => {
  let stack: WebhookStack;
  let template: Template;

  beforeAll(() => {
    stack = defaultStack();
    template = Template.fromStack(stack);
  });

  it('keeps the output keys tools look up', () => {
    expect(Object.values(STACK_OUTPUTS).sort()).toEqual([
      'AllowedPorts',
      'AttemptsTableName',
      'ConnectionsTableName',
      'DeadLetterQueueUrl',
      'DefaultRateLimit',
      'DeliverySearch',
      'DispatcherFunctionName',
      'EventsTopicArn',
      'FailingConnectionsRuleName',
      'HeaderPrefix',
      'MetricsStackName',
      'PagingTopicArn',
      'ParkedTableName',
      'QueueUrl',
      'RateLimitCeiling',
      'RateWindowsTableName',
      'RetryQueueUrl',
      'SecretKeyArn',
      'SecretPrefix',
      'SecretRotationOverlapSeconds',
      'SecretStore',
      'TicketTopicArn',
    ]);
    // SecretKeyArn only with `secretStore: 'kms'` (kms-secret-store.test.ts), DefaultRateLimit only
    // with `defaultRateLimit` (below).
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(
      [...Object.values(STACK_OUTPUTS), ...Object.values(MANAGEMENT_API_OUTPUTS)]
        .filter((key) => key !== STACK_OUTPUTS.secretKeyArn && key !== STACK_OUTPUTS.defaultRateLimit)
        .sort(),
    );
  });

  it('points each output at its resource', () => {
    const d = stack.delivery;
    const ref = (construct: Parameters<typeof logicalId>[1]) => ({ Ref: logicalId(stack, construct) });
    template.hasOutput(STACK_OUTPUTS.queueUrl, { Value: ref(d.queue) });
    template.hasOutput(STACK_OUTPUTS.retryQueueUrl, { Value: ref(d.retryQueue) });
    template.hasOutput(STACK_OUTPUTS.deadLetterQueueUrl, { Value: ref(d.deadLetterQueue) });
    template.hasOutput(STACK_OUTPUTS.connectionsTableName, { Value: ref(d.connectionsTable) });
    template.hasOutput(STACK_OUTPUTS.attemptsTableName, { Value: ref(d.attemptsTable) });
    template.hasOutput(STACK_OUTPUTS.rateWindowsTableName, { Value: ref(d.rateWindowsTable) });
    template.hasOutput(STACK_OUTPUTS.dispatcherFunctionName, { Value: ref(d.dispatcher) });
    template.hasOutput(STACK_OUTPUTS.secretPrefix, { Value: 'webhooks/Webhooks/' });
    template.hasOutput(STACK_OUTPUTS.headerPrefix, { Value: 'X-Service' });
    template.hasOutput(STACK_OUTPUTS.allowedPorts, { Value: '443' });
    template.hasOutput(STACK_OUTPUTS.secretStore, { Value: 'secrets-manager' });
    // The CLI's rotations switch after it when they name no time.
    template.hasOutput(STACK_OUTPUTS.secretRotationOverlapSeconds, { Value: '86400' });
    // What `webhooks stats` reads CloudWatch by: the rule the fleet alarm counts, and the Stack
    // dimension the dispatcher's EMF carries (its environment's stack name).
    template.hasOutput(STACK_OUTPUTS.failingConnectionsRuleName, { Value: d.failingConnections.ruleName });
    template.hasOutput(STACK_OUTPUTS.metricsStackName, { Value: 'Webhooks' });
    template.hasResourceProperties('AWS::CloudWatch::InsightRule', {
      RuleName: d.failingConnections.ruleName,
    });
  });

  it('reports a secret rotation overlap of 0 (switch at once), and hands it to the management API', () => {
    const own = new Stack(testApp(), 'NoOverlap');
    new WebhookDelivery(own, 'Webhooks', { secretRotationOverlap: Duration.seconds(0) }).addOutputs();
    const t = Template.fromStack(own);
    t.hasOutput(STACK_OUTPUTS.secretRotationOverlapSeconds, { Value: '0' });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [API_ENV.secretRotationOverlap]: '0' }) },
    });
  });

  it("reports the stack's default rate limit when it sets one", () => {
    const own = new Stack(testApp(), 'Limited');
    new WebhookDelivery(own, 'Webhooks', { defaultRateLimit: 25 }).addOutputs();
    Template.fromStack(own).hasOutput(STACK_OUTPUTS.defaultRateLimit, { Value: '25' });
  });

  it('reports the prefixes given as props', () => {
    const custom = Template.fromStack(customStack().stack);
    custom.hasOutput(STACK_OUTPUTS.secretPrefix, { Value: CUSTOM_PROPS.secretPrefix });
    custom.hasOutput(STACK_OUTPUTS.headerPrefix, { Value: CUSTOM_PROPS.headerPrefix });
  });

  it('gives a WebhookDelivery in a stack of your own the same outputs with addOutputs(), nested or not', () => {
    const embedded = (add: boolean) => {
      const own = new Stack(testApp(), 'MyProduct');
      const delivery = new WebhookDelivery(new Construct(own, 'Platform'), 'Webhooks', {});
      if (add) delivery.addOutputs();
      return { own, delivery };
    };
    expect(Template.fromStack(embedded(false).own).toJSON().Outputs).toBeUndefined();
    const { own, delivery } = embedded(true);
    const outputs = Template.fromStack(own);
    // The keys tools look up, at the stack's top level, whatever the construct's path.
    expect(Object.keys(outputs.toJSON().Outputs).sort()).toEqual(
      Object.keys(template.toJSON().Outputs).sort(),
    );
    outputs.hasOutput(STACK_OUTPUTS.queueUrl, { Value: { Ref: logicalId(own, delivery.queue) } });
    outputs.hasOutput(STACK_OUTPUTS.attemptsTableName, {
      Value: { Ref: logicalId(own, delivery.attemptsTable) },
    });
  });
});
