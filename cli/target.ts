/**
 * Where the CLI points the management API: local mode (the state file `npm start` writes)
 * or a deployed stack (its outputs, the default credential chain). Only endpoints, credentials
 * and the loopback allowance differ; the code path is the same.
 */

import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchStats } from '../lambdas/adapters/stats/cloudwatch';
import { StoreStats } from '../lambdas/adapters/stats/stores';
import type { BackendOptions } from '../lambdas/backend';
import { type ManagementOptions, resourcesFromStack, WebhookManagement } from '../lambdas/management';
import { LOCAL_CONNECTION_CACHE_TTL_MS } from '../local/constants';
import { fauxqsOldestAges } from '../local/fauxqs-queues';
import { type LocalState, localManagementEnv, readState } from '../local/state';
import { DEFAULT_STACK, type GlobalFlags } from './context';
import { CliError } from './errors';

/** Env var naming one more CA file to trust for test sends in local mode (as `npm start` does). */
export const EXTRA_CA_ENV = 'WEBHOOKS_EXTRA_CA_FILE';

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The part of `node:tls` {@link nodeDefaultCas} reads (a parameter, so tests can take Node 20's). */
export interface TlsCaSource {
  rootCertificates: readonly string[];
  getCACertificates?: (type: 'default') => string[];
}

/**
 * The CAs Node trusts by default: its bundled roots and the file NODE_EXTRA_CA_CERTS names.
 * `tls.getCACertificates('default')` says exactly that from Node 22.15 on; on Node 20 and
 * earlier 22s the CLI reads the same two (the package supports Node 20: docs/design.md §11 "Packaging").
 */
export function nodeDefaultCas(env: NodeJS.ProcessEnv, source: TlsCaSource = tls): string[] {
  if (source.getCACertificates) return source.getCACertificates('default');
  const extra = env.NODE_EXTRA_CA_CERTS;
  return [...source.rootCertificates, ...(extra ? [readPem(extra, 'NODE_EXTRA_CA_CERTS file')] : [])];
}

/** Management options for local mode: loopback receivers, the ports and CAs local mode trusts. */
export function localOptions(
  state: LocalState,
  env: NodeJS.ProcessEnv = process.env,
): ManagementOptions & BackendOptions {
  const extra = env[EXTRA_CA_ENV];
  return {
    resources: state.resources,
    allowLoopback: true,
    allowedPorts: state.allowedPorts,
    connectionCacheTtlMs: state.connectionCacheTtlMs ?? LOCAL_CONNECTION_CACHE_TTL_MS,
    // `stats` reads the attempt log; the queues' oldest ages come from the SQS emulator.
    statsSource: (resources, clients) =>
      new StoreStats(resources, clients, fauxqsOldestAges(state.endpoints.sqs, resources)),
    // Node's defaults (with NODE_EXTRA_CA_CERTS), local mode's CA, and the extra one if any.
    ca: [
      ...nodeDefaultCas(env),
      readPem(state.caFile, 'local CA file'),
      ...(state.extraCaFiles ?? []).map((f) => readPem(f, 'CA file local mode trusts')),
      ...(extra ? [readPem(extra, `${EXTRA_CA_ENV}`)] : []),
    ],
  };
}

/**
 * Builds the management API for the target the global flags name. Sets the AWS SDK's
 * environment first, since the SDK clients read it when they are created.
 */
export async function openTarget(
  globals: GlobalFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<WebhookManagement> {
  if (globals.local) {
    let state: LocalState;
    try {
      state = readState();
    } catch (error) {
      throw new CliError((error as Error).message, { cause: error });
    }
    // A profile in the operator's shell would win over the local credentials (and warn).
    for (const key of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_DEFAULT_PROFILE']) delete env[key];
    Object.assign(env, localManagementEnv(state));
    return new WebhookManagement(localOptions(state, env));
  }
  if (globals.profile) {
    env.AWS_PROFILE = globals.profile;
    // An explicit profile beats static keys in the environment (which the SDK would warn about).
    for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) delete env[key];
  }
  if (globals.region) env.AWS_REGION = globals.region;
  const stackName = globals.stack ?? DEFAULT_STACK;
  const resources = await resourcesFromStack(stackName, new CloudFormationClient({}));
  return new WebhookManagement({
    resources,
    // A deployed stack's `stats` come from CloudWatch, not a Scan of its attempt log.
    statsSource: (r, clients) =>
      new CloudWatchStats(r, { ...clients, cloudwatch: new CloudWatchClient({}) }, stackName),
  });
}
