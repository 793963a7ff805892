/**
 * `npm start`: the whole pipeline on this machine, no AWS account, no Docker.
 *
 * fauxqs (SQS), dynalite (DynamoDB) and the local Secrets Manager endpoint; the real
 * dispatcher handler invoked by a runner with Lambda's SQS semantics; a demo HTTPS receiver
 * that verifies signatures with the receiver library. The production adapters run unchanged:
 * only endpoints and credentials differ. Ctrl-C stops everything.
 *
 *   npm start                      # state kept in .local/data across restarts
 *   npm start -- --fresh           # start clean (deletes what was kept)
 *   npm start -- --in-memory       # keep nothing
 *   npm run demo                   # the scripted tour, then exit (in memory, its own state file)
 */

import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { powertoolsLog } from '../lambdas/adapters/logger';
import { ENV, loadConfig, SECRET_STORES, type SecretStore } from '../lambdas/config';
import { DEFAULT_HEADER_PREFIX } from '../lambdas/core/constants';
import { HealthSettingsError, validateThresholds } from '../lambdas/core/health';
import { createHandler } from '../lambdas/dispatcher/handler';
import { WebhookManagement } from '../lambdas/management';
import { wireDispatcher } from '../lambdas/wiring';
import { DEFAULT_API_PORT, ensureConsoleKey, prepareConsole, startLocalApi } from './api-server';
import { bootstrapResources, localEnv } from './bootstrap';
import { LOCAL_CONNECTION_CACHE_TTL_MS } from './constants';
import { startDemoReceiver } from './demo-receiver';
import { runDemoTour } from './demo-tour';
import { startEmulators } from './emulators';
import { watchEvents } from './events';
import { loadOrCreateCa } from './local-ca';
import { prettyLog } from './pretty-log';
import { startEventSources } from './runner';
import { assertStateFileFree, LOCAL_DIR, removeState, stateFilePath, writeState } from './state';
import { createLocalPki } from './tls';

const DEMO_APPLICATION = { id: 'app_demo', name: 'Demo Extension' };
/** Local function timeout: one 30 s attempt plus the dispatcher's margin must fit. */
const FUNCTION_TIMEOUT_MS = 60_000;
/** What `npm run demo` says instead of the commands to try: it stops by itself when the tour ends. */
const DEMO_NEXT = `The scripted tour follows, then everything stops by itself: it runs in memory, so nothing
it made is kept. For a pipeline to try the CLI and the web console against, run: npm start`;

/** The commands to try next, against the pipeline `npm start` keeps running. */
function tryNext(cli: string, connectionId: string, examplePort: number): string {
  return `Try, in another terminal:
  ${cli} connections send-test ${connectionId}
  ${cli} publish --application ${DEMO_APPLICATION.id} --user-json '{"id":"usr_123","email":"ada@example.com","name":"Ada Lovelace"}'
  ${cli} attempts tail
  ${cli} console --application ${DEMO_APPLICATION.id}      (a new console link)
Your own HTTPS receiver on this machine, any port, no restart:
  ${cli} certs issue --out ./certs
      (certs/localhost.pem + certs/localhost-key.pem, from local mode's CA, which local mode trusts)
  ${cli} connections create --application ${DEMO_APPLICATION.id} --name "My endpoint" --url https://localhost:${examplePort}/webhooks

Press Ctrl-C to stop.`;
}

/** The demo application's console link lasts a working day, the longest a session may. */
const DEMO_CONSOLE_TTL_SECONDS = 86_400;

const USAGE = `Usage: npm start -- [options]

  --persist DIR      keep queues, tables and secrets in DIR (default: data/ next to the state file,
                     .local/data); a restart picks them up
  --fresh            start clean: delete what was kept, then start
  --in-memory        keep nothing; everything is lost when local mode stops
  --allow-port N     also allow deliveries to port N on other hosts (repeatable; 443 is always
                     allowed, and any port on localhost, 127.0.0.1 and [::1])
  --api-port N       serve the management API and console on 127.0.0.1:N (default ${DEFAULT_API_PORT}, or a free port when taken; 0 = any)
  --demo             play the scripted tour (success, flaky, dead and parked, retry), then exit; runs in
                     memory with its own state file (.local/demo/), so it never disturbs npm start
  --failing-after N  a connection turns failing after N deliveries in a row failed every attempt
                     (default 3); connection.failing is printed and kept in .local/events.jsonl
  --disable-after N  disable a connection after N such deliveries in a row (default: never); its
                     events are then parked until: npx webhooks --local connections enable <id>
  --secret-store S   where connection secrets are kept: secrets-manager (default) or kms (sealed
                     in the connection item with the local KMS key, as secretStore: 'kms' deploys)
  --json-logs        print the dispatcher's JSON log lines instead of the short ones
  -h, --help         this help`;

