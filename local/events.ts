/**
 * Operational events in local mode (docs/design.md §9): the dispatcher and the management library
 * publish to the local SNS topic (fauxqs) exactly as deployed; a queue subscribed to it is
 * read here, and each event is printed and appended, one JSON line, to a file under .local/
 * (`events.jsonl` beside the state file), so what happened is kept after the terminal scrolls.
 */

import { dirname } from 'node:path';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { OperationalEvent } from '../lambdas/core/parking';
import { visible } from '../lambdas/core/terminal';
import { appendPrivateFile, makePrivate, privateDir } from './private-files';

/** Long-poll wait of the events queue: short, so a stop is quick. */
const WAIT_TIME_S = 1;
const BACKOFF_MS = 1_000;

export interface EventsWatcherOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** The JSON-lines file events are appended to. */
  file: string;
  /** Prints one line. */
  write: (line: string) => void;
}

/** One line for a person: what changed, for which connection, and what to do. */
export function describeEvent(event: OperationalEvent): string {
  const who = `${event.connectionId}${event.connectionName ? ` (${visible(event.connectionName)})` : ''}`;
  switch (event.type) {
    case 'connection.failing':
      return `${event.type} ${who}: ${deliveries(event.consecutiveFailures)} in a row failed every attempt; they are parked (npx webhooks --local connections parked ${event.connectionId})`;
    case 'connection.disabled':
      return `${event.type} ${who}: disabled after ${deliveries(event.consecutiveFailures)} in a row failed; new events are parked, not sent. Fix the endpoint, then: npx webhooks --local connections enable ${event.connectionId}, then connections recover ${event.connectionId}`;
    case 'connection.recovered':
      return `${event.type} ${who}: healthy again`;
    default:
      return `${visible(String((event as { type: unknown }).type))} ${who}`;
  }
}

const deliveries = (n: number) => (n === 1 ? '1 delivery' : `${n} deliveries`);

/** Reads the events queue until stopped. */
export function watchEvents(options: EventsWatcherOptions): { stop(): Promise<void> } {
  let stopped = false;
  privateDir(dirname(options.file));
  makePrivate(options.file);
  const loop = (async () => {
    while (!stopped) {
      try {
        const out = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: WAIT_TIME_S,
          }),
        );
        const messages = out.Messages ?? [];
        for (const message of messages) {
          let event: OperationalEvent;
          try {
            event = JSON.parse(message.Body ?? '') as OperationalEvent;
          } catch {
            continue;
          }
          appendPrivateFile(options.file, `${JSON.stringify(event)}\n`);
          options.write(describeEvent(event));
        }
        if (messages.length > 0) {
          await options.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: options.queueUrl,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
            }),
          );
        }
      } catch {
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
