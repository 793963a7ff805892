/**
 * Lambda's SQS event source mapping, played locally (docs/design.md §6): long-poll the queue,
 * hand batches of up to 10 records to the same handler Lambda runs, delete what succeeded
 * and leave `batchItemFailures` to reappear after the visibility timeout. Redrive to the
 * DLQ after `maxReceiveCount` is the queue's job (fauxqs applies the RedrivePolicy on
 * receive, as SQS does), so the runner never moves messages itself.
 *
 * `concurrency` pollers run side by side, each invoking the handler with its batch and waiting
 * for it, as Lambda's pollers invoke the function synchronously and add concurrency while the
 * queue has messages: a batch that takes long (a receiver that never answers, until the attempt
 * timeout) holds up its own poller only, and batches fill as they do on AWS, where messages that
 * arrive meanwhile are shared among the pollers. local/function.ts gives each invocation in
 * flight its own dispatcher, as Lambda gives each its own container.
 *
 * Lambda semantics kept: a handler that throws, times out or returns a malformed response
 * fails the whole batch (nothing deleted); an unknown `itemIdentifier` fails the whole
 * batch too; no response or an empty list means every record succeeded.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type {
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSHandler,
  SQSMessageAttributes,
  SQSRecord,
} from 'aws-lambda';
import { InfrastructureError, type WebhookErrorOptions } from '../lambdas/core/errors';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './constants';

/** Lambda's limit for an SQS event source of a standard queue without a batching window. */
export const MAX_BATCH_SIZE = 10;
/** With a batching window (at least 1 s, an SQS rule), up to this many records per batch. */
export const MAX_WINDOWED_BATCH_SIZE = 100;
/** What one ReceiveMessage returns at most. */
const RECEIVE_MAX = 10;
/** Pause between receives while a batching window gathers and the queue is empty, ms. */
const GATHER_PAUSE_MS = 20;
/** What Lambda's pollers use: the longest long poll SQS allows. */
const DEFAULT_WAIT_TIME_S = 20;
/** Back-off after a failed SQS call: first delay, cap. */
const RETRY_BACKOFF_MS = { first: 100, max: 5_000 } as const;
const DEFAULT_FUNCTION_NAME = 'webhooks-dispatcher-local';
const MEMORY_MB = '1024';

