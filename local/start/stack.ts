/**
 * What `npm start` runs: the emulators and their resources, the demo receiver, the management
 * library and its HTTP API, the real dispatcher under a runner with Lambda's SQS semantics, and
 * the demo connection; the state file tells the CLI where they are.
 */

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { Logger } from '@aws-lambda-powertools/logger';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { powertoolsLog } from '../../lambdas/adapters/logger';
import { secretRotationOverlap } from '../../lambdas/api-config';
import { type DispatcherConfig, deliverySearch, ENV, loadConfig, rateLimits } from '../../lambdas/config';
import { DEFAULT_HEADER_PREFIX } from '../../lambdas/core/constants';
import { WebhookManagement } from '../../lambdas/management';
import { ensureConsoleKey, type LocalApi, prepareConsole, startLocalApi } from '../api-server';
import { bootstrapResources, type LocalResources, localEnv, type RebuildEvent } from '../bootstrap';
import { LOCAL_CONNECTION_CACHE_TTL_MS } from '../constants';
import { type DemoReceiver, startDemoReceiver } from '../demo-receiver';
import { type LocalEmulators, startEmulators } from '../emulators';
import { watchEvents } from '../events';
import { startLocalFunction } from '../function';
import { loadOrCreateCa } from '../local-ca';
import { prettyLog } from '../pretty-log';
import { fauxqsQueueReader, PrometheusMetrics } from '../prometheus';
import { type LocalState, removeState, writeState } from '../state';
import { createLocalPki, type LocalPki } from '../tls';
import type { StartArgs, StartSettings } from './args';
import type { StackStorage } from './storage';

export const DEMO_APPLICATION = { id: 'app_demo', name: 'Demo Extension' };
/** The demo application's console link lasts a working day, the longest a session may. */
export const DEMO_CONSOLE_TTL_SECONDS = 86_400;
/** Local function timeout: one 30 s attempt plus the dispatcher's margin must fit. */
const FUNCTION_TIMEOUT_MS = 60_000;

type Out = (line?: string) => void;

/** The running pipeline: what the banner prints and the tour drives. */
export interface LocalStack {
  emulators: LocalEmulators;
  resources: LocalResources;
  config: DispatcherConfig;
  management: WebhookManagement;
  receiver: DemoReceiver;
  api: LocalApi;
  allowedPorts: number[];
  caFile: string;
  eventsFile: string;
  demo: { connectionId: string; url: string; secret: string; consoleUrl: string };
  /** Stops everything it started and removes the state file. */
  stop(): Promise<void>;
}

/** Starts the pipeline, in the order its parts need each other, and writes the state file. */
export async function startStack(
  args: StartArgs,
  storage: StackStorage,
  settings: StartSettings,
  out: Out,
): Promise<LocalStack> {
  const { statePath } = storage;
  const { emulators, resources } = await startServices(args, storage, settings, out);
  const trust = trustedCas(statePath);
  const headerPrefix = process.env[ENV.headerPrefix] || DEFAULT_HEADER_PREFIX;
  // The rate limits the dispatcher applies, told to the management library and the state file
  // too, so the console and the CLI judge connections by them; so is whether delivery search is
  // on (WEBHOOKS_DELIVERY_SEARCH=false turns it off for all three).
  const limits = {
    ...rateLimits(process.env),
    deliverySearch: deliverySearch(process.env),
    // WEBHOOKS_SECRET_ROTATION_OVERLAP_SECONDS plays the construct's secretRotationOverlap.
    secretRotationOverlapSeconds: secretRotationOverlap(process.env),
  };
  const { receiver, management, allowedPorts, consoleKeySecret } = await startManagement(
    resources,
    trust,
    { headerPrefix, ...limits },
    settings.extraPorts,
    out,
  );
  const config = dispatcherConfig(headerPrefix, allowedPorts, settings.health);
  // One registry: the in-process dispatcher counts into it, the API server's /metrics reads it.
  const metrics = new PrometheusMetrics({
    queues: fauxqsQueueReader(emulators.endpoints.sqs, {
      ingress: resources.queueUrl,
      retry: resources.retryQueueUrl,
      dlq: resources.dlqUrl,
    }),
  });
  const dispatcher = startDispatcher(config, resources, trust.ca, {
    jsonLogs: args['json-logs'],
    concurrency: settings.concurrency,
    statePath,
    out,
    metrics,
  });
  const demo = await demoConnection(management, receiver);
  const api = await startApi(
    management,
    statePath,
    settings.apiPort,
    out,
    metrics,
    config.recoveryProbes !== false,
  );
  const demoConsole = await management.createConsoleSession({
    applicationId: DEMO_APPLICATION.id,
    apiUrl: api.origin,
    ttlSeconds: DEMO_CONSOLE_TTL_SECONDS,
  });
  const stack: LocalStack = {
    emulators,
    resources,
    config,
    management,
    receiver,
    api,
    allowedPorts,
    caFile: trust.caFiles.certFile,
    eventsFile: dispatcher.eventsFile,
    demo: { ...demo, consoleUrl: demoConsole.consoleUrl },
    async stop() {
      await dispatcher.stop();
      await api.close();
      await dispatcher.close();
      await receiver.close();
      await emulators.stop();
      removeState(statePath);
    },
  };
  writeState(stateOf(stack, storage, trust, { headerPrefix, consoleKeySecret, ...limits }), statePath);
  return stack;
}

