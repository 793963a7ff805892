/** `npm start`'s command line: the options, their help, and the checks of their values. */

import { parseArgs } from 'node:util';
import { ENV, SECRET_STORES, type SecretStore } from '../../lambdas/config';
import { HealthSettingsError, validateThresholds } from '../../lambdas/core/health';
import { DEFAULT_API_PORT } from '../api-server';
import { DEFAULT_CONCURRENCY } from '../function';

/** A laptop's bound: each batch in flight holds up to 10 deliveries and an HTTPS pool. */
export const MAX_CONCURRENCY = 32;

export const USAGE = `Usage: npm start -- [options]

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
  --concurrency N    batches of each queue handled at once (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY}), as
                     Lambda runs concurrent invocations, each with its own copy of the function
  --json-logs        print the dispatcher's JSON log lines instead of the short ones
  -h, --help         this help`;

/** The options as given; an unknown one throws. */
export function readArgs() {
  return parseArgs({
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
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
}

export type StartArgs = ReturnType<typeof readArgs>;

/** The settings the options give, each checked; the first one wrong throws, naming its flag. */
export interface StartSettings {
  /** The dispatcher's health thresholds, as environment variables. */
  health: Record<string, string>;
  secretStore: SecretStore['kind'];
  apiPort: number | undefined;
  /** `--allow-port` and `WEBHOOKS_EXTRA_PORTS`. */
  extraPorts: number[];
  /** `--concurrency`: batches of each queue in flight at once. */
  concurrency: number;
}

export function checkSettings(args: StartArgs): StartSettings {
  return {
    health: parseHealth(args['failing-after'], args['disable-after']),
    secretStore: parseSecretStore(args['secret-store']),
    apiPort: args['api-port'] === undefined ? undefined : parseApiPort(args['api-port']),
    concurrency: args.concurrency === undefined ? DEFAULT_CONCURRENCY : parseConcurrency(args.concurrency),
    extraPorts: parsePorts([
      ...(args['allow-port'] ?? []),
      ...(process.env.WEBHOOKS_EXTRA_PORTS?.split(',').filter(Boolean) ?? []),
    ]),
  };
}

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_CONCURRENCY) {
    throw new Error(`--concurrency: "${value}" is not a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  return n;
}

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
