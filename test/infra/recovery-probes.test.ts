import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lambdas/config';
import { WebhookStack } from '../../lib/webhook-stack';
import { actionsOn, logicalId, permissionsOf, testApp } from './fixtures';

const envOf = (stack: WebhookStack, fn: Parameters<typeof logicalId>[1]): Record<string, unknown> => {
  const fns = Template.fromStack(stack).findResources('AWS::Lambda::Function');
  return fns[logicalId(stack, fn)]!.Properties.Environment.Variables;
};
const dispatcherEnv = (stack: WebhookStack) => envOf(stack, stack.delivery.dispatcher);
/** The management API reads it only to tell the console whether checks are on. */
const apiEnv = (stack: WebhookStack) => envOf(stack, stack.delivery.managementApi!.handler);
const parkedActions = (stack: WebhookStack) =>
  actionsOn(permissionsOf(Template.fromStack(stack), logicalId(stack, stack.delivery.dispatcherRole)), {
    'Fn::GetAtt': [logicalId(stack, stack.delivery.parkedTable), 'Arn'],
  });

describe('recoveryProbes prop', () => {
  it('sets the default schedule (its last wait repeating for about 25 h) and lets the dispatcher claim parked deliveries', () => {
    const stack = new WebhookStack(testApp(), 'Webhooks');
    expect(dispatcherEnv(stack)[ENV.recoveryProbes]).toBe('1m,5m,15m,1h,3h');
    expect(apiEnv(stack)[ENV.recoveryProbes]).toBeUndefined();
    expect(parkedActions(stack)).toContain('dynamodb:UpdateItem');
  });

  it('passes a schedule of its own as durations', () => {
    const stack = new WebhookStack(testApp(), 'Webhooks', {
      recoveryProbes: [Duration.minutes(2), Duration.hours(6)],
    });
    expect(dispatcherEnv(stack)[ENV.recoveryProbes]).toBe('2m,6h');
  });

  it('false turns the checks off and keeps the parked table PutItem only', () => {
    const stack = new WebhookStack(testApp(), 'Webhooks', { recoveryProbes: false });
    expect(dispatcherEnv(stack)[ENV.recoveryProbes]).toBe('off');
    expect(apiEnv(stack)[ENV.recoveryProbes]).toBe('off');
    expect(parkedActions(stack)).toEqual(['dynamodb:PutItem']);
  });

  it('refuses a wait under a second by the prop name', () => {
    expect(() => new WebhookStack(testApp(), 'Webhooks', { recoveryProbes: [Duration.millis(10)] })).toThrow(
      /recoveryProbes/,
    );
  });
});
