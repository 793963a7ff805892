/** The DynamoDB document client every DynamoDB adapter and the management library share. */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A document client around `client`, or around one built from the default chain when none is
 * given (docs/design.md §2, rule 2). Undefined attributes are left out of items rather than refused.
 */
export function documentClient(client?: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client ?? new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/**
 * Whether a write was refused by its condition. By name, not class: the SDK's error classes
 * differ between client copies (a caller's own client), and some emulators set only the name.
 */
export function isConditionFailed(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}
