/** What `npm start` prints once the pipeline is ready, and when it stops. */

import { join } from 'node:path';
import { formatProbeSchedule } from '../../lambdas/core/probes';
import { LOCAL_DIR } from '../state';
import type { StartArgs } from './args';
import { DEMO_APPLICATION, DEMO_CONSOLE_TTL_SECONDS, type LocalStack } from './stack';
import type { StackStorage } from './storage';

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

/** The pipeline's endpoints, resources and settings, then the demo connection and what to do next. */
export function readyBanner(
  stack: LocalStack,
  storage: StackStorage,
  args: StartArgs,
  extraPorts: number[],
): string {
  const { statePath } = storage;
  // A state file other than the one the CLI reads by default: say which.
  const cli = `${statePath !== join(LOCAL_DIR, 'state.json') ? `WEBHOOKS_STATE_FILE=${statePath} ` : ''}npx webhooks --local`;
  const examplePort = extraPorts[0] ?? 8443;
  const { demo } = stack;
  // The demo's console link would stop working when the tour ends and the demo exits.
  const consoleBlock = args.demo
    ? ''
    : `Web console (${DEMO_APPLICATION.id}, valid ${DEMO_CONSOLE_TTL_SECONDS / 3600} h)
  ${demo.consoleUrl}

`;
  return `
Local webhook pipeline is ready.

${pipelineLines(stack, storage, args)}

${consoleBlock}Demo connection
  id       ${demo.connectionId}
  app      ${DEMO_APPLICATION.id}
  url      ${demo.url}   (demo receiver, verifies every signature)
  secret   ${demo.secret}

${args.demo ? DEMO_NEXT : tryNext(cli, demo.connectionId, examplePort)}
`;
}

function pipelineLines(stack: LocalStack, storage: StackStorage, args: StartArgs): string {
  const { emulators, resources, config, api } = stack;
  return `  SQS (fauxqs)             ${emulators.endpoints.sqs}
  DynamoDB (dynalite)      ${emulators.endpoints.dynamodb}
  Secrets Manager (local)  ${emulators.endpoints.secretsManager}
  KMS (local)              ${emulators.endpoints.kms}${resources.secretStore.kind === 'kms' ? '  (connection secrets: sealed with its key, --secret-store kms)' : ''}
  ingress queue            ${resources.queueUrl}
  retry queue (internal)   ${resources.retryQueueUrl}
  dead-letter queue        ${resources.dlqUrl}
  parked deliveries        table ${resources.parkedTable}
  health                   failing after ${config.health.failingAfter} failed ${config.health.failingAfter === 1 ? 'delivery' : 'deliveries in a row'}; ${config.health.disableAfter ? `disabled after ${config.health.disableAfter}` : 'never disabled (--disable-after N)'}
  recovery checks          ${config.recoveryProbes ? `${formatProbeSchedule(config.recoveryProbes)} after a delivery parks (WEBHOOKS_RECOVERY_PROBES; off to stop)` : 'off (WEBHOOKS_RECOVERY_PROBES=off): Recover by hand'}
  events (SNS, local)      ${resources.eventsTopicArn}, printed here and kept in ${stack.eventsFile}
  state file               ${storage.statePath}
  state                    ${stateNote(storage, args)}
  local CA                 ${stack.caFile} (trusted by local mode)
  allowed ports            ${stack.allowedPorts.join(', ')}, and any port on localhost, 127.0.0.1 and [::1] (local mode only)
  management API           ${api.origin}/api/v1 (OpenAPI: ${api.origin}/api/v1/openapi.json)${api.movedFrom ? `\n                           (port ${api.movedFrom} was taken)` : ''}`;
}

/** What is kept across restarts, and how to start clean. */
function stateNote({ persistDir }: StackStorage, args: StartArgs): string {
  return persistDir
    ? `connections, secrets and the attempt log kept in ${persistDir} across restarts${args.persist ? ' (queues too)' : ' (queued messages are not)'}; npm start -- --fresh starts clean`
    : 'in memory only: connections, secrets and attempts are LOST when local mode stops';
}

/** The last line: what a restart finds. */
export function stoppedMessage({ persistDir }: StackStorage, args: StartArgs): string {
  return persistDir
    ? `Stopped. Connections, secrets and the attempt log are kept in ${persistDir}${args.persist ? ' (queues too)' : '; queued messages and the DLQ are not'}; the next npm start picks them up.`
    : 'Stopped. It ran in memory: its connections, secrets and attempts are gone.';
}
