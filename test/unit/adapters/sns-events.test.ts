import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { SnsOperationalEvents } from '../../../lambdas/adapters/sns/operational-events';
import { SqsQueues } from '../../../lambdas/adapters/sqs/queues';
import type { OperationalEvent } from '../../../lambdas/core/parking';
import type { DeliveryMessage } from '../../../lambdas/core/types';

const sns = mockClient(SNSClient);
const sqs = mockClient(SQSClient);

beforeEach(() => {
  sns.reset();
  sqs.reset();
});

const event: OperationalEvent = {
  type: 'connection.disabled',
  connectionId: 'con_1',
  applicationId: 'app_1',
  connectionName: 'CRM \u001b[31m\u202e',
  state: 'disabled',
  consecutiveFailures: 5,
  at: '2026-11-22T10:00:00.000Z',
};

describe('SnsOperationalEvents', () => {
  it('publishes the event as JSON with its type as a message attribute (for filter policies)', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    await new SnsOperationalEvents({
      topicArn: 'arn:aws:sns:eu-west-1:1:events',
      client: new SNSClient({}),
    }).publish(event);
    const input = sns.commandCalls(PublishCommand)[0]!.args[0].input;
    expect(input.TopicArn).toBe('arn:aws:sns:eu-west-1:1:events');
    expect(JSON.parse(input.Message!)).toEqual(event);
    expect(input.MessageAttributes).toEqual({
      type: { DataType: 'String', StringValue: 'connection.disabled' },
      applicationId: { DataType: 'String', StringValue: 'app_1' },
    });
    // The subject carries ids only (SNS refuses control characters there).
    expect(input.Subject).toBe('connection.disabled con_1');
  });

  it('lets a publish failure reach the caller (the health tracker logs it)', async () => {
    sns.on(PublishCommand).rejects(new Error('throttled'));
    await expect(
      new SnsOperationalEvents({ topicArn: 'arn', client: new SNSClient({}) }).publish(event),
    ).rejects.toThrow('throttled');
  });
});

describe('SqsQueues.scheduleBatch (recoveries)', () => {
  const delivery = (n: number) => ({ deliveryId: `dlv_${n}_con_a` }) as DeliveryMessage;

  it('sends up to 10 deliveries in one call with their delays, and returns those SQS took', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'a', MD5OfMessageBody: '' }],
      Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }],
    });
    const queues = new SqsQueues({ retryQueueUrl: 'retry', dlqUrl: 'dlq', client: new SQSClient({}) });
    const sent = await queues.scheduleBatch([
      { delivery: delivery(0), delaySeconds: 0 },
      { delivery: delivery(1), delaySeconds: 1200 },
    ]);
    expect(sent).toEqual(['dlv_0_con_a']);
    const entries = sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries!;
    expect(entries.map((e) => e.DelaySeconds)).toEqual([0, 900]);
    await expect(
      queues.scheduleBatch(
        Array.from({ length: 11 }, (_, i) => ({ delivery: delivery(i), delaySeconds: 0 })),
      ),
    ).rejects.toThrow(RangeError);
  });
});