/** Anything with these methods: `console`, a Powertools Logger, a test spy. */
export interface RunnerLogger {
  debug?(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** How one batch ended, for logs and tests. */
export interface BatchReport {
  readonly messageIds: readonly string[];
  /** `ok`: all deleted; `partial`: `failed` left on the queue; `error`/`timeout`: the whole batch left. */
  readonly outcome: 'ok' | 'partial' | 'error' | 'timeout';
  /** Message ids left on the queue to reappear after the visibility timeout. */
  readonly failed: readonly string[];
  readonly durationMs: number;
  readonly error?: unknown;
}

export interface RunnerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** `eventSourceARN` of the records; read from the queue when absent. */
  readonly queueArn?: string;
  /** The Lambda handler, unchanged. Must return a promise (nodejs24.x has no callback handlers). */
  readonly handler: SQSHandler;
  /** The function's timeout: `getRemainingTimeInMillis()` counts down from it, and the batch fails when it passes. */
  readonly functionTimeoutMs: number;
  /** 1 to 10, or to 100 with a batching window of at least 1 s. @default 10 */
  readonly batchSize?: number;
  /**
   * Lambda's `MaximumBatchingWindowInSeconds`, ms: after the first message, keep receiving
   * until the batch is full or this long has passed. @default 0 (invoke on the first receive)
   */
  readonly maxBatchingWindowMs?: number;
  /** Long-poll wait, 0 to 20 s. @default 20 */
  readonly waitTimeSeconds?: number;
  /** Pollers, and so batches in flight at once: Lambda's concurrency for the mapping. @default 1 */
  readonly concurrency?: number;
  /** @default 'webhooks-dispatcher-local' */
  readonly functionName?: string;
  /** Region in records and ARNs; read from the SQS client when absent. */
  readonly region?: string;
  readonly onBatch?: (report: BatchReport) => void;
  /** @default console (warnings and errors only) */
  readonly logger?: RunnerLogger;
}

export interface Runner {
  /** Stops polling, then resolves once every batch in flight has been handled and settled. */
  stop(): Promise<void>;
  /**
   * Resolves once no batch is in flight and every poller's latest receive came back empty
   * (so with long polling, at the earliest `waitTimeSeconds` after the last message).
   */
  idle(): Promise<void>;
}

/** A record the runner could not hand to the handler or settle with SQS. */
class RunnerError extends InfrastructureError {
  override readonly name = 'RunnerError';
  constructor(message: string, options?: WebhookErrorOptions) {
    super('runner', {}, { ...options, code: 'runner_failed', message });
  }
}

const quietConsole: RunnerLogger = {
  info: () => {},
  warn: (message, ...details) => console.warn(message, ...details),
  error: (message, ...details) => console.error(message, ...details),
};

/** Starts polling; returns at once. */
export function startRunner(options: RunnerOptions): Runner {
  const batchSize = options.batchSize ?? MAX_BATCH_SIZE;
  const waitTimeSeconds = options.waitTimeSeconds ?? DEFAULT_WAIT_TIME_S;
  const concurrency = options.concurrency ?? 1;
  const windowMs = options.maxBatchingWindowMs ?? 0;
  if (!(windowMs >= 0)) throw new RangeError(`maxBatchingWindowMs must be 0 or more, got ${windowMs}`);
  const maxBatch = windowMs >= 1_000 ? MAX_WINDOWED_BATCH_SIZE : MAX_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > maxBatch) {
    throw new RangeError(
      `batchSize must be 1 to ${maxBatch}${windowMs >= 1_000 ? '' : ` (up to ${MAX_WINDOWED_BATCH_SIZE} with a batching window of at least 1 s)`}, got ${batchSize}`,
    );
  }
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 0 || waitTimeSeconds > 20) {
    throw new RangeError(`waitTimeSeconds must be 0 to 20, got ${waitTimeSeconds}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive whole number, got ${concurrency}`);
  }
  if (!(options.functionTimeoutMs > 0)) {
    throw new RangeError(`functionTimeoutMs must be positive, got ${options.functionTimeoutMs}`);
  }
  const logger = options.logger ?? quietConsole;
  const functionName = options.functionName ?? DEFAULT_FUNCTION_NAME;
  const abort = new AbortController();
  let stopping = false;
  let inFlight = 0;
  const lastReceiveEmpty = new Array<boolean>(concurrency).fill(false);
  let idleWaiters: (() => void)[] = [];
  const checkIdle = () => {
    if (inFlight === 0 && lastReceiveEmpty.every(Boolean)) {
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    }
  };

  const source = resolveSource(options, logger, abort.signal);

  async function poll(slot: number): Promise<void> {
    let backoff: number = RETRY_BACKOFF_MS.first;
    while (!stopping) {
      try {
        const { arn, region } = await source;
        const messages = await receive(Math.min(batchSize, RECEIVE_MAX), waitTimeSeconds);
        backoff = RETRY_BACKOFF_MS.first;
        lastReceiveEmpty[slot] = messages.length === 0;
        if (messages.length === 0) {
          checkIdle();
          continue;
        }
        inFlight++;
        try {
          if (windowMs > 0) await gather(messages);
          await runBatch(messages, arn, region);
        } finally {
          inFlight--;
        }
      } catch (error) {
        if (stopping) return;
        logger.error(`Local event source: SQS call failed, retrying in ${backoff} ms`, error);
        await sleep(backoff, abort.signal);
        backoff = Math.min(backoff * 2, RETRY_BACKOFF_MS.max);
      }
    }
  }

  async function receive(max: number, waitS: number): Promise<Message[]> {
    const received = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: waitS,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return received.Messages ?? [];
  }

  /** The batching window: more receives into `messages` until it is full or the window has passed. */
  async function gather(messages: Message[]): Promise<void> {
    const deadline = Date.now() + windowMs;
    while (messages.length < batchSize && Date.now() < deadline && !stopping) {
      const more = await receive(Math.min(batchSize - messages.length, RECEIVE_MAX), 0);
      messages.push(...more);
      if (more.length === 0)
        await sleep(Math.max(1, Math.min(GATHER_PAUSE_MS, deadline - Date.now())), abort.signal);
    }
  }

  async function runBatch(messages: Message[], arn: string, region: string): Promise<void> {
    const records = messages.map((m) => toRecord(m, arn, region));
    const started = Date.now();
    const result = await invoke(
      options.handler,
      { Records: records },
      options.functionTimeoutMs,
      functionName,
      region,
    );
    const ids = records.map((r) => r.messageId);
    let report: BatchReport;
    if (result.kind === 'timeout' || result.kind === 'error') {
      report = {
        messageIds: ids,
        outcome: result.kind,
        failed: ids,
        durationMs: Date.now() - started,
        error: result.error,
      };
      logger.warn(
        `Local event source: batch of ${ids.length} ${result.kind === 'timeout' ? 'timed out' : 'failed'}`,
        result.error,
      );
    } else {
      const failed = failedIds(result.response, ids);
      if (failed instanceof RunnerError) {
        report = {
          messageIds: ids,
          outcome: 'error',
          failed: ids,
          durationMs: Date.now() - started,
          error: failed,
        };
        logger.warn(`Local event source: ${failed.message}; the whole batch stays on the queue`);
      } else {
        await deleteSucceeded(records.filter((r) => !failed.has(r.messageId)));
        report = {
          messageIds: ids,
          outcome: failed.size === 0 ? 'ok' : 'partial',
          failed: [...failed],
          durationMs: Date.now() - started,
        };
      }
    }
    logger.debug?.('Local event source: batch done', report);
    try {
      options.onBatch?.(report);
    } catch (error) {
      logger.error('Local event source: onBatch threw', error);
    }
  }

  /** Deletes in DeleteMessageBatch calls of at most 10 entries (an SQS limit), as Lambda's poller does. */
  async function deleteSucceeded(records: SQSRecord[]): Promise<void> {
    for (let i = 0; i < records.length; i += RECEIVE_MAX)
      await deleteChunk(records.slice(i, i + RECEIVE_MAX));
  }

  async function deleteChunk(records: SQSRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      const { Failed } = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (Failed && Failed.length > 0) {
        logger.warn(
          `Local event source: ${Failed.length} deletes failed; those records will be delivered again`,
          Failed,
        );
      }
    } catch (error) {
      // At-least-once, as on AWS: undeleted records come back after the visibility timeout.
      logger.error('Local event source: DeleteMessageBatch failed; the batch will be delivered again', error);
    }
  }

  const pollers = Array.from({ length: concurrency }, (_, slot) => poll(slot));
  logger.info(
    `Local event source: polling ${options.queueUrl} (batch ${batchSize}, ${concurrency} in parallel)`,
  );

  return {
    async stop() {
      if (!stopping) {
        stopping = true;
        abort.abort();
      }
      await Promise.all(pollers);
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        if (stopping) resolve();
        else checkIdle();
      });
    },
  };
}

