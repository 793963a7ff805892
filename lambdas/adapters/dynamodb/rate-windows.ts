/**
 * The rate-limit windows on DynamoDB (docs/design.md §4 "Rate limits"): each send of a rate-limited
 * connection is one UpdateItem that adds 1 to its window's item and returns the new count. The ADD
 * is atomic on the server, so every dispatcher container and both queues count on the same item
 * with no read and no conditional retry; the first write of a second creates the item, with its
 * expiry. The management API reads a connection's last minute back (BatchGetItem), which costs the
 * dispatcher nothing.
 */

/** Keys BatchGetItem takes at once. */
const BATCH_GET_KEYS = 100;
/** Rounds of keys DynamoDB left unprocessed (throttled) before the read gives up by name. */
const UNPROCESSED_ROUNDS = 5;

import { BatchGetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateCounter, RateWindowCount, RateWindowReader } from '../../core/ports';
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

export class DynamoRateWindows implements RateCounter, RateWindowReader {
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

  async read(
    connectionId: string,
    windows: ReadonlyArray<{ second: number; shard: number }>,
  ): Promise<RateWindowCount[]> {
    const { partitionKey, countAttribute } = RATE_WINDOWS_TABLE;
    const byKey = new Map(windows.map((w) => [windowKey(connectionId, w.second, w.shard), w]));
    const keys = [...byKey.keys()];
    const chunks = Array.from({ length: Math.ceil(keys.length / BATCH_GET_KEYS) }, (_, i) =>
      keys.slice(i * BATCH_GET_KEYS, (i + 1) * BATCH_GET_KEYS),
    );
    const found: RateWindowCount[] = [];
    await Promise.all(
      chunks.map(async (chunk) => {
        let pending: Array<Record<string, unknown>> = chunk.map((k) => ({ [partitionKey]: k }));
        for (let round = 0; pending.length > 0; round++) {
          if (round === UNPROCESSED_ROUNDS)
            throw new Error(
              `rate windows of ${connectionId}: ${pending.length} keys left unread (throttled)`,
            );
          if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
          const out = await this.client.send(
            new BatchGetCommand({
              RequestItems: {
                [this.tableName]: {
                  Keys: pending,
                  ProjectionExpression: '#k, #n',
                  ExpressionAttributeNames: { '#k': partitionKey, '#n': countAttribute },
                },
              },
            }),
          );
          for (const item of out.Responses?.[this.tableName] ?? []) {
            const window = byKey.get(String(item[partitionKey]));
            const sends = item[countAttribute];
            if (window && typeof sends === 'number') found.push({ ...window, sends });
          }
          pending = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
        }
      }),
    );
    return found.sort((a, b) => a.second - b.second || a.shard - b.shard);
  }
}
