/**
 * The dispatcher under test, wired exactly as production (lambdas/backend/dispatcher.ts)
 * and driven by the local event-source runner (Lambda's SQS semantics), with two test-only
 * differences: its SDK clients may point at fault proxies, and its log counts lines instead
 * of printing 300 000 of them. Runs in the test's process (pipeline.ts, stack.ts) or in a child
 * (dispatcher-process.ts) that the kill scenario SIGKILLs.
 */
import { appendFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSHandler } from 'aws-lambda';
import { lightDocumentClient } from '../../lambdas/adapters/dynamodb/light-client';
import { type EmfDocument, EmfMetrics } from '../../lambdas/adapters/metrics/emf';
import { type Wired, wireDispatcher } from '../../lambdas/backend';
import { ENV, loadConfig } from '../../lambdas/config';
import type { Clock, Log } from '../../lambdas/core/ports';
import { createHandler } from '../../lambdas/dispatcher/handler';
import { type LocalResources, localClientConfig, localQueueUrl } from '../../local/bootstrap';
import type { LocalEndpoints } from '../../local/emulators';
import { type BatchReport, type Runner, startEventSources } from '../../local/runner';
import { MetricTotals } from './metric-totals';
import type { RecordTrail } from './record-trail';

export interface DispatcherSpec {
  readonly region: string;
  /** What the dispatcher's own SDK clients call: the emulators, or fault proxies in front of them. */
  readonly endpoints: LocalEndpoints;
  /**
   * Where the dispatcher's SNS client publishes operational events.
   * @default endpoints.sqs (fauxqs serves SNS on its SQS endpoint)
   */
  readonly snsEndpoint?: string;
  /** What the event-source runner calls (it plays AWS's poller, not the function). */
  readonly runnerSqsEndpoint: string;
  readonly resources: LocalResources;
  /** CAs the sender trusts (the harness's throwaway CA). */
  readonly ca: readonly string[];
  readonly allowedPorts: readonly number[];
  /**
   * Deadline of one attempt; shortened from 30 s so timeouts and deadlines happen in seconds.
   * This and the other optional settings: absent, what `settings` or the production default says.
   */
  readonly attemptTimeoutMs?: number;
  readonly functionTimeoutMs: number;
  readonly batchConcurrency?: number;
  /** Batches in flight at once (Lambda's concurrent invocations). */
  readonly runnerConcurrency: number;
  readonly connectionCacheTtlMs?: number;
  readonly failingAfter?: number;
  readonly disableAfter?: number;
  /**
   * WEBHOOKS_RECOVERY_PROBES (`3s,3s`, `off`). @default off: a chain of checks keeps a delayed
   * message on the retry queue for hours, and runs that wait for their queues to drain would wait
   * that long; a test of the checks turns them on with seconds-long waits.
   */
  readonly recoveryProbes?: string;
  /** Attempts per SDK call, the SDK's own retries included. @default 2 */
  readonly sdkMaxAttempts?: number;
  /** @default 1 */
  readonly waitTimeSeconds?: number;
  /**
   * Further dispatcher settings by their environment names (lambdas/config.ts ENV), as the
   * construct would set them, e.g. the secret store; the fields above win over them.
   */
  readonly settings?: Readonly<Record<string, string>>;
  /**
   * Print the runner's warnings and errors (a failed SQS call, a failed batch) as local mode
   * does. @default false: silent (the fault suite provokes thousands)
   */
  readonly runnerWarnings?: boolean;
  /**
   * A file each EMF document is also appended to, synchronously as the adapter writes it (at the
   * end of each invocation, before the runner deletes the batch), so the metrics of a dispatcher
   * in a child process outlive its SIGKILL: the fault ledger totals them (metric-totals.ts).
   */
  readonly metricsFile?: string;
}

/** One setting by its environment name, or none when the spec leaves it to `settings` or the default. */
const setting = (name: string, value: number | undefined): Record<string, string> =>
  value === undefined ? {} : { [name]: String(value) };

/** The dispatcher's settings (lambdas/config.ts ENV names) present in `env`: what the construct would set. */
export function dispatcherSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const names: ReadonlySet<string> = new Set(Object.values(ENV));
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => names.has(e[0]) && e[1] !== undefined),
  );
}

export interface BatchStats {
  batches: number;
  ok: number;
  partial: number;
  error: number;
  timeout: number;
  /** Records left for SQS to redeliver (partial + whole failed batches). */
  recordsLeft: number;
}

/** One logged warning or error, trimmed to what a ledger explanation needs. */
export interface LoggedLine {
  readonly at: number;
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A Log that counts lines by level and message and keeps the last warnings and errors. */
export class CountingLog implements Log {
  readonly counts: Record<string, number> = {};
  readonly recent: LoggedLine[] = [];

  constructor(
    private readonly keep = 500,
    private readonly echo?: (line: LoggedLine) => void,
  ) {}

  private add(level: string, message: string, fields: Record<string, unknown> = {}): void {
    const key = `${level}: ${message}`;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
    if (level === 'info' || level === 'debug') return;
    const { _aws: _, ...rest } = fields;
    const line = { at: Date.now(), level, message, fields: rest };
    this.recent.push(line);
    if (this.recent.length > this.keep) this.recent.shift();
    this.echo?.(line);
  }

