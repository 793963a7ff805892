/**
 * The contract suite's one helper (the `drivertest` pattern of hookdeck/outpost: each store has
 * a driver, an in-memory driver, and one shared suite both must pass). A port's behaviour tests
 * are written once, against the port's interface, and run against every implementation: the
 * in-memory one under test/support/memory/ and the production adapter on the emulators the
 * project's global setup starts (dynalite, fauxqs, the local Secrets Manager). Tests make their
 * own ids, so they share the emulators' tables with nothing to clean up.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { lightDocumentClient } from '../../lambdas/adapters/dynamodb/light-client';

/**
 * How to make the port under each implementation (a fresh instance per test); `light`: the
 * production adapter on the emulators through the dispatcher's document client (light-client.ts).
 */
export type Implementations<T> = { memory: () => T; emulators: () => T; light?: () => T };

/** The dispatcher's document client, on the emulators the global setup points the SDK at. */
export const lightClient = () => lightDocumentClient(new DynamoDBClient({}));

export function contract<T>(
  port: string,
  implementations: Implementations<T>,
  suite: (make: () => T) => void,
): void {
  describe.each(Object.keys(implementations) as (keyof Implementations<T>)[])(`${port} (%s)`, (name) => {
    suite(() => implementations[name]!());
  });
}
