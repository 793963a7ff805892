/**
 * The cold-start baseline: the AWS SDK clients and commands the dispatcher uses, built the
 * way lambdas/backend/ builds them with the stack's defaults (an events topic, the
 * secrets-manager store: the KMS client's module is loaded for the kms store but not built),
 * and nothing else. Bundled with the same options as the dispatcher, its module init time is
 * what the SDK alone costs.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

export const clients = {
  dynamodb: DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  }),
  sqs: new SQSClient({}),
  secretsManager: new SecretsManagerClient({}),
  sns: new SNSClient({}),
};
/** Built only for the kms secret store. */
export const kmsClient = KMSClient;
export const commands = [
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  DeleteCommand,
  SendMessageCommand,
  SendMessageBatchCommand,
  GetSecretValueCommand,
  PublishCommand,
  DecryptCommand,
  EncryptCommand,
];
