import { Match, Template } from 'aws-cdk-lib/assertions';
import { VISIBILITY_TIMEOUT_FACTOR } from '../../lib/webhook-delivery-props';
import { CUSTOM_PROPS, customStack, defaultStack, logicalId } from './fixtures';

describe('delivery queue and dead-letter queue', () => {
  let defaults: Template;
  let custom: Template;
  let queueId: string;
  let dlqId: string;
  let retryId: string;

  beforeAll(() => {
    const stack = defaultStack();
    defaults = Template.fromStack(stack);
    queueId = logicalId(stack, stack.delivery.queue);
    dlqId = logicalId(stack, stack.delivery.deadLetterQueue);
    retryId = logicalId(stack, stack.delivery.retryQueue);
    custom = Template.fromStack(customStack().stack);
  });

  it('creates exactly the ingress queue, the retry queue and their shared dead-letter queue', () => {
    defaults.resourceCountIs('AWS::SQS::Queue', 3);
  });

  it('encrypts both queues with SQS-managed keys', () => {
    for (const id of [queueId, retryId, dlqId]) {
      expect(defaults.toJSON().Resources[id].Properties).toMatchObject({ SqsManagedSseEnabled: true });
    }
  });

  it('denies every request to either queue that does not use TLS', () => {
    for (const id of [queueId, retryId, dlqId]) {
      defaults.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('moves a message to the dead-letter queue after 5 receives', () => {
    defaults.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
  });

  it('uses the maxReceiveCount prop for the redrive policy', () => {
    custom.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: CUSTOM_PROPS.maxReceiveCount }),
    });
  });

  it('keeps a message invisible for six times the 90 s function timeout', () => {
    const queue = defaults.toJSON().Resources[queueId].Properties;
    expect(queue.VisibilityTimeout).toBe(540);
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(VISIBILITY_TIMEOUT_FACTOR * 90);
  });

  it('scales the visibility timeout with a longer function timeout', () => {
    custom.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: VISIBILITY_TIMEOUT_FACTOR * CUSTOM_PROPS.functionTimeout.toSeconds(),
      RedrivePolicy: Match.anyValue(),
    });
  });

  it('accepts messages up to 1 MiB on both queues', () => {
    for (const id of [queueId, retryId, dlqId]) {
      expect(defaults.toJSON().Resources[id].Properties.MaximumMessageSize).toBe(1_048_576);
    }
  });

  it('keeps dead letters for 14 days', () => {
    expect(defaults.toJSON().Resources[dlqId].Properties.MessageRetentionPeriod).toBe(1_209_600);
  });

  it('keeps dead letters for the dlqRetention prop', () => {
    custom.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: CUSTOM_PROPS.dlqRetention.toSeconds(),
    });
  });

  it('leaves the delivery queue at the 4-day default retention, shorter than the DLQ', () => {
    expect(defaults.toJSON().Resources[queueId].Properties.MessageRetentionPeriod).toBeUndefined();
  });
});
