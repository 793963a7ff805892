/**
 * Publisher for upstream services (usually Lambdas): validates a `user.identified` event
 * exactly as the dispatcher will, and enqueues it. Partial failures of a batch are returned
 * to the caller entry by entry, never dropped.
 *
 * ```ts
 * const publisher = new WebhookPublisher({ queueUrl: process.env.WEBHOOKS_QUEUE_URL! });
 * const { eventId } = await publisher.publishUserIdentified({ user, application });
 * ```
 */

import { randomBytes } from 'node:crypto';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildEventMessage, type PublishInput } from '../core/envelope';
import { ValidationError } from '../core/errors';
import { ulid } from '../core/ids';
import type { EventMessage } from '../core/types';
import { queueJson } from '../core/untrusted';

export type { PublishInput } from '../core/envelope';
export { ValidationError } from '../core/errors';
export type { Application, EventMessage, Metadata, User } from '../core/types';

/** SQS takes at most 10 entries per SendMessageBatch. */
const SQS_BATCH_LIMIT = 10;

export interface WebhookPublisherOptions {
  /** URL of the stack's delivery queue (stack output `QueueUrl`). */
  queueUrl: string;
  /** An SQS client; one is built from the default credential chain when absent. */
  sqsClient?: SQSClient;
}

export interface Published {
  eventId: string;
  messageId: string;
}

export interface BatchPublishResult {
  /** Entries SQS accepted, with their index in the input. */
  published: Array<Published & { index: number }>;
  /** Entries SQS refused: nothing about them was enqueued; retry or handle them. */
  failed: Array<{ index: number; eventId: string; code: string; message: string; senderFault: boolean }>;
}

export function newEventId(): string {
  return `evt_${ulid(Date.now(), randomBytes(10))}`;
}

export class WebhookPublisher {
  private readonly sqs: SQSClient;
  private readonly queueUrl: string;

  constructor(options: WebhookPublisherOptions) {
    if (!options.queueUrl) throw new ValidationError('queueUrl', 'is required (stack output QueueUrl)');
    this.queueUrl = options.queueUrl;
    this.sqs = options.sqsClient ?? new SQSClient({});
  }

  /**
   * Validates and enqueues one event.
   * @throws ValidationError naming the field, before anything is sent.
   */
  async publishUserIdentified(input: PublishInput): Promise<Published> {
    const message = build(input);
    const out = await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: queueJson(message) }),
    );
    return { eventId: message.eventId, messageId: out.MessageId ?? '' };
  }

  /**
   * Validates every event, then enqueues them 10 per `SendMessageBatch`. Entries SQS refuses
   * are returned in `failed`; the call throws only if validation fails (nothing sent then).
   * @throws ValidationError naming the entry and field, e.g. `events[3].user.id`.
   */
  async publishUserIdentifiedBatch(inputs: readonly PublishInput[]): Promise<BatchPublishResult> {
    const messages = inputs.map((input, index) => {
      try {
        return build(input);
      } catch (error) {
        if (error instanceof ValidationError)
          throw new ValidationError(`events[${index}].${error.field}`, error.problem);
        throw error;
      }
    });
    const result: BatchPublishResult = { published: [], failed: [] };
    for (let start = 0; start < messages.length; start += SQS_BATCH_LIMIT) {
      const chunk = messages.slice(start, start + SQS_BATCH_LIMIT);
      try {
        const out = await this.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: chunk.map((m, i) => ({ Id: String(start + i), MessageBody: queueJson(m) })),
          }),
        );
        for (const ok of out.Successful ?? []) {
          const index = Number(ok.Id);
          result.published.push({ index, eventId: messages[index]!.eventId, messageId: ok.MessageId ?? '' });
        }
        for (const bad of out.Failed ?? []) {
          const index = Number(bad.Id);
          result.failed.push({
            index,
            eventId: messages[index]!.eventId,
            code: bad.Code ?? 'Unknown',
            message: bad.Message ?? 'SQS refused the entry',
            senderFault: bad.SenderFault ?? false,
          });
        }
      } catch (error) {
        // The whole call failed: report every entry of this chunk, keep going with the rest.
        const e = error as { name?: string; message?: string };
        for (const [i, m] of chunk.entries()) {
          result.failed.push({
            index: start + i,
            eventId: m.eventId,
            code: e.name ?? 'Error',
            message: e.message ?? String(error),
            senderFault: false,
          });
        }
      }
    }
    result.published.sort((a, b) => a.index - b.index);
    result.failed.sort((a, b) => a.index - b.index);
    return result;
  }
}

function build(input: PublishInput): EventMessage {
  return buildEventMessage(input, { eventId: newEventId(), occurredAt: new Date().toISOString() });
}
