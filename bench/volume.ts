/**
 * (5) Write and log volume per delivery: every attempt of a delivery played through the real
 * core and Powertools log (INFO, and DEBUG) with canned receiver answers, its items sized by
 * DynamoDB's rules (a unit per started KB; each record's `byAttemptTime` entry, its projection;
 * a final failure's `finalFailures` entry as large as the item). An exhausted delivery is parked
 * for real on dynalite (DynamoParked), its item and `byApplication` entry sized the same way.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  attemptItem,
  fitRecord,
  itemSize,
  WRITE_UNIT_BYTES,
} from '../lambdas/adapters/dynamodb/attempt-item';
import { documentClient } from '../lambdas/adapters/dynamodb/client';
import { DynamoParked } from '../lambdas/adapters/dynamodb/parked';
import { ATTEMPTS_TABLE, PARKED_TABLE } from '../lambdas/adapters/dynamodb/tables';
import { createDispatcher } from '../lambdas/core/dispatch';
import type { ParkedItem } from '../lambdas/core/parking';
import type { InputRecord } from '../lambdas/core/ports';
import type { AttemptRecord, AttemptResult, DeliveryMessage } from '../lambdas/core/types';
import { localClientConfig } from '../local/bootstrap';
import { capturedPowertoolsLog } from '../test/support/captured-log';
import { startLocalAws } from '../test/support/emulators';
import { connectionFor, eventRecords, HEADER_PREFIX } from '../test/support/fixtures';
import { memoryPorts } from '../test/support/memory';
import { ERROR_PAGE } from '../test/support/receiver-pages';
import { ATTEMPT_TIMEOUT_MS, BATCH_SIZE } from './support/constants';

/** A production-looking receiver URL: the item stores its origin and path. */
export const RECEIVER_URL = 'https://api.example-crm.com/webhooks/v1/user-identified';

export type DeliveryKind =
  | 'delivered'
  | 'delivered-large-response'
  | 'failing'
  | 'failing-large-response'
  | 'hanging';

const RESULTS: Record<DeliveryKind, AttemptResult> = {
  delivered: { kind: 'response', status: 200, snippet: '{"received":true}', durationMs: 87 },
  'delivered-large-response': { kind: 'response', status: 200, snippet: 'x'.repeat(1024), durationMs: 87 },
  failing: { kind: 'response', status: 503, snippet: ERROR_PAGE, durationMs: 41 },
  'failing-large-response': { kind: 'response', status: 500, snippet: 'e'.repeat(1024), durationMs: 41 },
  hanging: {
    kind: 'timeout',
    durationMs: ATTEMPT_TIMEOUT_MS,
    error: `no complete response within ${ATTEMPT_TIMEOUT_MS} ms`,
  },
};

export interface DeliveryVolume {
  attempts: number;
  /** Bytes of each attempt's item, as DynamoDB counts them. */
  itemBytes: number[];
  /** Write units of the items and their index entries. */
  writeUnits: number;
  indexWriteUnits: number;
  /** Bytes of each index entry: every record's by-time entry, a final failure's too. */
  indexEntryBytes: number[];
  /** Bytes the dispatcher logged for the whole delivery at INFO. */
  logBytes: number;
  logLines: number;
  /** Bytes logged at DEBUG, which adds one line per delivered attempt. */
  logBytesAtDebug: number;
  /** SQS message bodies this delivery put on the queues, bytes (retries, dead letter). */
  messageBytes: number[];
  /** What parking an exhausted delivery wrote (item and index entry sized as DynamoDB counts them). */
  parked?: ParkedVolume;
}

export interface ParkedVolume {
  itemBytes: number;
  /** Its entry in the `byApplication` index (table and index keys, projected listing fields). */
  indexBytes: number;
  /** Item plus index entry; included in {@link DeliveryVolume.writeUnits}. */
  writeUnits: number;
}

export interface VolumeFigures {
  receiverUrl: string;
  /** Bytes of the published event message (what upstream sends). */
  eventMessageBytes: number;
  deliveries: Record<DeliveryKind, DeliveryVolume>;
  /** The line Powertools writes for one delivered attempt at DEBUG (none at INFO), for the docs. */
  successLine: string;
}

const writeUnits = (bytes: number) => Math.ceil(bytes / WRITE_UNIT_BYTES);
type Keys = { partitionKey: string; sortKey: string };
const entryOf = (t: Keys, i: Keys & { projected: readonly string[] }) =>
  new Set<string>([t.partitionKey, t.sortKey, i.partitionKey, i.sortKey, ...i.projected]);
/** Attribute names an index entry carries: a parked item's `byApplication` one, a record's by-time one. */
const PARKED_INDEX_ATTRIBUTES = entryOf(PARKED_TABLE, PARKED_TABLE.byApplicationIndex);
const BY_TIME_ATTRIBUTES = entryOf(ATTEMPTS_TABLE, ATTEMPTS_TABLE.byTimeIndex);
const projected = (item: object, names: ReadonlySet<string>) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name)));

