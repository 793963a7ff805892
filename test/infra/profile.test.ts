/**
 * `profile: 'lean'` (lib/profiles.ts, docs/design.md §12): one prop that sets the cost levers the model
 * recommends together. Each shows in the template; a prop given explicitly wins; without a
 * profile (or with 'defaults') the stack is exactly what it was.
 */

import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lambdas/config';
import { LEAN_PROFILE, profileProps } from '../../lib/profiles';
import { type WebhookDeliveryProps, WebhookDeliveryPropsError } from '../../lib/webhook-delivery';
import { WebhookStack, type WebhookStackProps } from '../../lib/webhook-stack';
import { testApp } from './fixtures';

const templateWith = (props: WebhookStackProps) =>
  Template.fromStack(new WebhookStack(testApp(), 'Webhooks', props));

function dispatcherEnv(template: Template): Record<string, string> {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: {
      Environment: { Variables: Match.objectLike({ [ENV.deliveredTtlDays]: Match.anyValue() }) },
    },
  });
  const [dispatcher] = Object.values(fns) as any[];
  return dispatcher.Properties.Environment.Variables;
}

/** The management API function's environment (the one that reads the console key). */
function managementEnv(template: Template): Record<string, string> {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: {
      Environment: { Variables: Match.objectLike({ WEBHOOKS_CONSOLE_KEY_SECRET: Match.anyValue() }) },
    },
  });
  const [api] = Object.values(fns) as any[];
  return api.Properties.Environment.Variables;
}

/** [batch size, window] of the ingress and the retry queue's event sources. */
const batching = (template: Template) =>
  (Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as any[]).map((s) => [
    s.Properties.BatchSize,
    s.Properties.MaximumBatchingWindowInSeconds,
  ]);

describe("profile: 'lean'", () => {
  let lean: Template;
  beforeAll(() => {
    lean = templateWith({ profile: 'lean' });
  });

  it('sets every prop of the lean profile', () => {
    const props: WebhookDeliveryProps = LEAN_PROFILE;
    expect(Object.keys(props).sort()).toEqual([
      'batchConcurrency',
      'batchSize',
      'dedupeEvents',
      'deliveredAttemptTtl',
      'deliverySearch',
      'keepBodies',
      'maxBatchingWindow',
      'secretStore',
    ]);
    // Batches of 100 gathered for 1 s on the ingress queue; the retry queue keeps 10 and no window
    // (docs/design.md §12).
    expect(batching(lean)).toEqual([
      [100, 1],
      [10, undefined],
    ]);
    const env = dispatcherEnv(lean);
    expect(env[ENV.batchConcurrency]).toBe('100');
    expect(env[ENV.deliveredTtlDays]).toBe('3');
    expect(env[ENV.keepBodies]).toBe('failures');
    expect(env[ENV.secretStore]).toBe('kms');
    // Republished events are not de-duplicated: two writes a delivery saved (docs/cost.md).
    expect(env[ENV.dedupeEvents]).toBe('false');
    lean.resourceCountIs('AWS::KMS::Key', 1);
    // No delivery search: the dispatcher writes no lookups, the API refuses the search, the CLI is told.
    expect(env[ENV.deliverySearch]).toBe('false');
    expect(managementEnv(lean)[ENV.deliverySearch]).toBe('false');
    expect(lean.findOutputs('*')).toMatchObject({ DeliverySearch: { Value: 'off' } });
    expect(dispatcherEnv(templateWith({}))[ENV.deliverySearch]).toBe('true');
  });

  it('leaves out what the model says is not worth its risk: PITR stays on, writes stay on demand', () => {
    const tables = Object.entries(lean.findResources('AWS::DynamoDB::Table'));
    const [, attempts] = tables.find(([id]) => id.includes('AttemptsTable'))!;
    expect(attempts.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(dispatcherEnv(lean)[ENV.attemptTtlDays]).toBe('30');
  });

  it('gives way to each prop set explicitly', () => {
    const t = templateWith({
      profile: 'lean',
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(0),
      keepBodies: 'all',
      secretStore: 'secrets-manager',
      deliveredAttemptTtl: Duration.days(30),
      batchConcurrency: 20,
      deliverySearch: true,
      dedupeEvents: true,
    });
    expect(batching(t)).toEqual([
      [10, 0],
      [10, undefined],
    ]);
    const env = dispatcherEnv(t);
    expect(env[ENV.batchConcurrency]).toBe('20');
    expect(env[ENV.deliveredTtlDays]).toBe('30');
    expect(env[ENV.keepBodies]).toBe('all');
    expect(env[ENV.secretStore]).toBe('secrets-manager');
    expect(env[ENV.deliverySearch]).toBe('true');
    expect(env[ENV.dedupeEvents]).toBe('true');
    t.resourceCountIs('AWS::KMS::Key', 0);
    // A prop given as undefined (bin/app.ts passes unset context so) is not a choice: the profile's stands.
    expect(dispatcherEnv(templateWith({ profile: 'lean', keepBodies: undefined }))[ENV.keepBodies]).toBe(
      'failures',
    );
  });

  it("leaves the defaults unchanged: no profile and profile 'defaults' synthesise the same stack", () => {
    const none = templateWith({}).toJSON();
    expect(templateWith({ profile: 'defaults' }).toJSON()).toEqual(none);
    expect(profileProps('defaults')).toEqual({});
    const env = dispatcherEnv(templateWith({}));
    expect(env[ENV.keepBodies]).toBe('all');
    expect(env[ENV.dedupeEvents]).toBe('true');
    expect(env[ENV.batchConcurrency]).toBe('10');
    expect(batching(templateWith({}))).toEqual([
      [10, undefined],
      [10, undefined],
    ]);
  });

  it('refuses a profile it does not know, naming the prop', () => {
    expect(() => templateWith({ profile: 'cheapest' as 'lean' })).toThrow(
      new WebhookDeliveryPropsError('profile', 'must be one of defaults, lean, got "cheapest"'),
    );
  });
});
