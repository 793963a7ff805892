/** Building and sending event messages: what both publishers share. */

import { type MessageAttributeValue, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { buildEventMessage, type PublishInput } from '../core/envelope';
import { ValidationError } from '../core/errors';
import { newId } from '../core/ids';
import { isTraceparent } from '../core/trace-context';
import type { EventMessage } from '../core/types';
import { queueJson } from '../core/untrusted';

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

/** What a publish may add to the message besides the event. */
export interface PublishOptions {
  /**
   * The caller's W3C trace context (`00-<trace id>-<parent id>-<flags>`), e.g. from its
   * OpenTelemetry span: sent as the `traceparent` message attribute, and every attempt of the
   * event's deliveries records it (docs/operations.md "Traces").
   */
  traceparent?: string;
}

/** A message's trace attributes, as SQS takes them. */
export interface TraceAttributes {
  MessageAttributes?: Record<string, MessageAttributeValue>;
  MessageSystemAttributes?: Record<string, MessageAttributeValue>;
}

/**
 * The trace context a message is sent with: the given `traceparent` as a message attribute, and
 * in a traced Lambda (`_X_AMZN_TRACE_ID` set) its X-Ray header as the `AWSTraceHeader` system
 * attribute, which the dispatcher reads when no `traceparent` is given.
 * @throws ValidationError for a `traceparent` that is not one.
 */
export function traceAttributes(
  options: PublishOptions | undefined,
  env: Record<string, string | undefined> = process.env,
): TraceAttributes {
  const out: TraceAttributes = {};
  const traceparent = options?.traceparent;
  if (traceparent !== undefined) {
    if (!isTraceparent(traceparent)) {
      throw new ValidationError('traceparent', 'must be a W3C traceparent: 00-<32 hex>-<16 hex>-<2 hex>');
    }
    out.MessageAttributes = { traceparent: { DataType: 'String', StringValue: traceparent } };
  }
  const xray = env._X_AMZN_TRACE_ID;
  if (xray) out.MessageSystemAttributes = { AWSTraceHeader: { DataType: 'String', StringValue: xray } };
  return out;
}

export function newEventId(): string {
  return newId('evt', Date.now());
}

/**
 * Enqueues built messages, 10 per `SendMessageBatch`, and says what became of each (by index).
 * A call that fails as a whole reports every entry of its chunk as failed; nothing is dropped.
 * Shared by WebhookPublisher and BufferedPublisher.
 */
export async function sendMessages(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly EventMessage[],
  /** Each message's trace attributes, by index (traceAttributes). */
  traces: readonly (TraceAttributes | undefined)[] = [],
): Promise<BatchPublishResult> {
  const result: BatchPublishResult = { published: [], failed: [] };
  for (let start = 0; start < messages.length; start += SQS_BATCH_LIMIT) {
    const chunk = messages.slice(start, start + SQS_BATCH_LIMIT);
    try {
      const out = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((m, i) => ({
            Id: String(start + i),
            MessageBody: queueJson(m),
            ...traces[start + i],
          })),
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
  return result;
}

export function build(input: PublishInput): EventMessage {
  return buildEventMessage(input, { eventId: newEventId(), occurredAt: new Date().toISOString() });
}
