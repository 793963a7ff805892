/**
 * A publisher that gathers events into batches of 10 (one `SendMessageBatch` instead of ten
 * `SendMessage` calls: the "healthy, batched publish" column of docs/cost.md).
 *
 * Each `publishUserIdentified` validates at once (a bad event throws before anything is
 * queued) and returns a promise that settles when SQS has taken the event, or has refused it
 * for good: nothing is dropped silently. A batch goes out as soon as it holds 10 events, or
 * `maxDelayMs` after its first one, or on `flush()`. In a Lambda handler, await the promises
 * (or `flush()`) before returning: Lambda may freeze the process right after, and a timer
 * does not run while frozen.
 *
 * ```ts
 * const publisher = new BufferedPublisher({ queueUrl: process.env.WEBHOOKS_QUEUE_URL! });
 * await Promise.all(users.map((user) => publisher.publishUserIdentified({ user, application })));
 * ```
 */

import { SQSClient } from '@aws-sdk/client-sqs';
import type { PublishInput } from '../core/envelope';
import { InfrastructureError, ValidationError } from '../core/errors';
import type { EventMessage } from '../core/types';
import {
  build,
  type Published,
  type PublishOptions,
  sendMessages,
  type TraceAttributes,
  traceAttributes,
  type WebhookPublisherOptions,
} from './send';

/** SQS takes at most 10 entries per SendMessageBatch. */
const BATCH = 10;
/** Longest wait for nine more events, by default. */
const DEFAULT_MAX_DELAY_MS = 100;
/** Further sends of an entry SQS refused for a reason of its own (throttling, a failed call). */
const DEFAULT_RETRIES = 2;
/** First pause before such a send; doubled each time. */
const RETRY_BASE_MS = 50;

/** An event SQS would not take: after `attempts` sends, or at once when the entry itself is at fault. */
export class PublishError extends InfrastructureError {
  override readonly name = 'PublishError';
  constructor(
    readonly eventId: string,
    /** SQS's error code, or the failed call's error name. */
    override readonly code: string,
    message: string,
    /** True when SQS says the entry itself is wrong: sending it again would not help. */
    readonly senderFault: boolean,
    readonly attempts: number,
  ) {
    super(
      'sqs.SendMessageBatch',
      {},
      {
        code,
        message: `event ${eventId} was not queued after ${attempts} ${attempts === 1 ? 'send' : 'sends'}: ${code}: ${message}`,
      },
    );
  }
}

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface BufferedPublisherOptions extends WebhookPublisherOptions {
  /** Longest an event waits for others before its batch is sent, 0 to 1000 ms. @default 100 */
  maxDelayMs?: number;
  /** Further sends of an entry refused for a reason of its own (not a sender fault), 0 to 10. @default 2 */
  retries?: number;
  /** Injectable timers (tests). @default setTimeout / clearTimeout */
  timers?: Timers;
}

interface Pending {
  message: EventMessage;
  trace: TraceAttributes;
  attempts: number;
  resolve(published: Published): void;
  reject(error: PublishError): void;
}

export class BufferedPublisher {
  private readonly sqs: SQSClient;
  private readonly queueUrl: string;
  private readonly maxDelayMs: number;
  private readonly retries: number;
  private readonly timers: Timers;
  private buffer: Pending[] = [];
  private timer: unknown;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(options: BufferedPublisherOptions) {
    if (!options.queueUrl) throw new ValidationError('queueUrl', 'is required (stack output QueueUrl)');
    this.queueUrl = options.queueUrl;
    this.sqs = options.sqsClient ?? new SQSClient({});
    this.maxDelayMs = bounded('maxDelayMs', options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, 0, 1000);
    this.retries = bounded('retries', options.retries ?? DEFAULT_RETRIES, 0, 10);
    this.timers = options.timers ?? {
      set: (callback, ms) => setTimeout(callback, ms),
      clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
  }

  /** Events waiting for their batch, and events being sent. */
  get pending(): number {
    return this.buffer.length + this.inFlight.size;
  }

  /**
   * Validates the event and queues it for the next batch, with the trace context of the caller.
   * @throws ValidationError naming the field, before anything is queued.
   * @returns when SQS has taken it; rejects with {@link PublishError} when SQS would not.
   */
  publishUserIdentified(input: PublishInput, options?: PublishOptions): Promise<Published> {
    const message = build(input);
    // Read now: the trace of the call, not of whichever call the batch is sent in.
    const trace = traceAttributes(options);
    return new Promise<Published>((resolve, reject) => {
      this.buffer.push({ message, trace, attempts: 0, resolve, reject });
      if (this.buffer.length >= BATCH) this.sendNow();
      else if (this.timer === undefined) this.timer = this.timers.set(() => this.sendNow(), this.maxDelayMs);
    });
  }

  /** Sends everything waiting now and resolves when every send so far has settled (retries included). */
  async flush(): Promise<void> {
    while (this.buffer.length > 0 || this.inFlight.size > 0) {
      if (this.buffer.length > 0) this.sendNow();
      await Promise.all([...this.inFlight]);
    }
  }

  private sendNow(): void {
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
    }
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH);
      const sending = this.send(batch).finally(() => this.inFlight.delete(sending));
      this.inFlight.add(sending);
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    for (const entry of batch) entry.attempts += 1;
    const result = await sendMessages(
      this.sqs,
      this.queueUrl,
      batch.map((e) => e.message),
      batch.map((e) => e.trace),
    );
    for (const ok of result.published) {
      batch[ok.index]!.resolve({ eventId: ok.eventId, messageId: ok.messageId });
    }
    const again: Pending[] = [];
    for (const bad of result.failed) {
      const entry = batch[bad.index]!;
      if (!bad.senderFault && entry.attempts <= this.retries) again.push(entry);
      else
        entry.reject(new PublishError(bad.eventId, bad.code, bad.message, bad.senderFault, entry.attempts));
    }
    if (again.length === 0) return;
    const pause = RETRY_BASE_MS * 2 ** (again[0]!.attempts - 1);
    await new Promise<void>((resolve) => this.timers.set(resolve, pause));
    await this.send(again);
  }
}

function bounded(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(field, `must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}