/** The stored parked item, read back from the table, and its index entry, sized. */
async function parkedVolume(store: DynamoParked, item: ParkedItem): Promise<ParkedVolume> {
  const stored = await store.get(item.connectionId, item.deliveryId);
  if (!stored) throw new Error('volume: the parked item is not in the parked table');
  const itemBytes = itemSize(stored);
  const indexBytes = itemSize(projected(stored, PARKED_INDEX_ATTRIBUTES));
  return { itemBytes, indexBytes, writeUnits: writeUnits(itemBytes) + writeUnits(indexBytes) };
}

async function playDelivery(kind: DeliveryKind, level: 'INFO' | 'DEBUG', parkedStore?: DynamoParked) {
  const app = 'app_01JD3XQ4Z8K2M5N7P9R1S3T5V7';
  const connection = connectionFor(RECEIVER_URL, app);
  const capture = capturedPowertoolsLog(level);
  const ports = memoryPorts([connection], {
    sender: { send: async () => RESULTS[kind] },
    log: capture.log,
    clock: { now: () => Date.now() },
  });
  // Parked on dynalite too, so the cost model counts what parking writes.
  if (parkedStore) {
    ports.deps.parked = {
      park: async (item) => {
        await ports.parked.park(item);
        await parkedStore.park(item);
      },
    };
  }
  const dispatcher = createDispatcher(ports.deps, {
    headerPrefix: HEADER_PREFIX,
    attemptTtlDays: 30,
    // Bodies of deliveries that failed a first attempt are in these figures; the cost model
    // adds those of deliveries delivered at once when a profile keeps them all (bench/all-in.ts).
    keepBodies: 'failures',
    concurrency: BATCH_SIZE,
    egress: { allowLoopback: false, allowedPorts: [443] },
  });
  const invocation = { remainingMs: () => 60_000 };
  const [event] = eventRecords(app, 1) as [InputRecord];
  const messages: string[] = [];
  capture.start();
  try {
    let next: InputRecord | undefined = event;
    while (next) {
      const { failures } = await dispatcher.processBatch([next], invocation);
      if (failures.length > 0) throw new Error(`volume: ${kind} record failed`);
      const retry: { delivery: DeliveryMessage } | undefined = ports.state.scheduled.shift();
      // Retries come from the retry queue: on the ingress queue a delivery message is poison.
      next = retry && {
        messageId: `retry-${retry.delivery.attempt}`,
        body: JSON.stringify(retry.delivery),
        source: 'retry',
      };
      if (next) messages.push(next.body);
    }
  } finally {
    capture.stop();
  }
  for (const letter of ports.state.deadLetters) messages.push(JSON.stringify(letter));
  const [parkedItem] = ports.state.parked;
  const parked = parkedStore && parkedItem ? await parkedVolume(parkedStore, parkedItem) : undefined;
  return {
    records: ports.state.records,
    lines: capture.lines,
    bytes: capture.bytes,
    messages,
    event: event.body,
    parked,
  };
}

function volumeOf(records: AttemptRecord[]) {
  // The items DynamoAttempts writes: a success trimmed to one write unit.
  const items = records.map((r) => attemptItem(fitRecord(r)));
  const itemBytes = items.map(itemSize);
  const last = records.at(-1)!;
  const failure = last.final && last.outcome !== 'delivered' ? [itemBytes.at(-1)!] : [];
  const indexEntryBytes = [...items.map((item) => itemSize(projected(item, BY_TIME_ATTRIBUTES))), ...failure];
  const units = (bytes: number[]) => bytes.reduce((sum, b) => sum + writeUnits(b), 0);
  const writes = { writeUnits: units(itemBytes), indexWriteUnits: units(indexEntryBytes) };
  return { itemBytes, indexEntryBytes, ...writes };
}

export async function measureVolume(): Promise<VolumeFigures> {
  const aws = await startLocalAws();
  const dynamodb = new DynamoDBClient(localClientConfig(aws.endpoints.dynamodb, aws.region));
  const parkedStore = new DynamoParked({
    tableName: aws.resources.parkedTable,
    client: documentClient(dynamodb),
  });
  try {
    const deliveries = {} as Record<DeliveryKind, DeliveryVolume>;
    let successLine = '';
    let eventMessageBytes = 0;
    for (const kind of Object.keys(RESULTS) as DeliveryKind[]) {
      const info = await playDelivery(kind, 'INFO', parkedStore);
      const debug = await playDelivery(kind, 'DEBUG');
      const v = volumeOf(info.records);
      deliveries[kind] = {
        attempts: info.records.length,
        itemBytes: v.itemBytes,
        writeUnits: v.writeUnits + v.indexWriteUnits + (info.parked?.writeUnits ?? 0),
        indexWriteUnits: v.indexWriteUnits,
        indexEntryBytes: v.indexEntryBytes,
        logBytes: info.bytes,
        logLines: info.lines.length,
        logBytesAtDebug: debug.bytes,
        messageBytes: info.messages.map((m) => Buffer.byteLength(m, 'utf8')),
        ...(info.parked ? { parked: info.parked } : {}),
      };
      if (kind === 'delivered') {
        successLine = debug.lines.join('').trim();
        eventMessageBytes = Buffer.byteLength(info.event, 'utf8');
      }
    }
    return { receiverUrl: RECEIVER_URL, eventMessageBytes, deliveries, successLine };
  } finally {
    dynamodb.destroy();
    await aws.stop();
  }
}
