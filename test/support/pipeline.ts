/**
 * A whole pipeline on the integration project's emulators, in the test's own process: a
 * fresh queue + DLQ per harness (emulators.ts `createQueues`, so test files never steal each
 * other's messages), the shared tables, real connections with real secrets, and the
 * dispatcher under test (dispatcher.ts: the production wiring under the local event-source
 * runner). The fault suite's pipeline (proxies, receivers that keep the ledger, a dispatcher
 * that can be killed) is stack.ts, on the same pieces.
 */

import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { powertoolsLog } from '../../lambdas/adapters/logger';
import type { Wired } from '../../lambdas/backend';
import { CONFIG_DEFAULTS } from '../../lambdas/config';
import type { ParkedItem } from '../../lambdas/core/parking';
import type { Log } from '../../lambdas/core/ports';
import type { AttemptRecord, Connection, DeadLetter } from '../../lambdas/core/types';
import type { LocalResources } from '../../local/bootstrap';
import { dispatcherSettings, startDispatcher } from './dispatcher';
import { createQueues, servicesFromEnv } from './emulators';
import { id } from './fixtures';
import { testPki } from './pki';
import { attemptsOf, parkedOf } from './queries';

export interface HarnessOptions {
  /** Ports the receivers listen on (egress allows only listed ports). */
  ports: number[];
  attemptTimeoutMs?: number;
  functionTimeoutMs?: number;
  visibilityTimeoutSeconds?: number;
  log?: Log;
  failingAfter?: number;
  disableAfter?: number;
  /** WEBHOOKS_RECOVERY_PROBES for this dispatcher (`3s,3s`). @default off (test/support/dispatcher.ts) */
  recoveryProbes?: string;
}

export interface Harness {
  resources: LocalResources;
  wired: Wired;
  sqs: SQSClient;
  createConnection(
    input: Partial<Connection> & { url: string; applicationId: string },
  ): Promise<Connection & { secret: string }>;
  publish(message: unknown): Promise<void>;
  publishBatch(messages: Array<unknown | string>): Promise<void>;
  attemptsOf(connectionId: string): Promise<AttemptRecord[]>;
  /** The parked deliveries of a connection, bodies included (the table's items). */
  parkedOf(connectionId: string): Promise<ParkedItem[]>;
  /** Receives (and deletes) DLQ messages until `count` have arrived. */
  deadLetters(count: number, timeoutMs?: number): Promise<DeadLetter[]>;
  stop(): Promise<void>;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const services = servicesFromEnv();
  const resources = await createQueues(services, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
    label: 't',
  });
  const running = startDispatcher(
    {
      region: services.region,
      endpoints: services.endpoints,
      runnerSqsEndpoint: services.endpoints.sqs,
      resources,
      ca: [testPki().caPem],
      allowedPorts: options.ports,
      attemptTimeoutMs: options.attemptTimeoutMs ?? 30_000,
      functionTimeoutMs: options.functionTimeoutMs ?? 90_000,
      batchConcurrency: CONFIG_DEFAULTS.batchConcurrency,
      runnerConcurrency: 4,
      connectionCacheTtlMs: 0,
      failingAfter: options.failingAfter,
      disableAfter: options.disableAfter,
      // The SDK's own default: these tests inject no faults.
      sdkMaxAttempts: 3,
      // What else the test set in the environment (e.g. the secret store), as the construct would.
      settings: dispatcherSettings(process.env),
      recoveryProbes: options.recoveryProbes,
    },
    // The production log (Powertools, JSON on stdout) unless the test brings its own.
    { log: options.log ?? powertoolsLog() },
  );
  const sqs = new SQSClient({});
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const sm = new SecretsManagerClient({});

  return {
    resources,
    wired: running.wired,
    sqs,
    async createConnection(input) {
      const connectionId = input.connectionId ?? id('con');
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const created = await sm.send(
        new CreateSecretCommand({ Name: `${resources.secretPrefix}${connectionId}`, SecretString: secret }),
      );
      const now = new Date().toISOString();
      const connection: Connection = {
        connectionId,
        type: 'webhook',
        name: `Test ${connectionId}`,
        method: 'POST',
        headers: {},
        enabled: true,
        secretArn: created.ARN!,
        secretVersion: created.VersionId!,
        createdAt: now,
        updatedAt: now,
        ...input,
      };
      await doc.send(new PutCommand({ TableName: resources.connectionsTable, Item: connection }));
      return { ...connection, secret };
    },
    async publish(message) {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: resources.queueUrl, MessageBody: JSON.stringify(message) }),
      );
    },
    async publishBatch(messages) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: resources.queueUrl,
          Entries: messages.map((m, i) => ({
            Id: String(i),
            MessageBody: typeof m === 'string' ? m : JSON.stringify(m),
          })),
        }),
      );
    },
    attemptsOf: (connectionId) => attemptsOf(doc, resources.attemptsTable, connectionId),
    parkedOf: (connectionId) => parkedOf(doc, resources.parkedTable, connectionId),
    async deadLetters(count, timeoutMs = 20_000) {
      const letters: DeadLetter[] = [];
      const deadline = Date.now() + timeoutMs;
      while (letters.length < count && Date.now() < deadline) {
        const out = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: resources.dlqUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
          }),
        );
        for (const m of out.Messages ?? []) {
          letters.push(JSON.parse(m.Body!));
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: resources.dlqUrl, ReceiptHandle: m.ReceiptHandle! }),
          );
        }
      }
      if (letters.length < count)
        throw new Error(`DLQ got ${letters.length} of ${count} messages in ${timeoutMs} ms`);
      return letters;
    },
    async stop() {
      await running.stop();
      sqs.destroy();
      doc.destroy();
      sm.destroy();
    },
  };
}
