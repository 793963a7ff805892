/**
 * The cold-start baseline: the AWS SDK clients and commands the dispatcher uses, built the
 * way lambdas/wiring.ts builds them, and nothing else. Bundled with the same
 * options as the dispatcher, its module init time is what the SDK alone costs.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';

export const clients = {
  dynamodb: DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  }),
  sqs: new SQSClient({}),
  secretsManager: new SecretsManagerClient({}),
};
export const commands = [GetCommand, PutCommand, QueryCommand, SendMessageCommand, GetSecretValueCommand];
