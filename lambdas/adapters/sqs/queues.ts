/**
 * The SQS side of the core's ports: retries are delayed messages on the internal retry
 * queue (docs/design.md §3, §4), dead letters go to the DLQ with their reason as a message
 * attribute, and attempt records that could not be written wait on the retry queue. Nothing
 * here writes to the ingress queue: that is the publishers' door. Every body is written with
 * `queueJson`, so text from outside (a receiver's answer, a user's name) never holds a
 * character SQS refuses.
 */

import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AttemptLogFallback, DeadLetters, RetryScheduler } from '../../core/ports';
import type { ProbeQueue } from '../../core/probe-ports';
import type { AttemptRecord, DeadLetter, DeliveryMessage, ProbeMessage } from '../../core/types';
import { queueJson } from '../../core/untrusted';

/** SQS refuses DelaySeconds above 15 minutes. */
export const MAX_DELAY_SECONDS = 900;
/** Messages in one SendMessageBatch call. */
export const SQS_BATCH_LIMIT = 10;

export interface SqsQueuesOptions {
  /** The internal retry queue. */
  retryQueueUrl: string;
  dlqUrl: string;
  client?: SQSClient;
}

export class SqsQueues implements RetryScheduler, DeadLetters, AttemptLogFallback, ProbeQueue {
  private readonly client: SQSClient;

  constructor(private readonly options: SqsQueuesOptions) {
    this.client = options.client ?? new SQSClient({});
  }

  async schedule(delivery: DeliveryMessage, delaySeconds: number): Promise<void> {
    await this.delayed(delivery, delaySeconds);
  }

  /** A recovery check, on the retry queue; one due past 15 minutes is re-delayed when it arrives. */
  async queue(message: ProbeMessage, delaySeconds: number): Promise<void> {
    await this.delayed(message, delaySeconds);
  }

  private async delayed(message: DeliveryMessage | ProbeMessage, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.retryQueueUrl,
        MessageBody: queueJson(message),
        DelaySeconds: Math.min(Math.max(0, Math.round(delaySeconds)), MAX_DELAY_SECONDS),
      }),
    );
  }

  /**
   * Up to 10 deliveries in one SendMessageBatch call (recoveries). Returns the delivery ids
   * SQS took; the others were not sent and stay with the caller.
   */
  async scheduleBatch(
    items: readonly { delivery: DeliveryMessage; delaySeconds: number }[],
  ): Promise<string[]> {
    if (items.length === 0) return [];
    if (items.length > SQS_BATCH_LIMIT) throw new RangeError(`at most ${SQS_BATCH_LIMIT} messages per batch`);
    const out = await this.client.send(
      new SendMessageBatchCommand({
        QueueUrl: this.options.retryQueueUrl,
        Entries: items.map((item, i) => ({
          Id: String(i),
          MessageBody: queueJson(item.delivery),
          DelaySeconds: Math.min(Math.max(0, Math.round(item.delaySeconds)), MAX_DELAY_SECONDS),
        })),
      }),
    );
    return (out.Successful ?? []).map((s) => items[Number(s.Id)]!.delivery.deliveryId);
  }

  async put(letter: DeadLetter): Promise<void> {
    const attributes: Record<string, { DataType: string; StringValue: string }> = {
      reason: { DataType: 'String', StringValue: letter.reason },
    };
    if (letter.delivery) {
      attributes.deliveryId = { DataType: 'String', StringValue: letter.delivery.deliveryId };
      attributes.connectionId = { DataType: 'String', StringValue: letter.delivery.connectionId };
    }
    if (letter.sourceQueue) {
      attributes.sourceQueue = { DataType: 'String', StringValue: letter.sourceQueue };
    }
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.dlqUrl,
        MessageBody: queueJson(letter),
        MessageAttributes: attributes,
      }),
    );
  }

  async defer(record: AttemptRecord): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.retryQueueUrl,
        MessageBody: queueJson({ v: 1, type: 'attempt-log', record }),
      }),
    );
  }
}