type ManagementSettings = {
  headerPrefix: string;
  secretRotationOverlapSeconds: number;
  deliverySearch: boolean;
} & ReturnType<typeof rateLimits>;
/** What the state file tells the CLI and other tools about a running stack. */
function stateOf(
  stack: LocalStack,
  storage: StackStorage,
  trust: Trust,
  management: ManagementSettings & { consoleKeySecret: string },
): LocalState {
  const { emulators, api } = stack;
  return {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    region: emulators.region,
    endpoints: emulators.endpoints,
    resources: { ...stack.resources, ...management, apiUrl: api.origin },
    caFile: trust.caFiles.certFile,
    caKeyFile: trust.caFiles.keyFile,
    ...(storage.persistDir ? { persistDir: storage.persistDir } : {}),
    extraCaFiles: trust.extraCaFiles,
    allowedPorts: stack.allowedPorts,
    demoReceiverUrl: stack.demo.url,
    connectionCacheTtlMs: stack.config.connectionCacheTtlMs,
  };
}

/** What the start prints as it rebuilds a kept table for this version's indexes. */
export function rebuildLine(e: RebuildEvent): string {
  const items = 'items' in e ? `${e.items.toLocaleString('en-US')} items` : '';
  if (e.step === 'started')
    return `Rebuilding the local table ${e.table} for this version's indexes (its items are copied aside first, so an interrupted rebuild is finished by the next start)…`;
  if (e.step === 'done') return `Rebuilt the local table ${e.table}: ${items} kept.`;
  return `Finished the interrupted rebuild of the local table ${e.table}: ${items} restored.`;
}

/** The emulators and the queues, tables and secrets on them, which the SDK clients then find. */
async function startServices(args: StartArgs, storage: StackStorage, settings: StartSettings, out: Out) {
  // Queues are kept only with an explicit --persist (see EmulatorOptions.persistQueues).
  const emulators = await startEmulators({
    persistDir: storage.persistDir,
    persistQueues: args.persist !== undefined,
  });
  const resources = await bootstrapResources(emulators, {
    visibilityTimeoutSeconds: FUNCTION_TIMEOUT_MS / 1000,
    secretStore: settings.secretStore,
    onRebuild: (e) => out(rebuildLine(e)),
  });
  // The unchanged SDK clients and the dispatcher's config find the emulators and resources
  // through these (no code path differs).
  Object.assign(process.env, localEnv(emulators.endpoints, resources, emulators.region));
  return { emulators, resources };
}

interface Trust {
  pki: LocalPki;
  /** What local mode's HTTPS clients trust: Node's roots, the local CA and any extra CA files. */
  ca: string[];
  caFiles: ReturnType<typeof loadOrCreateCa>['files'];
  extraCaFiles: string[];
}

/** The local CA and the demo receiver's certificate from it, and every CA local mode trusts. */
function trustedCas(statePath: string): Trust {
  // The CA outlives restarts, so certificates issued from it (`certs issue`) stay trusted.
  const { ca: localCa, files: caFiles } = loadOrCreateCa(dirname(statePath));
  const pki = createLocalPki({ ca: localCa });
  const extraCaFiles = [process.env.NODE_EXTRA_CA_CERTS, process.env.WEBHOOKS_EXTRA_CA_FILE]
    .filter((f): f is string => Boolean(f))
    .map((f) => resolve(f));
  const extraCas = extraCaFiles.map((f) => readFileSync(f, 'utf8'));
  const ca = [...rootCertificates, pki.caPem, ...extraCas];
  return { pki, ca, caFiles, extraCaFiles };
}

/**
 * The demo receiver, which checks signatures with the secrets the management library shows,
 * and the management library, which may deliver to the receiver's port.
 */
