/**
 * Starts the local services once for the faults project (fauxqs in one child process,
 * dynalite and the local Secrets Manager in another) and hands their endpoints to the test
 * files in one environment variable. The standard AWS_ENDPOINT_URL_* variables are left
 * alone: every fault scenario builds its clients explicitly (direct, or through a proxy).
 */
import { type RunningServices, SERVICES_ENV, startServices } from '../support/emulators';

export const SERVICES_KEY = '__WEBHOOKS_FAULTS_SERVICES__';

export default async function globalSetup(): Promise<void> {
  const services = await startServices({ timeoutMs: 60_000 });
  (globalThis as Record<string, unknown>)[SERVICES_KEY] = services satisfies RunningServices;
  process.env[SERVICES_ENV] = JSON.stringify(services.info);
}
