/**
 * The dispatcher's unconditional writes of one batch, sent together (docs/performance.md
 * "Writes after the batch"): a delivery's lookup items (delivery search) and its claim's
 * settlement go into this buffer, and the batch writes them with `BatchWriteItem`, 25 items a
 * call, before it reports its result (core/batch.ts). Per item that is a small part of a call
 * instead of a call. What a crash between a send and the flush leaves unwritten, and what that
 * means, is in docs/reliability.md "Writes after the batch".
 *
 * Only writes that need no condition come here: the attempt record and the claim itself stay
 * conditional writes of their own, made when they happen.
 */

import {
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { PendingWrites } from '../../core/ports';

/** BatchWriteItem takes at most 25 items a call. */
const PER_CALL = 25;
/** Calls made again for items DynamoDB left unprocessed (throttling), with doubling waits from 25 ms. */
const MAX_TRIES = 5;
const FIRST_WAIT_MS = 25;

type Item = Record<string, unknown>;
type Put = { table: string; key: string; item: Item };

export class WriteBuffer implements PendingWrites {
  /** Pending puts by table and key: the same key twice in a batch (a republish) is one put, the last. */
  private pending = new Map<string, Put>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Queues a put of `item`, whose key written out is `key`, until the next flush. */
  put(table: string, key: string, item: Item): void {
    this.pending.set(`${table}\u0000${key}`, { table, key, item });
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * Writes everything queued, and waits for any flush already under way (another batch's, in a
   * process that runs batches side by side), so that when it resolves every put queued before it
   * is written. Rejects naming how many items were not written; they are not tried again.
   */
  async flush(): Promise<void> {
    const puts = [...this.pending.values()];
    this.pending = new Map();
    const mine = this.write(puts);
    this.inFlight.add(mine);
    try {
      await Promise.all([...this.inFlight]);
    } finally {
      this.inFlight.delete(mine);
    }
  }

  private async write(puts: Put[]): Promise<void> {
    const calls: Promise<number>[] = [];
    for (let i = 0; i < puts.length; i += PER_CALL) calls.push(this.call(puts.slice(i, i + PER_CALL)));
    const unwritten = (await Promise.all(calls)).reduce((sum, n) => sum + n, 0);
    if (unwritten > 0)
      throw new Error(`${unwritten} of ${puts.length} writes after the batch were not written`);
  }

  /** One call's puts, the unprocessed ones again with backoff: how many were left unwritten. */
  private async call(puts: Put[]): Promise<number> {
    let requests: Record<string, { PutRequest: { Item: Item } }[]> = {};
    for (const put of puts) {
      const list = requests[put.table] ?? [];
      list.push({ PutRequest: { Item: put.item } });
      requests[put.table] = list;
    }
    for (let tries = 1; ; tries++) {
      const out: BatchWriteCommandOutput = await this.client.send(
        new BatchWriteCommand({ RequestItems: requests }),
      );
      const left = (out.UnprocessedItems ?? {}) as typeof requests;
      const count = Object.values(left).reduce((sum, list) => sum + list.length, 0);
      if (count === 0 || tries >= MAX_TRIES) return count;
      requests = left;
      await this.sleep(FIRST_WAIT_MS * 2 ** (tries - 1));
    }
  }
}
