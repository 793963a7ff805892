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

import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { PublishInput } from '../core/envelope';
import { ValidationError } from '../core/errors';
import { queueJson } from '../core/untrusted';
import {
  type BatchPublishResult,
  build,
  type Published,
  type PublishOptions,
  sendMessages,
  traceAttributes,
  type WebhookPublisherOptions,
} from './send';

export type { PublishInput } from '../core/envelope';
export { ValidationError } from '../core/errors';
export type { Application, EventMessage, Metadata, User } from '../core/types';
export { BufferedPublisher, type BufferedPublisherOptions, PublishError } from './buffered';
export {
  type BatchPublishResult,
  newEventId,
  type Published,
  type PublishOptions,
  type WebhookPublisherOptions,
} from './send';

export class WebhookPublisher {
  private readonly sqs: SQSClient;
  private readonly queueUrl: string;

  constructor(options: WebhookPublisherOptions) {
    if (!options.queueUrl) throw new ValidationError('queueUrl', 'is required (stack output QueueUrl)');
    this.queueUrl = options.queueUrl;
    this.sqs = options.sqsClient ?? new SQSClient({});
  }

  /**
   * Validates and enqueues one event, with the trace context of the caller (PublishOptions).
   * @throws ValidationError naming the field, before anything is sent.
   */
  async publishUserIdentified(input: PublishInput, options?: PublishOptions): Promise<Published> {
    const message = build(input);
    const trace = traceAttributes(options);
    const out = await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: queueJson(message), ...trace }),
    );
    return { eventId: message.eventId, messageId: out.MessageId ?? '' };
  }

  /**
   * Validates every event, then enqueues them 10 per `SendMessageBatch`. Entries SQS refuses
   * are returned in `failed`; the call throws only if validation fails (nothing sent then).
   * @throws ValidationError naming the entry and field, e.g. `events[3].user.id`.
   */
  async publishUserIdentifiedBatch(
    inputs: readonly PublishInput[],
    options?: PublishOptions,
  ): Promise<BatchPublishResult> {
    const trace = traceAttributes(options);
    const messages = inputs.map((input, index) => {
      try {
        return build(input);
      } catch (error) {
        if (error instanceof ValidationError)
          throw new ValidationError(`events[${index}].${error.field}`, error.problem);
        throw error;
      }
    });
    const result = await sendMessages(
      this.sqs,
      this.queueUrl,
      messages,
      messages.map(() => trace),
    );
    result.published.sort((a, b) => a.index - b.index);
    result.failed.sort((a, b) => a.index - b.index);
    return result;
  }
}
