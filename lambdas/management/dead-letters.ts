/**
 * The dead-letter queue for operators: list what is there and why, and redrive.
 *
 * The DLQ holds two kinds of message: dead letters the dispatcher wrote (`type:
 * "dead-letter"`, with a reason and, for deliveries, the delivery itself), and original
 * messages SQS moved there after `maxReceiveCount` failed receives (infrastructure errors).
 * A redriven delivery starts a fresh chain of 4 attempts with the same delivery id and body,
 * its attempt numbers continuing from the last one; a moved original is sent back as it was.
 *
 * One DLQ serves both queues (docs/design.md §3), and a redrive returns each message to the queue
 * it belongs to: a dead letter's delivery to the retry queue; a moved original to the queue
 * SQS took it from (its `DeadLetterQueueSourceArn`), or, where that attribute is missing (the
 * local emulator), by its type: events to the ingress queue, everything else to the retry
 * queue. Poison is never redriven, nor a delivery whose connection no longer exists: each message
 * left behind says why. `delete` clears messages for good (SQS DeleteMessage on their receipts).
 */

import { MAX_ATTEMPT } from '../core/constants';
import type { DeadLetter, DeadLetterReason, DeliveryMessage } from '../core/types';
import { queueJson } from '../core/untrusted';
import type { DlqMessage, DlqMessages } from './ports';

/** What a redrive needs of the connections: whether a delivery's still exists. */
export interface ConnectionLookup {
  get(connectionId: string): Promise<unknown | undefined>;
}

/** How long listed messages stay hidden while the listing reads the rest of the queue. */
const LIST_VISIBILITY_S = 30;
const REDRIVE_VISIBILITY_S = 120;

export interface DeadLetterEntry {
  messageId: string;
  /** `dead-letter` written by the dispatcher, or `original`: a message SQS moved after repeated failures. */
  kind: 'dead-letter' | 'original';
  reason: DeadLetterReason | 'max_receives';
  error?: string;
  failedAt?: string;
  deliveryId?: string;
  connectionId?: string;
  eventId?: string;
  attempt?: number;
  /** False for poison messages, which would only fail again. */
  redrivable: boolean;
  /** Why it is not redrivable, for an operator (absent when it is). */
  why?: string;
  /** The queue a redrive sends it to (absent when not redrivable). */
  queue?: 'ingress' | 'retry';
  sentAt?: string;
}

/** A message a redrive left in the DLQ, and why. */
export type SkippedEntry = DeadLetterEntry & { why: string };

export interface RedriveResult {
  redriven: DeadLetterEntry[];
  /** Left in the DLQ, each with why: malformed, past its last attempt, its connection gone, or the send failed. */
  skipped: SkippedEntry[];
  /** Delivery ids asked for that were not found in the DLQ. */
  notFound: string[];
}

export interface DeleteResult {
  deleted: DeadLetterEntry[];
  /** Message or delivery ids asked for that were not found in the DLQ. */
  notFound: string[];
}

/** The queue a moved original came from: as the queue says, else by its type. */
function originalQueue(message: DlqMessage, type: unknown): 'ingress' | 'retry' {
  if (message.movedFrom) return message.movedFrom;
  return type === 'delivery' || type === 'attempt-log' ? 'retry' : 'ingress';
}

/** A DLQ message read once: what it is, and the message that sends it round again, if any. */
interface ReadDeadLetter {
  entry: DeadLetterEntry;
  /** Absent when it is not redrivable (poison, or past the last attempt): it stays in the DLQ. */
  redriveBody?: string;
}

function read(message: DlqMessage): ReadDeadLetter {
  const body = message.body;
  const base = {
    messageId: message.id,
    sentAt: message.sentAtMs !== undefined ? new Date(message.sentAtMs).toISOString() : undefined,
  };
  let parsed: Partial<DeadLetter> & Record<string, unknown>;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Sent back, it would only be dead-lettered again as invalid_message.
    const entry: DeadLetterEntry = {
      ...base,
      kind: 'original',
      reason: 'max_receives',
      error: 'body is not JSON',
      redrivable: false,
      why: 'malformed body (not JSON): it would only be dead-lettered again; delete it',
    };
    return { entry };
  }
  if (parsed?.type === 'dead-letter') {
    const d = parsed.delivery;
    // Attempt numbers are bounded (core/constants.ts): past the last, a delivery stays here.
    const next = d ? d.attempt + 1 : undefined;
    const redrivable = d !== undefined && next! <= MAX_ATTEMPT;
    const entry: DeadLetterEntry = {
      ...base,
      kind: 'dead-letter',
      reason: parsed.reason as DeadLetterReason,
      error: parsed.error,
      failedAt: parsed.failedAt,
      deliveryId: d?.deliveryId,
      connectionId: d?.connectionId,
      eventId: d?.eventId,
      attempt: d?.attempt,
      redrivable,
      ...(redrivable ? { queue: 'retry' as const } : { why: unredrivable(parsed.reason, d) }),
    };
    if (!redrivable) return { entry };
    // A new chain, due now: the time its last retry was due is not carried.
    const { dueAt: _due, ...rest } = d;
    const delivery: DeliveryMessage = { ...rest, attempt: next!, chainStart: next! };
    return { entry, redriveBody: queueJson(delivery) };
  }
  const entry: DeadLetterEntry = {
    ...base,
    kind: 'original',
    reason: 'max_receives',
    error: 'moved by SQS after repeated failed receives (see the dispatcher logs)',
    deliveryId: typeof parsed.deliveryId === 'string' ? parsed.deliveryId : undefined,
    connectionId: typeof parsed.connectionId === 'string' ? parsed.connectionId : undefined,
    eventId: typeof parsed.eventId === 'string' ? parsed.eventId : undefined,
    attempt: typeof parsed.attempt === 'number' ? parsed.attempt : undefined,
    redrivable: true,
    queue: originalQueue(message, parsed?.type),
  };
  return { entry, redriveBody: body };
}

