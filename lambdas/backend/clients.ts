/**
 * The AWS SDK clients of one process: the composition root builds them once, and every adapter
 * the dispatcher, test sends and the management backend use is built around this one set, so a
 * process holds one pool of sockets to each service (docs/design.md §2, rule 8).
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

/** The AWS SDK clients a caller may pass; each absent one is built from the default credential chain. */
export interface AwsClients {
  dynamodb?: DynamoDBClient;
  sqs?: SQSClient;
  secretsManager?: SecretsManagerClient;
  /** Used with the `kms` secret store only. */
  kms?: KMSClient;
  sns?: SNSClient;
}

/** One client per service. KMS only where the deployment's secret store uses it. */
export interface SharedClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly secretsManager: SecretsManagerClient;
  readonly sns: SNSClient;
  readonly kms?: KMSClient;
}

/**
 * The given SDK clients, and one of each missing service from the default credential chain and
 * endpoints (`AWS_ENDPOINT_URL_*`, which is how local mode points them at the emulators).
 */
export function awsClients(given: AwsClients = {}, withKms = true): SharedClients {
  return {
    sqs: given.sqs ?? new SQSClient({}),
    dynamodb: given.dynamodb ?? new DynamoDBClient({}),
    secretsManager: given.secretsManager ?? new SecretsManagerClient({}),
    sns: given.sns ?? new SNSClient({}),
    ...(withKms ? { kms: given.kms ?? new KMSClient({}) } : {}),
  };
}
