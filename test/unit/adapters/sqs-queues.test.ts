import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { SqsQueues } from '../../../lambdas/adapters/sqs/queues';
import type { DeliveryMessage } from '../../../lambdas/core/types';

const sqs = mockClient(SQSClient);
const queues = () => new SqsQueues({ retryQueueUrl: 'q-url', dlqUrl: 'dlq-url', client: new SQSClient({}) });
const delivery = {
  v: 1,
  type: 'delivery',
  deliveryId: 'dlv_X_con_a',
  connectionId: 'con_a',
  attempt: 2,
} as DeliveryMessage;

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
});

describe('SqsQueues', () => {
  it('schedules a retry as a delayed message on the delivery queue', async () => {
    await queues().schedule(delivery, 4);
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'q-url',
      MessageBody: JSON.stringify(delivery),
      DelaySeconds: 4,
    });
  });

  it('puts a dead letter on the DLQ with its reason and ids as attributes', async () => {
    await queues().put({
      v: 1,
      type: 'dead-letter',
      reason: 'exhausted',
      error: 'HTTP 500',
      failedAt: 't',
      delivery,
    });
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(input.QueueUrl).toBe('dlq-url');
    expect(input.MessageAttributes).toEqual({
      reason: { DataType: 'String', StringValue: 'exhausted' },
      deliveryId: { DataType: 'String', StringValue: 'dlv_X_con_a' },
      connectionId: { DataType: 'String', StringValue: 'con_a' },
    });
    expect(JSON.parse(input.MessageBody!)).toMatchObject({ reason: 'exhausted', delivery: { attempt: 2 } });
  });

  it('defers an attempt record as an attempt-log message on the delivery queue', async () => {
    await queues().defer({ deliveryId: 'dlv_X_con_a', attempt: 1 } as never);
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(input.QueueUrl).toBe('q-url');
    expect(JSON.parse(input.MessageBody!)).toEqual({
      v: 1,
      type: 'attempt-log',
      record: { deliveryId: 'dlv_X_con_a', attempt: 1 },
    });
  });
});
