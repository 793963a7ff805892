/**
 * The optional peer dependencies of the package's entry points (docs/libraries.md, docs/design.md
 * §11 "Packaging"): each entry checks its own before it loads them, so an app that lacks one gets
 * one line naming what to install instead of `Cannot find module` and a require stack.
 */

import { ConfigurationError } from './core/errors';

/** The peers each entry point loads, by its name in package.json `exports`. */
export const ENTRY_PEERS = {
  'serverless-webhooks/publisher': ['@aws-sdk/client-sqs'],
  'serverless-webhooks/management': [
    '@aws-sdk/client-sqs',
    '@aws-sdk/client-dynamodb',
    '@aws-sdk/lib-dynamodb',
    '@aws-sdk/client-secrets-manager',
    '@aws-sdk/client-kms',
    '@aws-sdk/client-sns',
    '@aws-sdk/client-cloudformation',
  ],
  'serverless-webhooks/cdk': ['aws-cdk-lib', 'constructs'],
} as const;

export type PeeredEntry = keyof typeof ENTRY_PEERS;

/** An entry point was loaded in an app that has not installed the peers it needs. */
export class MissingPeerDependencyError extends ConfigurationError {
  declare readonly entry: string;
  declare readonly missing: readonly string[];

  constructor(entry: string, missing: readonly string[]) {
    super(
      'missing_peer_dependency',
      `${entry} needs ${missing.join(', ')}: npm install ${missing.join(' ')}`,
    );
    // The one line says it all: no frames of the module loader under it, and no fields printed
    // after it when Node reports the error uncaught (they are there for code that catches it).
    Object.defineProperties(this, {
      name: { value: 'MissingPeerDependencyError', configurable: true, writable: true, enumerable: false },
      code: { value: this.code, enumerable: false },
      stage: { value: this.stage, enumerable: false },
      entry: { value: entry },
      missing: { value: missing },
    });
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * Throws {@link MissingPeerDependencyError} naming every peer of `entry` that `resolve` cannot
 * find (it resolves as the entry's own `require` would: from the app's node_modules).
 */
export function requirePeers(entry: PeeredEntry, resolve: (id: string) => unknown = require.resolve): void {
  const missing = ENTRY_PEERS[entry].filter((peer) => {
    try {
      resolve(peer);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) throw new MissingPeerDependencyError(entry, missing);
}
