/**
 * The rate-limit windows on DynamoDB (decisions.md D35): each send of a rate-limited connection
 * is one UpdateItem that adds 1 to its window's item and returns the new count. The ADD is
 * atomic on the server, so every dispatcher container and both queues count on the same item
 * with no read and no conditional retry; the first write of a second creates the item, with
 * its expiry.
 */

import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateCounter } from '../../core/ports';
import { documentClient } from './client';
import { RATE_WINDOWS_TABLE } from './tables';

export interface DynamoRateWindowsOptions {
  tableName: string;
  client?: DynamoDBDocumentClient;
}

/** The item key of one window: `<connectionId>#<epoch second>#<shard>`. */
export function windowKey(connectionId: string, second: number, shard: number): string {
  return `${connectionId}#${second}#${shard}`;
}

export class DynamoRateWindows implements RateCounter {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoRateWindowsOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
  }

  async increment(connectionId: string, second: number, shard: number): Promise<number> {
    const out = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [RATE_WINDOWS_TABLE.partitionKey]: windowKey(connectionId, second, shard) },
        UpdateExpression: 'ADD #n :one SET #exp = if_not_exists(#exp, :exp)',
        ExpressionAttributeNames: {
          '#n': RATE_WINDOWS_TABLE.countAttribute,
          '#exp': RATE_WINDOWS_TABLE.ttlAttribute,
        },
        ExpressionAttributeValues: { ':one': 1, ':exp': second + RATE_WINDOWS_TABLE.keepSeconds },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const count = out.Attributes?.[RATE_WINDOWS_TABLE.countAttribute];
    if (typeof count !== 'number')
      throw new Error(`rate window ${windowKey(connectionId, second, shard)} returned no count`);
    return count;
  }
}
