/**
 * One or more local AWS services in their own process, for the reliability harness:
 * `node --import tsx bench/reliability/services-process.ts sqs` (or `dynamodb`,
 * `secretsmanager`, several separated by commas). Splitting fauxqs and dynalite across two
 * processes lets a load run use both cores. Prints one JSON line
 * `{"ready":true,"endpoints":{…}}`, exits on SIGTERM or when stdin closes.
 */
import dynalite from 'dynalite';
import { LOCAL_REGION } from '../../local/constants';
import { startLocalSqs } from '../../local/fauxqs';
import { close, listen } from '../../local/listen';
import { startSecretsManager } from '../../local/secrets-manager';
import { exitWithParent } from './child';

export type ServiceName = 'sqs' | 'dynamodb' | 'secretsManager';

export interface ServicesReady {
  readonly ready: true;
  readonly endpoints: Partial<Record<ServiceName, string>>;
}

/** dynalite keeps a table CREATING for this long (its default, 500 ms, only slows start-up). */
const TABLE_STATE_MS = 50;

async function start(name: ServiceName): Promise<{ endpoint: string; stop(): Promise<void> }> {
  switch (name) {
    case 'sqs':
      return startLocalSqs({ region: LOCAL_REGION });
    case 'secretsManager':
      return startSecretsManager({ region: LOCAL_REGION });
    case 'dynamodb': {
      const server = dynalite({
        createTableMs: TABLE_STATE_MS,
        deleteTableMs: TABLE_STATE_MS,
        updateTableMs: TABLE_STATE_MS,
      });
      const endpoint = await listen(server);
      return { endpoint, stop: () => close(server) };
    }
  }
}

async function main(): Promise<void> {
  const names = (process.argv[2] ?? '').split(',').filter(Boolean) as ServiceName[];
  const known: ServiceName[] = ['sqs', 'dynamodb', 'secretsManager'];
  const unknown = names.filter((n) => !known.includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`usage: services-process.ts ${known.join('|')}[,…] (got "${process.argv[2] ?? ''}")`);
  }
  const running = await Promise.all(names.map(start));
  let stopping = false;
  exitWithParent(() => {
    if (stopping) return;
    stopping = true;
    void Promise.allSettled(running.map((r) => r.stop())).then(() => process.exit(0));
  });
  const endpoints = Object.fromEntries(names.map((n, i) => [n, running[i]!.endpoint]));
  const ready: ServicesReady = { ready: true, endpoints };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((error: unknown) => {
  console.error('reliability services failed to start:', error);
  process.exit(1);
});