/** Why a dispatcher's dead letter stays: poison (no delivery in it), or no attempt number left. */
function unredrivable(reason: unknown, delivery: DeliveryMessage | undefined): string {
  if (!delivery)
    return `malformed message (${String(reason)}): it would only fail the same check again; delete it`;
  return `delivery ${delivery.deliveryId} has used all ${MAX_ATTEMPT} attempt numbers`;
}

/** A message matches an id given by the operator: its message id, or its delivery's id. */
const matchesId = (entry: DeadLetterEntry, ids: ReadonlySet<string>) =>
  ids.has(entry.messageId) || (entry.deliveryId !== undefined && ids.has(entry.deliveryId));

export class DeadLetterQueue {
  /** `connections`: checked before a delivery is sent back (absent: not checked). */
  constructor(
    private readonly messages: DlqMessages,
    private readonly connections?: ConnectionLookup,
  ) {}

  /** Receives every message (hidden for a while), hands each to `visit`, then makes the untouched ones visible again. */
  private async sweep(
    visibility: number,
    max: number,
    visit: (message: DlqMessage) => Promise<'keep' | 'consumed'>,
  ): Promise<void> {
    const keep: DlqMessage[] = [];
    let seen = 0;
    try {
      while (seen < max) {
        const messages = await this.messages.receive(visibility);
        if (messages.length === 0) break;
        for (const message of messages) {
          seen++;
          if ((await visit(message)) === 'keep') keep.push(message);
        }
      }
    } finally {
      await this.messages.release(keep);
    }
  }

  /** Lists what is in the DLQ, oldest first (reading up to `max` messages). */
  async list(options: { max?: number } = {}): Promise<DeadLetterEntry[]> {
    const entries: DeadLetterEntry[] = [];
    await this.sweep(LIST_VISIBILITY_S, options.max ?? 1_000, async (message) => {
      entries.push(read(message).entry);
      return 'keep';
    });
    return entries.sort((a, b) => (a.sentAt ?? '').localeCompare(b.sentAt ?? ''));
  }

  /**
   * Sends dead letters back to the queue each belongs to (see the top of this file): the
   * given delivery ids, or all. Each is deleted from the DLQ only after it is safely sent.
   */
  async redrive(options: {
    deliveryIds?: string[];
    all?: boolean;
    max?: number;
    onProgress?: (done: number, entry: DeadLetterEntry) => void;
  }): Promise<RedriveResult> {
    const wanted = new Set(options.deliveryIds ?? []);
    if (!options.all && wanted.size === 0) throw new RangeError('redrive needs delivery ids or all: true');
    const result: RedriveResult = { redriven: [], skipped: [], notFound: [] };
    const found = new Set<string>();
    const gone = this.goneConnections();
    await this.sweep(REDRIVE_VISIBILITY_S, options.max ?? 100_000, async (message) => {
      const { entry, redriveBody: body } = read(message);
      const matches = options.all || (entry.deliveryId !== undefined && wanted.has(entry.deliveryId));
      if (!matches) return 'keep';
      if (entry.deliveryId) found.add(entry.deliveryId);
      const why =
        body === undefined || !entry.queue
          ? (entry.why ?? 'not redrivable')
          : await gone(entry.queue === 'retry' ? entry.connectionId : undefined);
      if (why !== undefined) {
        result.skipped.push({ ...entry, why });
        return 'keep';
      }
      try {
        await this.messages.send(entry.queue!, body!);
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        result.skipped.push({ ...entry, why: `could not be sent back to the ${entry.queue} queue: ${text}` });
        return 'keep';
      }
      await this.messages.delete(message);
      result.redriven.push(entry);
      options.onProgress?.(result.redriven.length, entry);
      return 'consumed';
    });
    result.notFound = [...wanted].filter((id) => !found.has(id));
    return result;
  }

  /**
   * Deletes messages for good: the given message or delivery ids, or all. What is deleted is
   * gone (SQS DeleteMessage on each receipt): its delivery is never attempted again.
   */
  async delete(options: { ids?: string[]; all?: boolean; max?: number }): Promise<DeleteResult> {
    const wanted = new Set(options.ids ?? []);
    if (!options.all && wanted.size === 0)
      throw new RangeError('delete needs message or delivery ids or all: true');
    const result: DeleteResult = { deleted: [], notFound: [] };
    const found = new Set<string>();
    await this.sweep(REDRIVE_VISIBILITY_S, options.max ?? 100_000, async (message) => {
      const { entry } = read(message);
      if (!options.all && !matchesId(entry, wanted)) return 'keep';
      for (const id of [entry.messageId, entry.deliveryId]) if (id && wanted.has(id)) found.add(id);
      await this.messages.delete(message);
      result.deleted.push(entry);
      return 'consumed';
    });
    result.notFound = [...wanted].filter((id) => !found.has(id));
    return result;
  }

  /** Why a delivery to this connection cannot go back (it no longer exists), read once per connection. */
  private goneConnections(): (connectionId: string | undefined) => Promise<string | undefined> {
    const seen = new Map<string, Promise<string | undefined>>();
    return (connectionId) => {
      if (!connectionId || !this.connections) return Promise.resolve(undefined);
      let why = seen.get(connectionId);
      if (!why) {
        why = this.connections
          .get(connectionId)
          .then((c) =>
            c === undefined
              ? `unknown connection: ${connectionId} no longer exists, so it would only be dead-lettered again; delete it`
              : undefined,
          );
        seen.set(connectionId, why);
      }
      return why;
    };
  }
}
