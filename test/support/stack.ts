/**
 * One reliability scenario's pipeline: a fresh queue and DLQ on the shared local services,
 * optional fault proxies in front of each service (for the dispatcher's clients only; the
 * harness's own bookkeeping talks to the services directly), a fleet of ledger receivers,
 * real connections made with the management API, the dispatcher under test (in this
 * process or in a child that can be SIGKILLed), and the ledger once the queue has drained.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { type Message, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { deliveryIdFor } from '../../lambdas/core/ids';
import type { AttemptRecord, Connection, EventMessage } from '../../lambdas/core/types';
import { NotFoundError, WebhookManagement } from '../../lambdas/management';
import { WebhookPublisher } from '../../lambdas/publisher';
import { type LocalResources, localClientConfig } from '../../local/bootstrap';
import type { LocalPki } from '../../local/tls';
import { type ReadyChild, spawnReady } from './child';
import { type BatchStats, CountingLog, type DispatcherSpec, startDispatcher } from './dispatcher';
import type { DispatcherStatsLine } from './dispatcher-process';
import { createQueues, type ServicesInfo } from './emulators';
import { type FaultProxy, startFaultProxy } from './fault-proxy';
import { userIdentified } from './fixtures';
import {
  computeLedger,
  type DlqMessage,
  type FaultWindow,
  type Ledger,
  type ParkedEntry,
  type PublishedEvent,
  type PublishedPoison,
} from './ledger';
import { MetricTotals, metricProblems, resentCopies } from './metric-totals';
import { testPki } from './pki';
import { attemptsOf, messagesLeft } from './queries';
import { type FleetBehaviour, type FleetReceiver, ReceiverFleet, type ReceiverOptions } from './receivers';
import { RecordTrail } from './record-trail';

export interface StackOptions {
  readonly services: ServicesInfo;
  /** Part of the queue names, for reading the emulators' state by eye. */
  readonly label?: string;
  readonly visibilityTimeoutSeconds: number;
  /** @default 5 */
  readonly maxReceiveCount?: number;
  readonly attemptTimeoutMs: number;
  readonly functionTimeoutMs: number;
  /** @default 10 */
  readonly batchConcurrency?: number;
  /** @default 2 */
  readonly runnerConcurrency?: number;
  /** @default 0 (every record reads the connection: faults in DynamoDB bite at once) */
  readonly connectionCacheTtlMs?: number;
  /** Health thresholds of the dispatcher (docs/design.md §9). @default 3 and never */
  readonly failingAfter?: number;
  readonly disableAfter?: number;
  /** WEBHOOKS_RECOVERY_PROBES, seconds-long. @default off (test/support/dispatcher.ts) */
  readonly recoveryProbes?: string;
  /** @default 2 */
  readonly sdkMaxAttempts?: number;
  /** Further dispatcher settings by their environment names (test/support/dispatcher.ts). */
  readonly settings?: Readonly<Record<string, string>>;
  /** Put a fault proxy in front of each service, for the dispatcher's clients. */
  readonly proxies?: boolean;
  /** Run the dispatcher in a child process (so it can be SIGKILLed). */
  readonly childProcess?: boolean;
  readonly pki?: LocalPki;
}

export interface Proxies {
  readonly sqs: FaultProxy;
  readonly dynamodb: FaultProxy;
  readonly secretsManager: FaultProxy;
}

export interface ConnectedReceiver {
  readonly connection: Connection;
  readonly receiver: FleetReceiver;
}

/** An event to publish, built by {@link buildEvent}. */
export interface BuiltEvent {
  readonly message: EventMessage;
  readonly expected: Omit<PublishedEvent, 'publishedAt'>;
}

const DLQ_READ_VISIBILITY_S = 900;
const POLL_MS = 250;