function parseApiPort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535) throw new Error(`--api-port: "${value}" is not a port number`);
  return n;
}

/** `--failing-after` / `--disable-after`, checked by the rules of the construct props. */
function parseHealth(failing: string | undefined, disable: string | undefined): Record<string, string> {
  const whole = (flag: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw new Error(`${flag}: "${value}" is not a whole number`);
    return Number(value);
  };
  try {
    const t = validateThresholds({
      failingAfter: whole('--failing-after', failing),
      disableAfter: whole('--disable-after', disable),
    });
    return {
      [ENV.failingAfter]: String(t.failingAfter),
      [ENV.disableAfter]: t.disableAfter === undefined ? '' : String(t.disableAfter),
    };
  } catch (error) {
    if (!(error instanceof HealthSettingsError)) throw error;
    const flag = error.field === 'failingAfter' ? 'failing-after' : 'disable-after';
    throw new Error(`--${flag}: ${error.problem.replace('failingAfter', '--failing-after')}`);
  }
}

function parsePorts(values: string[]): number[] {
  return values.map((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65_535)
      throw new Error(`--allow-port: "${v}" is not a port number`);
    return n;
  });
}

/** `--secret-store`: where connection secrets are kept, as the construct prop `secretStore` says. */
function parseSecretStore(value: string | undefined): SecretStore['kind'] {
  const known: readonly string[] = SECRET_STORES;
  if (value === undefined || !known.includes(value)) {
    throw new Error(`--secret-store: "${value}" is not one of ${SECRET_STORES.join(', ')}`);
  }
  return value as SecretStore['kind'];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      persist: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      'in-memory': { type: 'boolean', default: false },
      'allow-port': { type: 'string', multiple: true, default: [] },
      'api-port': { type: 'string' },
      demo: { type: 'boolean', default: false },
      'json-logs': { type: 'boolean', default: false },
      'failing-after': { type: 'string' },
      'disable-after': { type: 'string' },
      'secret-store': { type: 'string', default: 'secrets-manager' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
  // The demo gets its own state file (and CA) and runs in memory: it must not overwrite, then
  // delete, the state file of an `npm start` running beside it.
  if (values.demo && !process.env.WEBHOOKS_STATE_FILE)
    process.env.WEBHOOKS_STATE_FILE = join(LOCAL_DIR, 'demo', 'state.json');
  const statePath = stateFilePath();
  assertStateFileFree(statePath);
  if (values['in-memory'] && values.persist)
    throw new Error('--in-memory and --persist contradict each other; give one');
  const inMemory = values['in-memory'] || (values.demo && !values.persist);
  const persistDir = inMemory ? undefined : resolve(values.persist ?? join(dirname(statePath), 'data'));
  if (values.fresh && persistDir) rmSync(persistDir, { recursive: true, force: true });
  const stateNote = persistDir
    ? `connections, secrets and the attempt log kept in ${persistDir} across restarts${values.persist ? ' (queues too)' : ' (queued messages are not)'}; npm start -- --fresh starts clean`
    : 'in memory only: connections, secrets and attempts are LOST when local mode stops';
  const health = parseHealth(values['failing-after'], values['disable-after']);
  const secretStore = parseSecretStore(values['secret-store']);
  const apiPort = values['api-port'] === undefined ? undefined : parseApiPort(values['api-port']);
  const extraPorts = parsePorts([
    ...(values['allow-port'] ?? []),
    ...(process.env.WEBHOOKS_EXTRA_PORTS?.split(',').filter(Boolean) ?? []),
  ]);

  out('Starting the local webhook pipeline…');
  // Queues are kept only with an explicit --persist (see EmulatorOptions.persistQueues).
  const emulators = await startEmulators({ persistDir, persistQueues: values.persist !== undefined });
  const resources = await bootstrapResources(emulators, {
    visibilityTimeoutSeconds: FUNCTION_TIMEOUT_MS / 1000,
    secretStore,
  });
  // The unchanged SDK clients and the dispatcher's config find the emulators and resources
  // through these (no code path differs).
  Object.assign(process.env, localEnv(emulators.endpoints, resources, emulators.region));

  // The CA outlives restarts, so certificates issued from it (`certs issue`) stay trusted.
  const { ca: localCa, files: caFiles } = loadOrCreateCa(dirname(statePath));
  const pki = createLocalPki({ ca: localCa });
  const caFile = caFiles.certFile;
  const extraCaFiles = [process.env.NODE_EXTRA_CA_CERTS, process.env.WEBHOOKS_EXTRA_CA_FILE]
    .filter((f): f is string => Boolean(f))
    .map((f) => resolve(f));
  const extraCas = extraCaFiles.map((f) => readFileSync(f, 'utf8'));
  const ca = [...rootCertificates, pki.caPem, ...extraCas];

  const headerPrefix = process.env[ENV.headerPrefix] || DEFAULT_HEADER_PREFIX;
  let management: WebhookManagement | undefined;
  const receiver = await startDemoReceiver({
    certPem: pki.certPem,
    keyPem: pki.keyPem,
    headerPrefix,
    async secretsOf(connectionId) {
      try {
        return [(await management!.connections.showSecret(connectionId)).secret];
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
    resources: { ...resources, headerPrefix, consoleKeySecret },
    allowLoopback: true,
    allowedPorts,
    ca,
  });

  const config = loadConfig({
    ...process.env,
    [ENV.headerPrefix]: headerPrefix,
    [ENV.allowLoopback]: 'true',
    [ENV.allowedPorts]: allowedPorts.join(','),
    ...health,
    [ENV.connectionCacheTtlMs]:
      process.env[ENV.connectionCacheTtlMs] ?? String(LOCAL_CONNECTION_CACHE_TTL_MS),
  });
  // On a laptop every delivery is worth a line: the log runs at DEBUG, where the dispatcher
  // writes its per-delivery success line (at the deployed default, INFO, it writes none).
  const log = values['json-logs']
    ? powertoolsLog(
        new Logger({
          serviceName: 'webhook-dispatcher',
          // POWERTOOLS_LOG_LEVEL, when set, still decides.
          ...(process.env.POWERTOOLS_LOG_LEVEL ? {} : { logLevel: 'DEBUG' as const }),
        }),
      )
    : prettyLog((l) => out(`  dispatcher ${l}`), colour, 'debug');
  const wired = wireDispatcher(config, { ca, deps: { log } });
  const eventsFile = join(dirname(statePath), 'events.jsonl');
  const events = watchEvents({
    sqs: new SQSClient({}),
    queueUrl: resources.eventsQueueUrl,
    file: eventsFile,
    write: (line) => out(`  event ${line}`),
  });
  // Two event source mappings, as deployed: the ingress queue and the internal retry queue.
  const runner = startEventSources(
    {
      sqs: new SQSClient({}),
      handler: createHandler(wired.dispatcher, config.retryQueueUrl),
      functionTimeoutMs: FUNCTION_TIMEOUT_MS,
      waitTimeSeconds: 1,
      concurrency: 2,
    },
    [
      { queueUrl: resources.queueUrl, queueArn: resources.queueArn },
      { queueUrl: resources.retryQueueUrl, queueArn: resources.retryQueueArn },
    ],
  );

  // The demo connection: reuse the persisted one (pointed at this run's receiver) or create it.
  const demoUrl = `${receiver.origin}/hooks`;
  const existing = (await management.connections.list({ applicationId: DEMO_APPLICATION.id })).find(
    (c) => c.name === 'Demo receiver',
  );
  const demo = existing
    ? await management.connections.update(existing.connectionId, { url: demoUrl, enabled: true })
    : await management.connections.create({
        applicationId: DEMO_APPLICATION.id,
        name: 'Demo receiver',
        url: demoUrl,
      });
  const { secret } = await management.connections.showSecret(demo.connectionId);
  const consoleFiles = await prepareConsole(join(dirname(statePath), 'console'));
  if (consoleFiles.problem) out(`  (the web console could not be built: ${consoleFiles.problem})`);
  const api = await startLocalApi({
    management,
    port: apiPort,
    strictPort: apiPort !== undefined,
    consoleDir: consoleFiles.dir,
  });
  const demoConsole = await management.createConsoleSession({
    applicationId: DEMO_APPLICATION.id,
    apiUrl: api.origin,
    ttlSeconds: DEMO_CONSOLE_TTL_SECONDS,
  });

  writeState(
    {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      region: emulators.region,
      endpoints: emulators.endpoints,
      resources: { ...resources, headerPrefix, consoleKeySecret, apiUrl: api.origin },
      caFile,
      caKeyFile: caFiles.keyFile,
      ...(persistDir ? { persistDir } : {}),
      extraCaFiles,
      allowedPorts,
      demoReceiverUrl: demoUrl,
      connectionCacheTtlMs: config.connectionCacheTtlMs,
    },
    statePath,
  );

  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    out('\nStopping…');
    await runner.stop();
    await events.stop();
    await api.close();
    await wired.close();
    await receiver.close();
    await emulators.stop();
    removeState(statePath);
    out(
      persistDir
        ? `Stopped. Connections, secrets and the attempt log are kept in ${persistDir}${values.persist ? ' (queues too)' : '; queued messages and the DLQ are not'}; the next npm start picks them up.`
        : 'Stopped. It ran in memory: its connections, secrets and attempts are gone.',
    );
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  // A state file other than the one the CLI reads by default: say which.
  const cli = `${statePath !== join(LOCAL_DIR, 'state.json') ? `WEBHOOKS_STATE_FILE=${statePath} ` : ''}npx webhooks --local`;
  const examplePort = extraPorts[0] ?? 8443;
  // The demo's console link would stop working when the tour ends and the demo exits.
  const consoleBlock = values.demo
    ? ''
    : `Web console (${DEMO_APPLICATION.id}, valid ${DEMO_CONSOLE_TTL_SECONDS / 3600} h)
  ${demoConsole.consoleUrl}

`;
  out(`
Local webhook pipeline is ready.

  SQS (fauxqs)             ${emulators.endpoints.sqs}
  DynamoDB (dynalite)      ${emulators.endpoints.dynamodb}
  Secrets Manager (local)  ${emulators.endpoints.secretsManager}
  KMS (local)              ${emulators.endpoints.kms}${resources.secretStore.kind === 'kms' ? '  (connection secrets: sealed with its key, --secret-store kms)' : ''}
  ingress queue            ${resources.queueUrl}
  retry queue (internal)   ${resources.retryQueueUrl}
  dead-letter queue        ${resources.dlqUrl}
  parked deliveries        table ${resources.parkedTable}
  health                   failing after ${config.health.failingAfter} failed ${config.health.failingAfter === 1 ? 'delivery' : 'deliveries in a row'}; ${config.health.disableAfter ? `disabled after ${config.health.disableAfter}` : 'never disabled (--disable-after N)'}
  events (SNS, local)      ${resources.eventsTopicArn}, printed here and kept in ${eventsFile}
  state file               ${statePath}
  state                    ${stateNote}
  local CA                 ${caFile} (trusted by local mode)
  allowed ports            ${allowedPorts.join(', ')}, and any port on localhost, 127.0.0.1 and [::1] (local mode only)
  management API           ${api.origin}/api/v1 (OpenAPI: ${api.origin}/api/v1/openapi.json)${api.movedFrom ? `\n                           (port ${api.movedFrom} was taken)` : ''}

${consoleBlock}Demo connection
  id       ${demo.connectionId}
  app      ${DEMO_APPLICATION.id}
  url      ${demoUrl}   (demo receiver, verifies every signature)
  secret   ${secret}

${values.demo ? DEMO_NEXT : tryNext(cli, demo.connectionId, examplePort)}
`);

  // A first event, so there is something to see straight away.
  const { eventId } = await management.publisher.publishUserIdentified({
    user: {
      id: 'usr_demo_1',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      metadata: { plan: 'pro', source: 'demo' },
    },
    application: DEMO_APPLICATION,
  });
  out(`Published demo event ${eventId} to ${DEMO_APPLICATION.id}.`);

  if (values.demo) {
    await runDemoTour({ management, receiver, out });
    await stop(0);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.DEBUG) console.error(error);
  process.exit(1);
});
