/**
 * The one fixture set of tests and benchmarks: ids, published events, connections, SQS
 * records and the bodies the dispatcher sends for them. The benchmarks' figures depend on
 * these sizes (ULID ids, a typical user with small metadata): change them knowingly.
 */

import { randomBytes } from 'node:crypto';
import { ENV } from '../../lambdas/config';
import { buildEventMessage } from '../../lambdas/core/envelope';
import { deliveryIdFor, ulid } from '../../lambdas/core/ids';
import type { ParkedItem } from '../../lambdas/core/parking';
import { buildPayload, serialiseBody } from '../../lambdas/core/payload';
import type { DispatcherOptions, InputRecord } from '../../lambdas/core/ports';
import type {
  AttemptRecord,
  AttemptResult,
  Connection,
  DeliveryMessage,
  EventMessage,
} from '../../lambdas/core/types';
import type { PublishInput } from '../../lambdas/publisher';
import type { LocalState } from '../../local/state';

export const HEADER_PREFIX = 'X-Service';
export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** A unique id with a prefix, e.g. `con_01JD…` (a ULID: sortable, 26 characters). */
export const id = (prefix: string) => `${prefix}_${ulid(Date.now(), randomBytes(10))}`;

/** A user as upstream services typically publish it (docs/protocol.md §2 fields, small metadata). */
export const user = (userId: string = id('usr')) =>
  ({
    id: userId,
    email: 'ada.lovelace@example.com',
    name: 'Ada Lovelace',
    metadata: { plan: 'pro', source: 'extension' },
  }) satisfies PublishInput['user'];

/** A published `user.identified` event in the v1 envelope; `extra` overrides or adds top-level fields. */
export function userIdentified(
  applicationId: string,
  extra: Record<string, unknown> = {},
  options: { eventId?: string } = {},
): EventMessage {
  const message = buildEventMessage(
    {
      user: { ...user(), firstName: 'Ada', lastName: 'Lovelace' },
      application: { id: applicationId, name: 'Acme Extension' },
    },
    { eventId: options.eventId ?? id('evt'), occurredAt: new Date().toISOString() },
  );
  return { ...message, ...extra } as EventMessage;
}

/** The value of the custom header every {@link connection} sends (a receiver's credential, never shown). */
export const HEADER_VALUE = 'Bearer receiver-credential-xyz';

/**
 * A connection of `app_1` for in-memory tests: an example.com URL with a secret in its query, a
 * credential header, secret version `v1`; `overrides` change it.
 */
