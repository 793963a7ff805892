/**
 * The dead-letter queue message by message, for the operator's listing and redrive
 * (management/dead-letters.ts reads what each message is): receive a page hidden for a while,
 * release it, send a body to the ingress or the retry queue, delete a receipt.
 */

import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { DlqMessage, DlqMessages } from '../../management/ports';
import { isQueueArn } from './queue-arn';

export interface SqsDeadLetterMessagesOptions {
  queueUrl: string;
  retryQueueUrl: string;
  dlqUrl: string;
  client?: SQSClient;
}

export class SqsDeadLetterMessages implements DlqMessages {
  private readonly client: SQSClient;

  constructor(private readonly options: SqsDeadLetterMessagesOptions) {
    this.client = options.client ?? new SQSClient({});
  }

  async receive(visibilitySeconds: number): Promise<DlqMessage[]> {
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.dlqUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: visibilitySeconds,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['SentTimestamp', 'DeadLetterQueueSourceArn'],
      }),
    );
    return (out.Messages ?? []).map((m) => {
      const source = m.Attributes?.DeadLetterQueueSourceArn;
      const sent = Number(m.Attributes?.SentTimestamp);
      return {
        id: m.MessageId ?? '',
        receipt: m.ReceiptHandle!,
        body: m.Body ?? '',
        ...(Number.isFinite(sent) && m.Attributes?.SentTimestamp ? { sentAtMs: sent } : {}),
        ...(source
          ? { movedFrom: isQueueArn(source, this.options.retryQueueUrl) ? 'retry' : 'ingress' }
          : {}),
      } satisfies DlqMessage;
    });
  }

  async release(messages: readonly DlqMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      await this.client
        .send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.options.dlqUrl,
            Entries: messages.slice(i, i + 10).map((m, j) => ({
              Id: String(j),
              ReceiptHandle: m.receipt,
              VisibilityTimeout: 0,
            })),
          }),
        )
        .catch(() => undefined); // They reappear by themselves when the visibility ends.
    }
  }

  async send(queue: 'ingress' | 'retry', body: string): Promise<void> {
    const { queueUrl, retryQueueUrl } = this.options;
    await this.client.send(
      new SendMessageCommand({ QueueUrl: queue === 'retry' ? retryQueueUrl : queueUrl, MessageBody: body }),
    );
  }

  async delete(message: DlqMessage): Promise<void> {
    await this.client.send(
      new DeleteMessageCommand({ QueueUrl: this.options.dlqUrl, ReceiptHandle: message.receipt }),
    );
  }
}