async function startManagement(
  resources: LocalResources,
  trust: Trust,
  settings: ManagementSettings,
  extraPorts: number[],
  out: Out,
) {
  const { headerPrefix } = settings;
  let management: WebhookManagement | undefined;
  const receiver = await startDemoReceiver({
    certPem: trust.pki.certPem,
    keyPem: trust.pki.keyPem,
    headerPrefix,
    async secretsOf(connectionId) {
      try {
        // Both secrets while a rotation's switch is ahead, as docs/protocol.md tells receivers.
        const shown = await management!.connections.showSecret(connectionId);
        return shown.next ? [shown.secret, shown.next.secret] : [shown.secret];
      } catch {
        return [];
      }
    },
    onDelivery(d) {
      const mark = d.verified ? '✓ signature verified' : `✗ rejected (${d.problem})`;
      out(
        `  demo receiver ${d.path}: ${d.userId ?? '?'} delivery ${d.deliveryId ?? '?'} attempt ${d.attempt ?? '?'} ${mark} → ${d.status}`,
      );
    },
  });
  const allowedPorts = [...new Set([443, receiver.port, ...extraPorts])];
  const consoleKeySecret = await ensureConsoleKey(new SecretsManagerClient({}));
  management = new WebhookManagement({
    resources: { ...resources, ...settings, consoleKeySecret },
    allowLoopback: true,
    allowedPorts,
    ca: trust.ca,
  });
  return { receiver, management, allowedPorts, consoleKeySecret };
}

/** The dispatcher's config from the environment, with local mode's egress, health and cache. */
function dispatcherConfig(
  headerPrefix: string,
  allowedPorts: number[],
  health: Record<string, string>,
): DispatcherConfig {
  return loadConfig({
    ...process.env,
    [ENV.headerPrefix]: headerPrefix,
    [ENV.allowLoopback]: 'true',
    [ENV.allowedPorts]: allowedPorts.join(','),
    ...health,
    [ENV.connectionCacheTtlMs]:
      process.env[ENV.connectionCacheTtlMs] ?? String(LOCAL_CONNECTION_CACHE_TTL_MS),
  });
}

/**
 * The real dispatcher, fed by two event source mappings as deployed (the ingress queue and the
 * internal retry queue), and the operational events it publishes, printed and kept in a file.
 */
function startDispatcher(
  config: DispatcherConfig,
  resources: LocalResources,
  ca: string[],
  options: {
    jsonLogs: boolean | undefined;
    concurrency: number;
    statePath: string;
    out: Out;
    metrics: PrometheusMetrics;
  },
) {
  const { jsonLogs, statePath, out, metrics } = options;
  const eventsFile = join(dirname(statePath), 'events.jsonl');
  const events = watchEvents({
    sqs: new SQSClient({}),
    queueUrl: resources.eventsQueueUrl,
    file: eventsFile,
    write: (line) => out(`  event ${line}`),
  });
  const dispatcher = startLocalFunction({
    config,
    wiring: { ca, metrics, deps: { log: dispatcherLog(jsonLogs, out) } },
    sqs: new SQSClient({}),
    queues: [
      { queueUrl: resources.queueUrl, queueArn: resources.queueArn },
      { queueUrl: resources.retryQueueUrl, queueArn: resources.retryQueueArn },
    ],
    functionTimeoutMs: FUNCTION_TIMEOUT_MS,
    concurrency: options.concurrency,
  });
  return {
    eventsFile,
    /** Stops taking messages and watching events. */
    async stop() {
      await dispatcher.stop();
      await events.stop();
    },
    close: () => dispatcher.close(),
  };
}

/**
 * On a laptop every delivery is worth a line: the log runs at DEBUG, where the dispatcher
 * writes its per-delivery success line (at the deployed default, INFO, it writes none).
 */
function dispatcherLog(jsonLogs: boolean | undefined, out: Out) {
  if (jsonLogs) {
    return powertoolsLog(
      new Logger({
        serviceName: 'webhook-dispatcher',
        // POWERTOOLS_LOG_LEVEL, when set, still decides.
        ...(process.env.POWERTOOLS_LOG_LEVEL ? {} : { logLevel: 'DEBUG' as const }),
      }),
    );
  }
  const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
  return prettyLog((l) => out(`  dispatcher ${l}`), colour, 'debug');
}

/** The demo connection: the persisted one (pointed at this run's receiver), or a new one. */
async function demoConnection(management: WebhookManagement, receiver: DemoReceiver) {
  const url = `${receiver.origin}/hooks`;
  const existing = (await management.connections.list({ applicationId: DEMO_APPLICATION.id })).find(
    (c) => c.name === 'Demo receiver',
  );
  const demo = existing
    ? await management.connections.update(existing.connectionId, { url, enabled: true })
    : await management.connections.create({
        applicationId: DEMO_APPLICATION.id,
        name: 'Demo receiver',
        url,
      });
  const { secret } = await management.connections.showSecret(demo.connectionId);
  return { connectionId: demo.connectionId, url, secret };
}

/** The management HTTP API, serving the web console built next to the state file. */
async function startApi(
  management: WebhookManagement,
  statePath: string,
  port: number | undefined,
  out: Out,
  metrics: PrometheusMetrics,
  recoveryChecks: boolean,
): Promise<LocalApi> {
  const consoleFiles = await prepareConsole(join(dirname(statePath), 'console'));
  if (consoleFiles.problem) out(`  (the web console could not be built: ${consoleFiles.problem})`);
  return startLocalApi({
    management,
    port,
    strictPort: port !== undefined,
    consoleDir: consoleFiles.dir,
    metrics,
    recoveryChecks,
  });
}
