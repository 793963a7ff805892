/**
 * Where global-setup leaves the emulators for global-teardown (same Jest process).
 *
 * Jest runs every project's global setup before any test, in one process and one `globalThis`,
 * and test workers inherit `process.env` as it stands after the last setup. The integration and
 * browser projects both need the emulators: the first setup starts them, the second shares them
 * (one user more), and the last teardown stops them. Starting a second set would leave the first
 * running with nothing pointing at it, and Jest would never exit (CI timed out that way).
 */
import type { LocalAws } from '../../support/emulators';

export const EMULATORS_KEY = '__WEBHOOKS_EMULATORS_PROCESS__';

export interface SharedEmulators {
  aws: LocalAws;
  users: number;
}
