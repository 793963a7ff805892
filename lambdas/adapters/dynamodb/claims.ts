/**
 * The claims of events' deliveries on DynamoDB (core/claims.ts; item layout in tables.ts
 * DELIVERY_CLAIMS, in the rate-windows table). A claim is one conditional UpdateItem: it takes the
 * item when there is none or when the send holding it has outlived its lease, keeping the time
 * first written; when the condition fails, the item that holds the key (returned by the failed
 * write itself, no read) says whether the delivery is settled or in flight. Settling is one more
 * UpdateItem, or, with a write buffer, a put of the settled item at the batch end. Both are writes
 * the dispatcher already may make on this table.
 */

import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryClaims } from '../../core/ports';
import type { Claim, ClaimKey } from '../../core/types';
import type { StoredValue } from './attempt-item';
import { documentClient, isConditionFailed } from './client';
import { DELIVERY_CLAIMS, RATE_WINDOWS_TABLE } from './tables';
import type { WriteBuffer } from './write-buffer';

const PK = RATE_WINDOWS_TABLE.partitionKey;
const NAMES = {
  '#k': PK,
  '#st': DELIVERY_CLAIMS.stateAttribute,
  '#lease': DELIVERY_CLAIMS.leaseAttribute,
  '#t': DELIVERY_CLAIMS.timeAttribute,
  '#exp': RATE_WINDOWS_TABLE.ttlAttribute,
};

type At = Parameters<DeliveryClaims['claim']>[1];
/** A claim item as read back: what deciding needs of it. */
type Held = { state: string; timeMs?: number; expiresAtS?: number };
/** What one conditional write did: took the claim (with its time), or found `held` (none: gone since). */
type Take = { taken: true; timeMs: number; expiresAtS?: number } | { taken: false; held?: Held };
/** Writes one claim tries at most: a claim item replaced or deleted under it each time is a bug. */
const MAX_TRIES = 3;

export interface DynamoClaimsOptions {
  /** The rate-windows table (stack output RateWindowsTableName). */
  tableName: string;
  client?: DynamoDBDocumentClient;
  /** Settlements wait here for the batch end, one put each (write-buffer.ts). Absent: written at once. */
  buffer?: WriteBuffer;
}

/** The item key of one delivery's claim. */
export function claimKey(key: ClaimKey): string {
  return `${DELIVERY_CLAIMS.keyPrefix}${key.applicationId}#${key.eventId}#${key.connectionId}`;
}

export class DynamoClaims implements DeliveryClaims {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly buffer?: WriteBuffer;

  constructor(options: DynamoClaimsOptions) {
    this.client = options.client ?? documentClient();
    this.tableName = options.tableName;
    this.buffer = options.buffer;
  }

  async claim(key: ClaimKey, at: At, tries = 1): Promise<Claim> {
    const first = await this.take(key, at);
    if (first.taken)
      return { kind: 'claimed', timeMs: first.timeMs, expiresAtS: first.expiresAtS ?? at.expiresAtS };
    const held = first.held;
    // An item TTL has not yet deleted is no claim: replaced, on the condition it is still that item.
    const dead = held?.expiresAtS !== undefined && held.expiresAtS * 1000 <= at.nowMs;
    if (held && !dead) {
      return { kind: held.state === 'settled' ? 'settled' : 'busy', timeMs: held.timeMs ?? at.timeMs };
    }
    if (held && (await this.take(key, at, held.expiresAtS)).taken)
      return { kind: 'claimed', timeMs: at.timeMs, expiresAtS: at.expiresAtS };
    // Deleted or replaced under this write: once more, as a new write would be.
    if (tries >= MAX_TRIES) throw new Error(`claim ${claimKey(key)} changed under ${tries} writes in a row`);
    return this.claim(key, at, tries + 1);
  }

  /**
   * One conditional write of a claim: taken when no item holds it or its send's lease ran out (the
   * time first written kept); with `replaces`, the expiry of a dead item this write overwrites,
   * time included.
   */
  private async take(key: ClaimKey, at: At, replaces?: number): Promise<Take> {
    const fresh = replaces !== undefined;
    const { '#k': _, ...names } = NAMES;
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: claimKey(key) },
          UpdateExpression: fresh
            ? 'SET #st = :sending, #lease = :lease, #t = :t, #exp = :exp'
            : 'SET #st = :sending, #lease = :lease, #t = if_not_exists(#t, :t), #exp = if_not_exists(#exp, :exp)',
          ConditionExpression: fresh
            ? '#exp = :old'
            : 'attribute_not_exists(#k) OR (#st = :sending AND #lease < :now)',
          ExpressionAttributeNames: fresh ? names : NAMES,
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':lease': at.leaseUntilMs,
            ':t': at.timeMs,
            ':exp': at.expiresAtS,
            ...(fresh ? { ':old': replaces } : { ':now': at.nowMs }),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const expires = out.Attributes?.[RATE_WINDOWS_TABLE.ttlAttribute];
      return {
        taken: true,
        timeMs: Number(out.Attributes?.[DELIVERY_CLAIMS.timeAttribute]),
        ...(typeof expires === 'number' ? { expiresAtS: expires } : {}),
      };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const old = (error as { Item?: Record<string, StoredValue> }).Item;
      const held = old ? heldOf(old) : await this.read(key);
      return held ? { taken: false, held } : { taken: false };
    }
  }

  /**
   * The claim item. Only for a store that does not return the old item with a failed condition
   * (the local emulator); DynamoDB does, so the stack grants no read.
   */
  private async read(key: ClaimKey): Promise<Held | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [PK]: claimKey(key) }, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const number = (name: string) => (typeof Item[name] === 'number' ? (Item[name] as number) : undefined);
    return {
      state: String(Item[DELIVERY_CLAIMS.stateAttribute]),
      timeMs: number(DELIVERY_CLAIMS.timeAttribute),
      expiresAtS: number(RATE_WINDOWS_TABLE.ttlAttribute),
    };
  }

  async settle(key: ClaimKey, claim?: Claim): Promise<void> {
    if (this.buffer && claim?.expiresAtS !== undefined) {
      // The whole item, as the claim left it but settled: a put needs no condition, so it can wait
      // for the batch end. Its time and expiry are the claim's; its lease no longer matters.
      const k = claimKey(key);
      this.buffer.put(this.tableName, k, {
        [PK]: k,
        [DELIVERY_CLAIMS.stateAttribute]: 'settled',
        [DELIVERY_CLAIMS.timeAttribute]: claim.timeMs,
        [RATE_WINDOWS_TABLE.ttlAttribute]: claim.expiresAtS,
      });
      return;
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: claimKey(key) },
          UpdateExpression: 'SET #st = :settled',
          // Never creates a claim: one already gone (expired) stays gone.
          ConditionExpression: 'attribute_exists(#k)',
          ExpressionAttributeNames: { '#k': PK, '#st': DELIVERY_CLAIMS.stateAttribute },
          ExpressionAttributeValues: { ':settled': 'settled' },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
}

/** A claim item as a failed condition returns it (not unmarshalled by the document client). */
function heldOf(old: Record<string, StoredValue>): Held {
  const number = (value: StoredValue | undefined) => (value?.N === undefined ? undefined : Number(value.N));
  return {
    state: old[DELIVERY_CLAIMS.stateAttribute]?.S ?? '',
    timeMs: number(old[DELIVERY_CLAIMS.timeAttribute]),
    expiresAtS: number(old[RATE_WINDOWS_TABLE.ttlAttribute]),
  };
}
