/**
 * The management API: everything the "CRM Connections" dashboard of spec §1 does (add,
 * Show Secret, Send Test, logs), plus rotation, the attempt log and the DLQ. The `webhooks`
 * CLI is a thin layer over it; a customer's own dashboard backend can call it directly.
 *
 * ```ts
 * const webhooks = new WebhookManagement({ resources: await resourcesFromStack('Webhooks') });
 * const con = await webhooks.connections.create({ applicationId, name: 'CRM', url: 'https://crm.example.com/hooks' });
 * const { secret } = await webhooks.connections.showSecret(con.connectionId);
 * const result = await webhooks.sendTest(con.connectionId);
 * ```
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { AttemptRecord } from '../core/types';
import { WebhookPublisher } from '../publisher';
import { Attempts } from './attempts';
import { Connections } from './connections';
import { DeadLetterQueue } from './dead-letters';
import { sendTest } from './test-send';
import type { ManagementOptions } from './types';

export { type AttemptQuery, Attempts } from './attempts';
export { Connections, generateSecret } from './connections';
export { type DeadLetterEntry, DeadLetterQueue, type RedriveResult } from './dead-letters';
export { ConflictError, NotFoundError, ValidationError } from './errors';
export { resourcesFromStack } from './stack';
export type * from './types';

export class WebhookManagement {
  readonly connections: Connections;
  readonly attempts: Attempts;
  readonly deadLetters: DeadLetterQueue;
  readonly publisher: WebhookPublisher;

  /** The options with one client per service, shared by every part and every test send. */
  private readonly shared: ManagementOptions;

  constructor(options: ManagementOptions) {
    const clients = {
      sqs: options.clients?.sqs ?? new SQSClient({}),
      dynamodb: options.clients?.dynamodb ?? new DynamoDBClient({}),
      secretsManager: options.clients?.secretsManager ?? new SecretsManagerClient({}),
    };
    this.shared = { ...options, clients };
    this.connections = new Connections(this.shared);
    this.attempts = new Attempts(this.shared);
    this.deadLetters = new DeadLetterQueue(this.shared);
    this.publisher = new WebhookPublisher({ queueUrl: options.resources.queueUrl, sqsClient: clients.sqs });
  }

  /** One immediate signed test delivery (`test: true` in the attempt log, never retried). */
  async sendTest(connectionId: string): Promise<AttemptRecord> {
    const connection = await this.connections.get(connectionId);
    return sendTest(this.shared, connection);
  }
}