export function connection(id: string, overrides: Partial<Connection> = {}): Connection {
  return {
    connectionId: id,
    applicationId: 'app_1',
    type: 'webhook',
    name: `Receiver ${id}`,
    url: `https://${id.replace('_', '-')}.example.com/hooks?token=query-secret`,
    method: 'POST',
    headers: { Authorization: HEADER_VALUE },
    enabled: true,
    secretArn: `arn:aws:secretsmanager:us-east-1:123456789012:secret:webhooks/${id}-AbCdEf`,
    secretVersion: 'v1',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}

/** The dispatcher's options of in-memory tests: the spec's header prefix, port 443 only. */
export const DISPATCHER_OPTIONS: DispatcherOptions = {
  headerPrefix: HEADER_PREFIX,
  attemptTtlDays: 30,
  concurrency: 10,
  egress: { allowedPorts: [443], allowLoopback: false },
};

/** An invocation with far more time left than any in-memory test needs. */
export const PLENTY = { remainingMs: () => 90_000 };

/** A delivery message to `con_a` (attempt 1 of its chain); `overrides` set the body, attempt, times. */
export function deliveryMessage(overrides: Partial<DeliveryMessage> = {}): DeliveryMessage {
  return {
    v: 1,
    type: 'delivery',
    deliveryId: 'dlv_01JD3XQ4Z8K2M5N7P9R1S3T5V7_con_a',
    eventId: 'evt_01JD3XQ4Z8K2M5N7P9R1S3T5V7',
    connectionId: 'con_a',
    attempt: 1,
    chainStart: 1,
    body: '{}',
    firstAttemptAt: '2026-11-21T14:59:00.000Z',
    ...overrides,
  };
}

/** A receiver's answer with this status, in 12 ms. */
export function ok(status: number, snippet = '{"received":true}'): AttemptResult {
  return { kind: 'response', status, snippet, durationMs: 12 };
}

export function connectionFor(
  url: string,
  applicationId: string,
  headers = { Authorization: 'Bearer rk_live_0123456789abcdef' },
): Connection {
  const now = new Date().toISOString();
  const connectionId = id('con');
  return {
    connectionId,
    applicationId,
    type: 'webhook',
    name: 'CRM',
    url,
    method: 'POST',
    headers,
    enabled: true,
    secretArn: `arn:aws:secretsmanager:us-east-1:123456789012:secret:webhooks/Webhooks/${connectionId}-AbCdEf`,
    secretVersion: '6f3c1a2e-8b4d-4c5e-9f60-7a8b9c0d1e2f',
    createdAt: now,
    updatedAt: now,
  };
}

/** A delivered first attempt of a new event at `at` (epoch ms) to the connection; `fields` change it. */
export function attemptAt(
  connectionId: string,
  applicationId: string,
  at: number,
  fields: Partial<AttemptRecord> = {},
): AttemptRecord {
  const eventId = id('evt');
  return {
    deliveryId: deliveryIdFor(eventId, connectionId, at),
    attempt: 1,
    eventId,
    connectionId,
    applicationId,
    userId: 'usr_1',
    event: 'user.identified',
    method: 'POST',
    target: 'https://example.com/hooks',
    requestedAt: new Date(at).toISOString(),
    durationMs: 100,
    outcome: 'delivered',
    statusCode: 200,
    final: true,
    expiresAt: Math.floor(at / 1000) + 86_400,
    ...fields,
  };
}

/** A delivery of a new event at `at` (epoch ms) parked after its 4 attempts met HTTP 503; `fields` change it. */
export function parkedAt(
  connectionId: string,
  applicationId: string,
  at: number,
  fields: Partial<ParkedItem> = {},
): ParkedItem {
  const eventId = id('evt');
  return {
    deliveryId: deliveryIdFor(eventId, connectionId, at),
    connectionId,
    applicationId,
    eventId,
    reason: 'exhausted',
    lastError: 'HTTP 503',
    lastOutcome: 'http_error',
    lastStatusCode: 503,
    attempts: 4,
    parkedAt: new Date(at + 7_000).toISOString(),
    body: JSON.stringify({ event: 'user.identified', n: at }),
    firstAttemptAt: new Date(at).toISOString(),
    expiresAt: Math.floor(at / 1000) + 86_400,
    ...fields,
  };
}

/** `count` published events of one application, as SQS records. */
export function eventRecords(applicationId: string, count: number): InputRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    messageId: `m-${i}`,
    body: JSON.stringify(userIdentified(applicationId)),
  }));
}

/** The body the dispatcher sends for an event: the same bytes the baseline posts. */
export function bodyOf(record: InputRecord): string {
  const event = JSON.parse(record.body) as EventMessage;
  return serialiseBody(
    buildPayload({ timestamp: event.occurredAt, user: event.user, application: event.application }),
  );
}

/** The least environment a dispatcher's configuration loads from (lambdas/config.ts). */
export const MINIMAL_DISPATCHER_ENV: Readonly<Record<string, string>> = {
  [ENV.retryQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/1/q-retry',
  [ENV.dlqUrl]: 'https://sqs.us-east-1.amazonaws.com/1/dlq',
  [ENV.connectionsTable]: 'connections',
  [ENV.attemptsTable]: 'attempts',
  [ENV.parkedTable]: 'parked',
  [ENV.rateWindowsTable]: 'rate-windows',
  [ENV.secretPrefix]: 'webhooks/prod/',
};

/** A local mode state file's contents (local/state.ts), with loopback endpoints that answer nothing. */
export function localStateFixture(extra: Partial<LocalState> = {}): LocalState {
  return {
    pid: 1,
    startedAt: '2026-11-22T14:00:00.000Z',
    region: 'us-east-1',
    endpoints: {
      sqs: 'http://127.0.0.1:1',
      dynamodb: 'http://127.0.0.1:2',
      secretsManager: 'http://127.0.0.1:3',
      kms: 'http://127.0.0.1:4',
    },
    resources: {} as LocalState['resources'],
    caFile: '/x/local-ca.pem',
    allowedPorts: [443],
    ...extra,
  };
}

/** The outputs every deployed webhooks stack has (resourcesFromStack needs them): a stack `Prod`. */
export const DEPLOYED_OUTPUTS: Readonly<Record<string, string>> = {
  QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/q',
  RetryQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/r',
  DeadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/d',
  ConnectionsTableName: 'c',
  AttemptsTableName: 'a',
  SecretPrefix: 'webhooks/Prod/',
};

/** CloudFormation's DescribeStacks answer for the stack `Prod` with these outputs. */
export function describedStack(outputs: Record<string, string>) {
  return {
    Stacks: [
      {
        StackName: 'Prod',
        CreationTime: new Date(),
        StackStatus: 'CREATE_COMPLETE' as const,
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      },
    ],
  };
}