/** One queue feeding the function: Lambda's event source mapping. */
export interface EventSourceQueue {
  readonly queueUrl: string;
  readonly queueArn?: string;
}

/**
 * Several event source mappings on one function, as the stack has (the ingress queue and the
 * retry queue, docs/design.md §3): one runner per queue, the same handler. Each record carries its
 * own queue's `eventSourceARN`, which is how the dispatcher tells them apart.
 */
export function startEventSources(
  options: Omit<RunnerOptions, 'queueUrl' | 'queueArn'>,
  queues: readonly EventSourceQueue[],
): Runner {
  const runners = queues.map((queue) => startRunner({ ...options, ...queue }));
  return {
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
    },
    async idle() {
      // In order: what the first queue's records schedule lands on the later ones.
      for (const r of runners) await r.idle();
    },
  };
}

/** The queue's ARN and region, read once (from the queue if not given); gives up quietly on stop. */
async function resolveSource(
  options: RunnerOptions,
  logger: RunnerLogger,
  signal: AbortSignal,
): Promise<{ arn: string; region: string }> {
  const region = options.region ?? (await options.sqs.config.region().catch(() => LOCAL_REGION));
  const fallbackArn = `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${options.queueUrl.split('/').pop()}`;
  if (options.queueArn) return { arn: options.queueArn, region };
  for (
    let delay: number = RETRY_BACKOFF_MS.first;
    !signal.aborted;
    delay = Math.min(delay * 2, RETRY_BACKOFF_MS.max)
  ) {
    try {
      const { Attributes } = await options.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: options.queueUrl,
          AttributeNames: ['QueueArn', 'VisibilityTimeout'],
        }),
        { abortSignal: signal },
      );
      const visibilityMs = Number(Attributes?.VisibilityTimeout) * 1000;
      // Lambda refuses this combination: a batch would reappear while still being handled.
      if (visibilityMs < options.functionTimeoutMs) {
        logger.warn(
          `Local event source: the queue's visibility timeout (${visibilityMs} ms) is shorter than the function timeout (${options.functionTimeoutMs} ms); Lambda would refuse this mapping`,
        );
      }
      return { arn: Attributes?.QueueArn ?? fallbackArn, region };
    } catch (error) {
      if (signal.aborted) break;
      logger.error(`Local event source: cannot read the queue's attributes, retrying in ${delay} ms`, error);
      await sleep(delay, signal);
    }
  }
  return { arn: fallbackArn, region };
}

