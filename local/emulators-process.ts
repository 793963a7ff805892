/**
 * Process entry of local mode's AWS side: `node --import tsx local/emulators-process.ts
 * [--persist DIR] [--region R] [--visibility-timeout S]`.
 *
 * Starts the emulators, creates the resources and a throwaway PKI, then prints ONE JSON
 * line on stdout: `{"ready":true, endpoints, resources, env, caPem, caFile, certFile, keyFile}`
 * (`env` is what points unchanged SDK clients and the dispatcher config at the emulators).
 * Human-readable messages go to stderr. It exits with code 0 on SIGINT/SIGTERM, or when
 * its stdin pipe closes, so a parent that dies never leaves it running; code 1 if start-up fails.
 */
import { fstatSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrapResources, localEnv } from './bootstrap';
import { type LocalEmulators, startEmulators } from './emulators';
import { createLocalPki } from './tls';

/** The first stdout line of this process, parsed. */
export interface EmulatorsReady {
  readonly ready: true;
  readonly endpoints: LocalEmulators['endpoints'];
  readonly resources: Awaited<ReturnType<typeof bootstrapResources>>;
  readonly env: Record<string, string>;
  readonly caPem: string;
  /** The CA in a file, for `NODE_EXTRA_CA_CERTS`. */
  readonly caFile: string;
  /** Server certificate and key for local HTTPS receivers (valid for 127.0.0.1, localhost, ::1). */
  readonly certFile: string;
  readonly keyFile: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      persist: { type: 'string' },
      region: { type: 'string' },
      'visibility-timeout': { type: 'string' },
    },
  });
  const visibility = values['visibility-timeout'];
  const visibilityTimeoutSeconds = visibility === undefined ? undefined : Number(visibility);
  if (visibilityTimeoutSeconds !== undefined && !Number.isInteger(visibilityTimeoutSeconds)) {
    throw new Error(`--visibility-timeout must be whole seconds, got "${visibility}"`);
  }

  const emulators = await startEmulators({
    persistDir: values.persist,
    persistQueues: true,
    region: values.region,
  });
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-local-'));
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    let code = 0;
    try {
      await emulators.stop();
    } catch (error) {
      console.error(`Local emulators: stop after ${why} was not clean`, error);
      code = 1;
    }
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  if (stdinIsPipe()) {
    process.stdin.on('end', () => void shutdown('stdin closed'));
    process.stdin.on('error', () => void shutdown('stdin error'));
    process.stdin.resume();
  }

  try {
    const resources = await bootstrapResources(emulators, { visibilityTimeoutSeconds });
    const pki = createLocalPki();
    const caFile = join(dir, 'ca.pem');
    const certFile = join(dir, 'server.pem');
    const keyFile = join(dir, 'server-key.pem');
    writeFileSync(caFile, pki.caPem);
    writeFileSync(certFile, pki.certPem);
    writeFileSync(keyFile, pki.keyPem, { mode: 0o600 });
    const ready: EmulatorsReady = {
      ready: true,
      endpoints: emulators.endpoints,
      resources,
      env: localEnv(emulators.endpoints, resources, emulators.region),
      caPem: pki.caPem,
      caFile,
      certFile,
      keyFile,
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
    const { sqs, dynamodb, secretsManager } = emulators.endpoints;
    console.error(
      `Local AWS ready (${emulators.region}): SQS ${sqs}, DynamoDB ${dynamodb}, Secrets Manager ${secretsManager}` +
        (values.persist ? `, state in ${values.persist}` : ', in memory'),
    );
  } catch (error) {
    await emulators.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Only a pipe (or socket) tells us the parent is gone when it closes; /dev/null or a TTY would not. */
function stdinIsPipe(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

main().catch((error: unknown) => {
  console.error('Local emulators failed to start:', error);
  process.exit(1);
});
