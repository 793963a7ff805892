/**
 * Builds the delivery core from configuration: production adapters around it. Shared by the
 * dispatcher Lambda (once at module scope), the management library's test sends, local mode
 * and the test harness, so none of them reaches into another's folder. Tests pass their own
 * config and, where they must, an extra trusted CA or a stub resolver.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoAttemptLog } from './adapters/dynamodb/attempt-log';
import { documentClient } from './adapters/dynamodb/client';
import { DynamoConnectionStore } from './adapters/dynamodb/connection-store';
import { DynamoHealthStore } from './adapters/dynamodb/health-store';
import { DynamoParkedStore } from './adapters/dynamodb/parked-store';
import { type Resolver, UndiciSender } from './adapters/http/sender';
import { powertoolsLog } from './adapters/logger';
import { emfMetrics } from './adapters/metrics/emf';
import { KmsSigningSecrets } from './adapters/secrets/kms-sealed';
import { SecretsManagerSigningSecrets } from './adapters/secrets/signing-secrets';
import { SnsOperationalEvents } from './adapters/sns/operational-events';
import { SqsQueues } from './adapters/sqs/queues';
import type { DispatcherConfig } from './config';
import { cachedConnections } from './core/cached-connections';
import { createDispatcher, type Dispatcher, type DispatcherDeps } from './core/dispatch';
import { createHealthTracker } from './core/health-tracker';
import type { OperationalEvents } from './core/parking';
import type { Clock, Log, SigningSecrets } from './core/types';

export interface WiringOptions {
  clients?: {
    dynamodb?: DynamoDBClient;
    sqs?: SQSClient;
    secretsManager?: SecretsManagerClient;
    kms?: KMSClient;
    sns?: SNSClient;
  };
  /** Replace individual ports (tests). */
  deps?: Partial<DispatcherDeps>;
  /** Trusted CAs instead of Node's defaults: tests only. */
  ca?: string[];
  resolver?: Resolver;
  clock?: Clock;
}

export interface Wired {
  dispatcher: Dispatcher;
  deps: DispatcherDeps;
  close(): Promise<void>;
}

export function wireDispatcher(config: DispatcherConfig, options: WiringOptions = {}): Wired {
  const clock = options.clock ?? { now: () => Date.now() };
  const doc = documentClient(options.clients?.dynamodb);
  const egress = { allowedPorts: config.allowedPorts, allowLoopback: config.allowLoopback };
  const sender = new UndiciSender({ egress, ca: options.ca, resolver: options.resolver });
  const queues = new SqsQueues({
    retryQueueUrl: config.retryQueueUrl,
    dlqUrl: config.dlqUrl,
    client: options.clients?.sqs,
  });
  const log = options.deps?.log ?? powertoolsLog();
  const events: OperationalEvents = config.eventsTopicArn
    ? new SnsOperationalEvents({ topicArn: config.eventsTopicArn, client: options.clients?.sns })
    : loggedEvents(log);
  const deps: DispatcherDeps = {
    connections: cachedConnections(
      new DynamoConnectionStore({ tableName: config.connectionsTable, client: doc }),
      config.connectionCacheTtlMs,
      clock,
    ),
    secrets: signingSecrets(config, options, clock),
    sender,
    scheduler: queues,
    deadLetters: queues,
    parked: new DynamoParkedStore({ tableName: config.parkedTable, client: doc }),
    health: createHealthTracker(
      {
        health: new DynamoHealthStore({ tableName: config.connectionsTable, client: doc }),
        events,
        clock,
        log,
      },
      config.health,
    ),
    attemptLog: new DynamoAttemptLog({ tableName: config.attemptsTable, client: doc }),
    attemptLogFallback: queues,
    clock,
    log,
    metrics: emfMetrics,
    ...options.deps,
  };
  const dispatcher = createDispatcher(deps, {
    headerPrefix: config.headerPrefix,
    attemptTimeoutMs: config.attemptTimeoutMs,
    attemptTtlDays: config.attemptTtlDays,
    deliveredTtlDays: config.deliveredTtlDays,
    concurrency: config.batchConcurrency,
    egress,
  });
  return { dispatcher, deps, close: () => sender.close() };
}

/** The adapter of the configured secret store (D28). */
function signingSecrets(config: DispatcherConfig, options: WiringOptions, clock: Clock): SigningSecrets {
  const store = config.secretStore ?? { kind: 'secrets-manager' };
  return store.kind === 'kms'
    ? new KmsSigningSecrets({ keyId: store.keyArn, client: options.clients?.kms, clock })
    : new SecretsManagerSigningSecrets({ client: options.clients?.secretsManager, clock });
}

/** Without a topic (test sends, tools), an operational event is one log line. */
function loggedEvents(log: Log): OperationalEvents {
  return {
    async publish(event) {
      log.warn(`operational event ${event.type}`, { ...event });
    },
  };
}
