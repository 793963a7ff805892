/**
 * The composition root (docs/design.md §2, rule 8): the one place that builds a
 * deployment's SDK clients (clients.ts) and adapters (adapters.ts) and hands them down, to the
 * dispatcher (dispatcher.ts `wireDispatcher`, test sends) and to the management library, the
 * API, the CLI and local mode (management.ts `createBackend`). The dispatcher Lambda imports
 * dispatcher.ts alone, so its bundle carries none of the management side.
 */

export type { DeploymentAdapters } from './adapters';
export { deploymentAdapters } from './adapters';
export { type AwsClients, awsClients, type SharedClients } from './clients';
export {
  type InvocationHooks,
  type TestSendConfig,
  type Wired,
  type WiringOptions,
  wireDispatcher,
  wireTestSends,
} from './dispatcher';
export {
  type BackendOptions,
  createBackend,
  resourcesFromStack,
  StackNotFoundError,
  type StatsClients,
} from './management';