  debug = (message: string, fields?: Record<string, unknown>) => this.add('debug', message, fields);
  info = (message: string, fields?: Record<string, unknown>) => this.add('info', message, fields);
  warn = (message: string, fields?: Record<string, unknown>) => this.add('warn', message, fields);
  error = (message: string, fields?: Record<string, unknown>) => this.add('error', message, fields);
}

export interface RunningDispatcher<L extends Log = CountingLog> {
  readonly wired: Wired;
  readonly log: L;
  /** What the production EMF adapter wrote, totalled as CloudWatch would (the ledger checks it). */
  readonly metrics: MetricTotals;
  readonly batches: BatchStats;
  /** Stops polling, lets batches in flight finish, closes clients and pools. */
  stop(): Promise<void>;
}

export function startDispatcher<L extends Log = CountingLog>(
  spec: DispatcherSpec,
  hooks: { onBatch?: (report: BatchReport) => void; log?: L; clock?: Clock; trail?: RecordTrail } = {},
): RunningDispatcher<L> {
  const maxAttempts = spec.sdkMaxAttempts ?? 2;
  const client = (endpoint: string) => ({ ...localClientConfig(endpoint, spec.region), maxAttempts });
  const clients = {
    sqs: new SQSClient(client(spec.endpoints.sqs)),
    dynamodb: new DynamoDBClient(client(spec.endpoints.dynamodb)),
    secretsManager: new SecretsManagerClient(client(spec.endpoints.secretsManager)),
    // fauxqs serves SNS on its SQS endpoint (through the SQS fault proxy, like SQS).
    sns: new SNSClient(client(spec.snsEndpoint ?? spec.endpoints.sqs)),
    kms: new KMSClient(client(spec.endpoints.kms)),
  };
  const runnerSqs = new SQSClient(localClientConfig(spec.runnerSqsEndpoint, spec.region));
  const config = loadConfig({
    ...spec.settings,
    // The SDK clients above carry endpoints and credentials; only the dispatcher's own keys here.
    [ENV.retryQueueUrl]: localQueueUrl(spec.endpoints.sqs, spec.resources.retryQueueUrl),
    [ENV.dlqUrl]: localQueueUrl(spec.endpoints.sqs, spec.resources.dlqUrl),
    [ENV.connectionsTable]: spec.resources.connectionsTable,
    [ENV.attemptsTable]: spec.resources.attemptsTable,
    [ENV.parkedTable]: spec.resources.parkedTable,
    [ENV.rateWindowsTable]: spec.resources.rateWindowsTable,
    [ENV.eventsTopicArn]: spec.resources.eventsTopicArn,
    [ENV.secretPrefix]: spec.resources.secretPrefix,
    [ENV.allowLoopback]: 'true',
    [ENV.allowedPorts]: spec.allowedPorts.join(','),
    ...setting(ENV.attemptTimeoutMs, spec.attemptTimeoutMs),
    ...setting(ENV.batchConcurrency, spec.batchConcurrency),
    ...setting(ENV.connectionCacheTtlMs, spec.connectionCacheTtlMs),
    ...(spec.failingAfter ? setting(ENV.failingAfter, spec.failingAfter) : {}),
    ...(spec.disableAfter ? setting(ENV.disableAfter, spec.disableAfter) : {}),
    [ENV.recoveryProbes]: spec.recoveryProbes ?? spec.settings?.[ENV.recoveryProbes] ?? 'off',
  });
  const log = hooks.log ?? (new CountingLog() as Log as L);
  const metrics = new MetricTotals();
  const emf = new EmfMetrics({
    stack: 'faults',
    write: (line) => {
      metrics.add(JSON.parse(line) as EmfDocument);
      if (spec.metricsFile) appendFileSync(spec.metricsFile, `${line}\n`);
    },
  });
  const wired = wireDispatcher(config, {
    clients,
    documentClient: lightDocumentClient,
    ca: [...spec.ca],
    metrics: emf,
    deps: { log },
    ...(hooks.clock ? { clock: hooks.clock } : {}),
  });
  const batches: BatchStats = { batches: 0, ok: 0, partial: 0, error: 0, timeout: 0, recordsLeft: 0 };
  const trail = (handler: SQSHandler) => hooks.trail?.wrap(handler) ?? handler;
  const runner: Runner = startEventSources(
    {
      sqs: runnerSqs,
      handler: trail(createHandler(wired.dispatcher, config.retryQueueUrl, wired.invocation)),
      functionTimeoutMs: spec.functionTimeoutMs,
      waitTimeSeconds: spec.waitTimeSeconds ?? 1,
      concurrency: spec.runnerConcurrency,
      // Without a logger the runner prints its warnings and errors (local mode's console).
      ...(spec.runnerWarnings ? {} : { logger: { info: () => {}, warn: () => {}, error: () => {} } }),
      onBatch(report) {
        batches.batches++;
        batches[report.outcome]++;
        batches.recordsLeft += report.failed.length;
        hooks.trail?.noteBatch(report);
        hooks.onBatch?.(report);
      },
    },
    [
      {
        queueUrl: localQueueUrl(spec.runnerSqsEndpoint, spec.resources.queueUrl),
        queueArn: spec.resources.queueArn,
      },
      {
        queueUrl: localQueueUrl(spec.runnerSqsEndpoint, spec.resources.retryQueueUrl),
        queueArn: spec.resources.retryQueueArn,
      },
    ],
  );

  return {
    wired,
    log,
    metrics,
    batches,
    async stop() {
      await runner.stop();
      await wired.close();
      for (const c of [...Object.values(clients), runnerSqs]) c.destroy();
    },
  };
}
