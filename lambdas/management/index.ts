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
import {
  type ConsoleSession,
  consoleUrlOf,
  mintSessionToken,
  SessionKey,
  SessionSetupError,
} from './console-session';
import { DeadLetterQueue } from './dead-letters';
import { sendTest } from './test-send';
import type { ManagementOptions } from './types';

export { type AttemptQuery, Attempts } from './attempts';
export { Connections, generateSecret } from './connections';
export {
  type ConsoleSession,
  DEFAULT_SESSION_TTL_SECONDS,
  MAX_SESSION_TTL_SECONDS,
  SessionError,
  SessionSetupError,
} from './console-session';
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
  private sessionKey?: SessionKey;

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

  /**
   * A console link for one application (DESIGN.md §8): a session token valid for `ttlSeconds`
   * (default 1 h, at most 24 h) and `<api>/console/#token=…`. Give the link to a signed-in
   * user of your product; it opens the console on that application's connections only.
   */
  async createConsoleSession(input: {
    applicationId: string;
    ttlSeconds?: number;
    /** Base URL the console is served from. @default resources.apiUrl */
    apiUrl?: string;
  }): Promise<ConsoleSession> {
    const { consoleKeySecret } = this.shared.resources;
    const apiUrl = input.apiUrl ?? this.shared.resources.apiUrl;
    if (!consoleKeySecret || !apiUrl) {
      throw new SessionSetupError(
        'this deployment has no management API and console (resources name no consoleKeySecret / apiUrl)',
      );
    }
    this.sessionKey ??= new SessionKey(this.shared.clients!.secretsManager!, consoleKeySecret);
    const { token, expiresAt } = await mintSessionToken(await this.sessionKey.get(), {
      applicationId: input.applicationId,
      ttlSeconds: input.ttlSeconds,
    });
    return {
      token,
      consoleUrl: consoleUrlOf(apiUrl, token),
      expiresAt: new Date(expiresAt * 1000).toISOString(),
    };
  }

  /** The key that verifies console sessions (the management API uses it). */
  consoleSessionKey(): SessionKey {
    const { consoleKeySecret } = this.shared.resources;
    if (!consoleKeySecret) throw new SessionSetupError('resources name no consoleKeySecret');
    this.sessionKey ??= new SessionKey(this.shared.clients!.secretsManager!, consoleKeySecret);
    return this.sessionKey;
  }
}