type Invocation =
  | { kind: 'response'; response: unknown }
  | { kind: 'error'; error: unknown }
  | { kind: 'timeout'; error: Error };

async function invoke(
  handler: SQSHandler,
  event: SQSEvent,
  timeoutMs: number,
  functionName: string,
  region: string,
): Promise<Invocation> {
  const deadline = Date.now() + timeoutMs;
  const context = lambdaContext(functionName, region, deadline);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Invocation>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'timeout', error: new RunnerError(`Task timed out after ${timeoutMs} ms`) }),
      timeoutMs,
    );
  });
  const run = (async (): Promise<Invocation> => {
    const returned = handler(event, context, () => {
      throw new RunnerError('Callback handlers are not supported by nodejs24.x: return a promise');
    });
    if (!returned || typeof (returned as Promise<unknown>).then !== 'function') {
      throw new RunnerError('The handler did not return a promise (nodejs24.x supports async handlers only)');
    }
    return { kind: 'response', response: await returned };
  })().catch((error: unknown): Invocation => ({ kind: 'error', error }));
  try {
    // A timed-out handler keeps running in the background, as it would until Lambda froze it.
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ids to leave on the queue, or an error when the response would fail the whole batch on Lambda. */
function failedIds(response: unknown, ids: readonly string[]): Set<string> | RunnerError {
  if (response === undefined || response === null) return new Set();
  const failures = (response as Partial<SQSBatchResponse>).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return new RunnerError('batchItemFailures is not a list');
  const known = new Set(ids);
  const failed = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !known.has(id)) {
      return new RunnerError(`batchItemFailures names ${JSON.stringify(id)}, which is not in the batch`);
    }
    failed.add(id);
  }
  return failed;
}

/** An SQS message in the shape Lambda hands to the function. */
export function toRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? LOCAL_ACCOUNT_ID,
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.AWSTraceHeader ? { AWSTraceHeader: attributes.AWSTraceHeader } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId
        ? { MessageDeduplicationId: attributes.MessageDeduplicationId }
        : {}),
      ...(attributes.DeadLetterQueueSourceArn
        ? { DeadLetterQueueSourceArn: attributes.DeadLetterQueueSourceArn }
        : {}),
    },
    messageAttributes: toLambdaAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}

/** Lambda's casing (`stringValue`, `dataType`), binary values as base64, list fields always present. */
function toLambdaAttributes(
  attributes: Record<string, MessageAttributeValue> | undefined,
): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    out[name] = {
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined
        ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
        : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      dataType: value.DataType ?? 'String',
    };
  }
  return out;
}

function lambdaContext(functionName: string, region: string, deadline: number): Context {
  const requestId = randomUUID();
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  const unsupported = () => {
    throw new RunnerError(
      'context.done/fail/succeed are not supported by nodejs24.x: return or throw instead',
    );
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: MEMORY_MB,
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${requestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
