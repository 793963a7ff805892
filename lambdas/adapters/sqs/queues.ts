/**
 * The SQS side of the core's ports: retries are delayed messages on the delivery queue
 * (DESIGN.md §4), dead letters go to the DLQ with their reason as a message attribute,
 * and attempt records that could not be written wait on the delivery queue.
 */

import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type {
  AttemptLogFallback,
  AttemptRecord,
  DeadLetter,
  DeadLetters,
  DeliveryMessage,
  RetryScheduler,
} from '../../core/types';

/** SQS refuses DelaySeconds above 15 minutes. */
const MAX_DELAY_SECONDS = 900;

export interface SqsQueuesOptions {
  queueUrl: string;
  dlqUrl: string;
  client?: SQSClient;
}

export class SqsQueues implements RetryScheduler, DeadLetters, AttemptLogFallback {
  private readonly client: SQSClient;

  constructor(private readonly options: SqsQueuesOptions) {
    this.client = options.client ?? new SQSClient({});
  }

  async schedule(delivery: DeliveryMessage, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: JSON.stringify(delivery),
        DelaySeconds: Math.min(Math.max(0, Math.round(delaySeconds)), MAX_DELAY_SECONDS),
      }),
    );
  }

  async put(letter: DeadLetter): Promise<void> {
    const attributes: Record<string, { DataType: string; StringValue: string }> = {
      reason: { DataType: 'String', StringValue: letter.reason },
    };
    if (letter.delivery) {
      attributes.deliveryId = { DataType: 'String', StringValue: letter.delivery.deliveryId };
      attributes.connectionId = { DataType: 'String', StringValue: letter.delivery.connectionId };
    }
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.dlqUrl,
        MessageBody: JSON.stringify(letter),
        MessageAttributes: attributes,
      }),
    );
  }

  async defer(record: AttemptRecord): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: JSON.stringify({ v: 1, type: 'attempt-log', record }),
      }),
    );
  }
}