export interface Stack {
  readonly resources: LocalResources;
  readonly proxies: Proxies | undefined;
  readonly fleet: ReceiverFleet;
  readonly management: WebhookManagement;
  readonly events: PublishedEvent[];
  readonly poison: PublishedPoison[];
  readonly windows: FaultWindow[];
  /** In-process dispatcher's log (counts by message, last warnings). */
  readonly log: CountingLog;
  addReceiver(behaviour: FleetBehaviour, options?: ReceiverOptions): Promise<FleetReceiver>;
  /** Creates a connection of `applicationId` pointing at `receiver`, and binds the receiver to it. */
  connect(receiver: FleetReceiver, applicationId: string): Promise<ConnectedReceiver>;
  /** Publishes `count` events of `applicationId` with the real publisher, 10 per SendMessageBatch. */
  publishEvents(
    count: number,
    options: { applicationId: string; connections: readonly string[]; concurrency?: number },
  ): Promise<PublishedEvent[]>;
  /** Publishes raw message texts in one SendMessageBatch (≤ 10), so they are batch-mates. */
  publishRaw(
    entries: ReadonlyArray<{ text: string; poison?: Omit<PublishedPoison, 'text'>; event?: BuiltEvent }>,
  ): Promise<void>;
  startDispatcher(): Promise<void>;
  /** Graceful stop (batches in flight finish). */
  stopDispatcher(): Promise<void>;
  /** SIGKILL (child process only): batches in flight are abandoned mid-way. */
  killDispatcher(): Promise<void>;
  readonly dispatcherRunning: boolean;
  /** Batch outcomes so far (all dispatcher processes together). */
  batchStats(): BatchStats;
  /** Resolves once the queue has held no message (visible, in flight or delayed) for `quietMs`. */
  waitForDrain(options: { timeoutMs: number; quietMs?: number }): Promise<number>;
  /** Reads the DLQ and the attempt log and computes the ledger. */
  ledger(drainedAt?: number): Promise<Ledger>;
  stop(): Promise<void>;
}

