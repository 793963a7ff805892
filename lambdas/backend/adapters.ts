/**
 * The one place that knows the production adapters' constructors: each store, queue, topic and
 * secret store of a deployment, built around the process's one set of SDK clients
 * (clients.ts). The dispatcher's wiring (dispatcher.ts) and the management backend
 * (management.ts) both take their adapters from here, so a second store is one adapter module
 * and one line below (docs/design.md §2, rule 8).
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAttempts } from '../adapters/dynamodb/attempts';
import { DynamoClaims } from '../adapters/dynamodb/claims';
import { documentClient } from '../adapters/dynamodb/client';
import { DynamoConnections } from '../adapters/dynamodb/connections';
import { DynamoParked } from '../adapters/dynamodb/parked';
import { DynamoRateWindows } from '../adapters/dynamodb/rate-windows';
import { WriteBuffer } from '../adapters/dynamodb/write-buffer';
import { KmsKeeper, SecretsManagerKeeper } from '../adapters/secrets/keepers';
import { KmsSecretSealer, KmsSigningSecrets } from '../adapters/secrets/kms-sealed';
import { SecretsManagerSigningSecrets } from '../adapters/secrets/signing-secrets';
import { SnsOperationalEvents } from '../adapters/sns/operational-events';
import { SqsQueues } from '../adapters/sqs/queues';
import type { SecretStore } from '../config';
import { attemptShardSteps } from '../core/attempt-shards';
import type { Clock, SigningSecrets } from '../core/ports';
import type { Connection } from '../core/types';
import type { SecretKeeper } from '../management/ports';
import type { SharedClients } from './clients';

/** A connection as far as placing its attempt records goes: by its shard steps. */
type ShardLookup = (connectionId: string) => Promise<Connection | undefined> | Connection | undefined;

export interface DeploymentAdapters {
  readonly clients: SharedClients;
  /** The document client every DynamoDB adapter shares. */
  readonly doc: DynamoDBDocumentClient;
  connections(tableName: string): DynamoConnections;
  /**
   * The attempt log; `connectionOf` gives the connection whose shard steps place a record;
   * `lookups`: a writer writes each delivery's search items (delivery search), held in `buffer`
   * until its batch ends when given.
   */
  attempts(
    tableName: string,
    connectionOf: ShardLookup,
    lookups?: boolean,
    buffer?: WriteBuffer,
  ): DynamoAttempts;
  parked(tableName: string): DynamoParked;
  rateWindows(tableName: string): DynamoRateWindows;
  /** Claims of events' deliveries, kept in the rate-windows table (tables.ts DELIVERY_CLAIMS). */
  claims(rateWindowsTable: string, buffer?: WriteBuffer): DynamoClaims;
  /** A dispatcher's writes held until its batch ends, on the shared document client. */
  writeBuffer(): WriteBuffer;
  queues(urls: { retryQueueUrl: string; dlqUrl: string }): SqsQueues;
  events(topicArn: string): SnsOperationalEvents;
  /** What the dispatcher signs with: the store's secrets, cached. */
  signingSecrets(store: SecretStore | undefined, clock: Clock): SigningSecrets;
  /** What the management side creates, rotates and reads secrets with. */
  secretKeeper(store: SecretStore | undefined, secretPrefix: string): SecretKeeper;
}

/** `doc`: the document client of every DynamoDB adapter (the dispatcher's is lighter, light-client.ts). */
export function deploymentAdapters(
  clients: SharedClients,
  doc: DynamoDBDocumentClient = documentClient(clients.dynamodb),
): DeploymentAdapters {
  const kms = () => {
    if (!clients.kms)
      throw new Error('the kms secret store needs a KMS client: build the clients with withKms');
    return clients.kms;
  };
  return {
    clients,
    doc,
    connections: (tableName) => new DynamoConnections({ tableName, client: doc }),
    attempts: (tableName, connectionOf, lookups, buffer) =>
      new DynamoAttempts({
        tableName,
        client: doc,
        shards: async (connectionId) => attemptShardSteps(await connectionOf(connectionId)),
        lookups,
        buffer,
      }),
    parked: (tableName) => new DynamoParked({ tableName, client: doc }),
    rateWindows: (tableName) => new DynamoRateWindows({ tableName, client: doc }),
    claims: (tableName, buffer) => new DynamoClaims({ tableName, client: doc, buffer }),
    writeBuffer: () => new WriteBuffer(doc),
    queues: (urls) => new SqsQueues({ ...urls, client: clients.sqs }),
    events: (topicArn) => new SnsOperationalEvents({ topicArn, client: clients.sns }),
    signingSecrets: (store, clock) =>
      store?.kind === 'kms'
        ? new KmsSigningSecrets({ keyId: store.keyArn, client: kms(), clock })
        : new SecretsManagerSigningSecrets({ client: clients.secretsManager, clock }),
    secretKeeper: (store, secretPrefix) =>
      store?.kind === 'kms'
        ? new KmsKeeper(new KmsSecretSealer(kms(), store.keyArn))
        : new SecretsManagerKeeper(clients.secretsManager, secretPrefix),
  };
}
