/**
 * The one emulator host of tests and benchmarks: local mode's AWS services (local/fauxqs.ts,
 * local/emulators.ts, local/secrets-manager.ts) in a process of their own, since fauxqs is
 * ESM-only and cannot load inside Jest's sandbox:
 * `node --import tsx test/support/emulators-process.ts [sqs,dynamodb,secretsManager]`
 * (all four, the local KMS too, when no list is given). Splitting fauxqs and dynalite over two processes lets a
 * load run use both cores. Prints one JSON line `{"ready":true,"endpoints":{…}}`, exits on
 * SIGTERM or when stdin closes (test/support/child.ts).
 */
import { LOCAL_REGION } from '../../local/constants';
import { startDynamo } from '../../local/emulators';
import { startLocalSqs } from '../../local/fauxqs';
import { startKms } from '../../local/kms';
import { startSecretsManager } from '../../local/secrets-manager';
import { exitWithParent } from './child';

export type ServiceName = 'sqs' | 'dynamodb' | 'secretsManager' | 'kms';
export const SERVICE_NAMES: readonly ServiceName[] = ['sqs', 'dynamodb', 'secretsManager', 'kms'];

export interface EmulatorsReady {
  readonly ready: true;
  readonly endpoints: Partial<Record<ServiceName, string>>;
}

function start(name: ServiceName): Promise<{ endpoint: string; stop(): Promise<void> }> {
  switch (name) {
    case 'sqs':
      return startLocalSqs({ region: LOCAL_REGION });
    case 'secretsManager':
      return startSecretsManager({ region: LOCAL_REGION });
    case 'dynamodb':
      return startDynamo();
    case 'kms':
      return startKms({ region: LOCAL_REGION });
  }
}

async function main(): Promise<void> {
  const names = (process.argv[2] ?? SERVICE_NAMES.join(',')).split(',').filter(Boolean) as ServiceName[];
  const unknown = names.filter((n) => !SERVICE_NAMES.includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `usage: emulators-process.ts [${SERVICE_NAMES.join('|')}[,…]] (got "${process.argv[2]}")`,
    );
  }
  const started = await Promise.allSettled(names.map(start));
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.allSettled(running.map((r) => r.stop()));
    throw failed.reason;
  }
  let stopping = false;
  exitWithParent(() => {
    if (stopping) return;
    stopping = true;
    void Promise.allSettled(running.map((r) => r.stop())).then(() => process.exit(0));
  });
  const endpoints = Object.fromEntries(names.map((n, i) => [n, running[i]!.endpoint]));
  const ready: EmulatorsReady = { ready: true, endpoints };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((error: unknown) => {
  console.error('emulators failed to start:', error);
  process.exit(1);
});