/** An event of `applicationId` expected to reach `connections` (or only `targets`, listed in the message). */
export function buildEvent(
  applicationId: string,
  connections: readonly string[],
  options: { targets?: readonly string[]; eventId?: string; extra?: Record<string, unknown> } = {},
): BuiltEvent {
  const message = userIdentified(
    applicationId,
    { ...(options.targets ? { connectionIds: [...options.targets] } : {}), ...options.extra },
    { eventId: options.eventId },
  );
  const { eventId, occurredAt } = message;
  const userId = message.user.id;
  const occurredAtMs = Date.parse(occurredAt);
  return {
    message,
    expected: {
      eventId,
      userId,
      deliveries: connections.map((connectionId) => ({
        connectionId,
        deliveryId: deliveryIdFor(eventId, connectionId, occurredAtMs),
      })),
    },
  };
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const { services } = options;
  const direct = (endpoint: string) => localClientConfig(endpoint, services.region);
  const sqs = new SQSClient(direct(services.endpoints.sqs));
  // fauxqs serves SNS on its SQS endpoint: operational events the management library publishes.
  const sns = new SNSClient(direct(services.endpoints.sqs));
  const dynamodb = new DynamoDBClient(direct(services.endpoints.dynamodb));
  const secretsManager = new SecretsManagerClient(direct(services.endpoints.secretsManager));
  const doc = DynamoDBDocumentClient.from(dynamodb);
  const resources = await createQueues(services, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
    maxReceiveCount: options.maxReceiveCount,
    label: options.label,
  });
  const pki = options.pki ?? testPki();
  const fleet = new ReceiverFleet(pki);
  const proxies: Proxies | undefined = options.proxies
    ? {
        sqs: await startFaultProxy(services.endpoints.sqs, { name: 'SQS' }),
        dynamodb: await startFaultProxy(services.endpoints.dynamodb, { name: 'DynamoDB' }),
        secretsManager: await startFaultProxy(services.endpoints.secretsManager, { name: 'Secrets Manager' }),
      }
    : undefined;
  const managementFor = (allowedPorts: number[]) =>
    new WebhookManagement({
      resources: { ...resources },
      clients: { sqs, dynamodb, secretsManager, sns },
      allowLoopback: true,
      allowedPorts,
      ca: [pki.caPem],
    });
  const management = managementFor([443]);
  const publisher = new WebhookPublisher({ queueUrl: resources.queueUrl, sqsClient: sqs });
  const events: PublishedEvent[] = [];
  const poison: PublishedPoison[] = [];
  const windows: FaultWindow[] = [];
  // What the in-process dispatcher's event sources handed it, and why a record came back: the
  // ledger explains a second copy of an attempt by its record (record-trail.ts).
  const trail = new RecordTrail();
  const log = new CountingLog(500, (line) => trail.noteLog(line));
  const childStats = new Map<number, BatchStats>();
  let inProcess: ReturnType<typeof startDispatcher> | undefined;
  let child: ReadyChild<{ ready: true; pid: number }> | undefined;
  /** Metrics of in-process dispatchers already stopped. */
  const stoppedMetrics = new MetricTotals();
  /**
   * Where every child dispatcher of this stack appends its EMF documents as it writes them, so
   * what a SIGKILLed child had flushed is still counted (test/support/dispatcher.ts).
   */
  const metricsDir = mkdtempSync(join(tmpdir(), 'wh-fault-metrics-'));
  const childMetricsFile = join(metricsDir, 'emf.ndjson');
  /** SIGKILLs so far: the metrics check takes its bounds instead of equality (metric-totals.ts). */
  const killedAt: number[] = [];
  let firstPublish: number | undefined;

  const spec = (): DispatcherSpec => ({
    region: services.region,
    endpoints: proxies
      ? {
          sqs: proxies.sqs.endpoint,
          dynamodb: proxies.dynamodb.endpoint,
          secretsManager: proxies.secretsManager.endpoint,
          kms: services.endpoints.kms,
        }
      : services.endpoints,
    runnerSqsEndpoint: services.endpoints.sqs,
    resources,
    ca: [pki.caPem],
    allowedPorts: fleet.receivers.map((r) => r.port),
    attemptTimeoutMs: options.attemptTimeoutMs,
    functionTimeoutMs: options.functionTimeoutMs,
    batchConcurrency: options.batchConcurrency ?? 10,
    runnerConcurrency: options.runnerConcurrency ?? 2,
    connectionCacheTtlMs: options.connectionCacheTtlMs ?? 0,
    failingAfter: options.failingAfter,
    disableAfter: options.disableAfter,
    recoveryProbes: options.recoveryProbes,
    sdkMaxAttempts: options.sdkMaxAttempts ?? 2,
    ...(options.settings ? { settings: options.settings } : {}),
  });

  async function readDlq(): Promise<DlqMessage[]> {
    const out: DlqMessage[] = [];
    const read = async () => {
      let empty = 0;
      while (empty < 2) {
        const got = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: resources.dlqUrl,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: DLQ_READ_VISIBILITY_S,
            WaitTimeSeconds: 0,
          }),
        );
        const messages: Message[] = got.Messages ?? [];
        if (messages.length === 0) empty++;
        for (const m of messages) out.push({ body: m.Body ?? '' });
      }
    };
    await Promise.all([read(), read(), read(), read()]);
    return out;
  }

  /** The run's connections' parked deliveries (the management library's listing, all pages). */
  async function readParked(): Promise<ParkedEntry[]> {
    if (!resources.parkedTable) return [];
    const all: ParkedEntry[] = [];
    for (const connectionId of runConnections()) {
      let cursor: string | undefined;
      do {
        const page = await management
          .listParked(connectionId, { limit: 200, cursor })
          .catch((error: unknown) => {
            // A connection a scenario deleted has no parked list to read.
            if (error instanceof NotFoundError) return { data: [], nextCursor: undefined };
            throw error;
          });
        all.push(...page.data.map((d) => ({ deliveryId: d.deliveryId, reason: d.reason })));
        cursor = page.nextCursor;
      } while (cursor);
    }
    return all;
  }

  function runConnections(): string[] {
    const ids = fleet.receivers.flatMap((r) => (r.connectionId ? [r.connectionId] : []));
    const extra = new Set(events.flatMap((e) => e.deliveries.map((d) => d.connectionId)));
    return [...new Set([...ids, ...extra])];
  }

  async function readAttempts(): Promise<AttemptRecord[]> {
    const ids = fleet.receivers.flatMap((r) => (r.connectionId ? [r.connectionId] : []));
    const extra = new Set(events.flatMap((e) => e.deliveries.map((d) => d.connectionId)));
    for (const id of ids) extra.delete(id);
    const all: AttemptRecord[] = [];
    for (const connectionId of [...ids, ...extra]) {
      all.push(...(await attemptsOf(doc, resources.attemptsTable, connectionId)));
    }
    return all;
  }

  const stack: Stack = {
    resources,
    proxies,
    fleet,
    management,
    events,
    poison,
    windows,
    log,
    addReceiver: (behaviour, receiverOptions) => fleet.add(behaviour, receiverOptions),
    async connect(receiver, applicationId) {
      const connection = await managementFor([receiver.port]).connections.create({
        applicationId,
        name: `${receiver.behaviour} receiver`,
        url: receiver.url,
      });
      const { secret } = await management.connections.showSecret(connection.connectionId);
      receiver.bind(connection.connectionId, secret);
      return { connection, receiver };
    },
    async publishEvents(count, { applicationId, connections, concurrency = 4 }) {
      const published: PublishedEvent[] = [];
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const size = Math.min(10, count - next);
          next += size;
          const built = Array.from({ length: size }, () => buildEvent(applicationId, connections));
          const publishedAt = Date.now();
          firstPublish ??= publishedAt;
          const result = await publisher.publishUserIdentifiedBatch(
            built.map((b) => ({
              user: b.message.user,
              application: b.message.application,
              occurredAt: b.message.occurredAt,
              eventId: b.message.eventId,
            })),
          );
          if (result.failed.length > 0) {
            throw new Error(`publish refused ${result.failed.length} events: ${result.failed[0]!.message}`);
          }
          for (const b of built) published.push({ ...b.expected, publishedAt });
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      events.push(...published);
      return published;
    },
    async publishRaw(entries) {
      const publishedAt = Date.now();
      firstPublish ??= publishedAt;
      const out = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: resources.queueUrl,
          Entries: entries.map((e, i) => ({ Id: String(i), MessageBody: e.text })),
        }),
      );
      if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} raw messages`);
      for (const e of entries) {
        if (e.poison) poison.push({ ...e.poison, text: e.text });
        if (e.event) events.push({ ...e.event.expected, publishedAt });
      }
    },
    async startDispatcher() {
      if (inProcess || child) throw new Error('the dispatcher is already running');
      if (!options.childProcess) {
        inProcess = startDispatcher(spec(), { log, trail });
        return;
      }
      child = await spawnReady<{ ready: true; pid: number }>('test/support/dispatcher-process.ts', [], {
        env: {
          ...process.env,
          WEBHOOKS_RELIABILITY_DISPATCHER: JSON.stringify({ ...spec(), metricsFile: childMetricsFile }),
        },
      });
      const pid = child.ready.pid;
      child.onLine((line) => {
        if (!line.startsWith('{"stats"')) return;
        const parsed = JSON.parse(line) as DispatcherStatsLine;
        childStats.set(pid, parsed.stats.batches);
        for (const [k, v] of Object.entries(parsed.stats.logCounts)) {
          log.counts[`[${pid}] ${k}`] = v;
        }
      });
    },
    async stopDispatcher() {
      const running = inProcess;
      inProcess = undefined;
      await running?.stop();
      if (running) stoppedMetrics.merge(running.metrics);
      const c = child;
      child = undefined;
      await c?.stop();
    },
    async killDispatcher() {
      if (!child) throw new Error('only a dispatcher in a child process can be killed');
      const c = child;
      child = undefined;
      killedAt.push(Date.now());
      await c.kill();
    },
    get dispatcherRunning() {
      return Boolean(inProcess || child);
    },
    batchStats() {
      const total: BatchStats = { batches: 0, ok: 0, partial: 0, error: 0, timeout: 0, recordsLeft: 0 };
      for (const s of [...childStats.values(), ...(inProcess ? [inProcess.batches] : [])]) {
        for (const k of Object.keys(total) as Array<keyof BatchStats>) total[k] += s[k];
      }
      return total;
    },
    async waitForDrain({ timeoutMs, quietMs = 1_500 }) {
      const deadline = Date.now() + timeoutMs;
      let quietSince: number | undefined;
      for (;;) {
        const left = await messagesLeft(sqs, resources.queueUrl, resources.retryQueueUrl);
        const now = Date.now();
        if (left === 0) {
          quietSince ??= now;
          if (now - quietSince >= quietMs) return quietSince;
        } else {
          quietSince = undefined;
        }
        if (now > deadline) {
          throw new Error(`the queue still holds ${left} messages after ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    async ledger(drainedAt = Date.now()) {
      const [dlq, attempts, parked] = await Promise.all([readDlq(), readAttempts(), readParked()]);
      const ledger = computeLedger({
        events,
        poison,
        fleet,
        dlq,
        parked,
        attempts,
        windows,
        redelivered: trail.redelivered(),
        startedAt: firstPublish ?? Date.now(),
        drainedAt,
      });
      // The metrics every dispatcher emitted, in process or in a child (killed or stopped), must
      // agree with what happened (a metric dropped fails here).
      const totals = new MetricTotals();
      totals.merge(stoppedMetrics);
      if (inProcess) totals.merge(inProcess.metrics);
      const fromChildren = existsSync(childMetricsFile)
        ? MetricTotals.fromFile(readFileSync(childMetricsFile, 'utf8'))
        : { totals: new MetricTotals(), unreadable: [] };
      totals.merge(fromChildren.totals);
      const deliveryIds = new Set(events.flatMap((e) => e.deliveries.map((d) => d.deliveryId)));
      const problems = [
        ...metricProblems(totals, ledger, {
          attempts,
          dlq,
          deliveryIds,
          resentCopies: resentCopies(fleet.deliveries, deliveryIds),
          killed: killedAt.length > 0,
          kills: { at: killedAt, functionTimeoutMs: options.functionTimeoutMs },
        }),
        ...fromChildren.unreadable.map(
          (line) => `metrics: a child wrote a line that is not an EMF document: ${line}`,
        ),
      ];
      return { ...ledger, metrics: totals, problems: [...ledger.problems, ...problems] };
    },
    async stop() {
      await stack.stopDispatcher();
      await fleet.close();
      if (proxies) await Promise.all(Object.values(proxies).map((p: FaultProxy) => p.stop()));
      sqs.destroy();
      sns.destroy();
      doc.destroy();
      dynamodb.destroy();
      secretsManager.destroy();
      rmSync(metricsDir, { recursive: true, force: true });
    },
  };
  return stack;
}
