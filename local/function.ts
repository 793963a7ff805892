/**
 * Local mode's dispatcher function: the production wiring (lambdas/backend/dispatcher.ts) and handler,
 * invoked by the event source mappings of the ingress and retry queues (runner.ts), several
 * batches at once.
 *
 * On Lambda each concurrent invocation runs in a container of its own, and what the dispatcher
 * keeps at module scope is that container's: the attempt slots of `WEBHOOKS_BATCH_CONCURRENCY`,
 * the connection cache, the HTTPS pool, the cold start. Here every invocation shares one process,
 * so each gets an instance of its own instead, the wiring made once per instance: were one
 * shared, the attempt slots of one invocation would be every invocation's, and a receiver that
 * never answers would hold them all. Instances are made as invocations need them and reused, the
 * most recently freed first, as Lambda reuses a warm container; one whose invocation timed out
 * stays busy until its handler ends, as a container is until Lambda stops it. What they do
 * share is what is shared on Lambda too: the emulators, the metrics registry, the log.
 */

import type { SQSClient } from '@aws-sdk/client-sqs';
import { lightDocumentClient } from '../lambdas/adapters/dynamodb/light-client';
import { awsClients, type Wired, type WiringOptions, wireDispatcher } from '../lambdas/backend';
import type { DispatcherConfig } from '../lambdas/config';
import { createHandler, type SqsBatchHandler } from '../lambdas/dispatcher/handler';
import { type EventSourceQueue, type RunnerLogger, startEventSources } from './runner';

/**
 * Batches of each queue handled at once unless `--concurrency` says otherwise. Lambda starts an
 * SQS event source at 5 concurrent batches and scales up from there; 10 lets nine receivers
 * hang at once (each until the attempt timeout) before a tenth batch waits.
 */
export const DEFAULT_CONCURRENCY = 10;

export interface LocalFunctionOptions {
  readonly config: DispatcherConfig;
  /** Trusted CAs, the metrics registry, the log. */
  readonly wiring?: WiringOptions;
  /** What the event source mappings poll with (they play AWS's pollers, not the function). */
  readonly sqs: SQSClient;
  readonly queues: readonly EventSourceQueue[];
  readonly functionTimeoutMs: number;
  /** Batches of each queue in flight at once. @default DEFAULT_CONCURRENCY */
  readonly concurrency?: number;
  /** @default 1 */
  readonly waitTimeSeconds?: number;
  /** @default console (warnings and errors only) */
  readonly logger?: RunnerLogger;
}

export interface LocalFunction {
  /** Instances made so far: at most the invocations that were in flight at once. */
  instances(): number;
  /** Stops polling; resolves once every batch in flight has been handled and settled. */
  stop(): Promise<void>;
  /** Closes what the function holds open (its HTTPS pools); after `stop`. */
  close(): Promise<void>;
}

export function startLocalFunction(options: LocalFunctionOptions): LocalFunction {
  const { config } = options;
  // One set of SDK clients for every instance (they keep nothing of an invocation), so twenty
  // instances hold one pool of sockets to each emulator, not twenty.
  const ownClients = options.wiring?.clients ? undefined : awsClients();
  const wiring: WiringOptions = {
    documentClient: lightDocumentClient,
    ...options.wiring,
    clients: options.wiring?.clients ?? ownClients,
  };
  const all: Wired[] = [];
  const free: SqsBatchHandler[] = [];
  const handler: SqsBatchHandler = async (event, context) => {
    let instance = free.pop();
    if (!instance) {
      const wired = wireDispatcher(config, wiring);
      all.push(wired);
      instance = createHandler(wired.dispatcher, config.retryQueueUrl, wired.invocation);
    }
    try {
      return await instance(event, context);
    } finally {
      free.push(instance);
    }
  };
  const runner = startEventSources(
    {
      sqs: options.sqs,
      handler,
      functionTimeoutMs: options.functionTimeoutMs,
      waitTimeSeconds: options.waitTimeSeconds ?? 1,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      ...(options.logger ? { logger: options.logger } : {}),
    },
    options.queues,
  );
  return {
    instances: () => all.length,
    stop: () => runner.stop(),
    async close() {
      await Promise.all(all.map((wired) => wired.close()));
      for (const client of Object.values(ownClients ?? {})) client.destroy();
    },
  };
}
