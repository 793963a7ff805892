/**
 * Signing secrets in memory, as lambdas/adapters/secrets/signing-secrets.ts reads them from
 * Secrets Manager: by the connection's secret and the version it names (the newest when it
 * names none); a secret nobody stored is refused. `otherwise` gives every connection without a
 * stored secret one shared secret, for tests whose connections are fixtures.
 */

import type { SigningSecrets } from '../../../lambdas/core/ports';
import type { Connection } from '../../../lambdas/core/types';
import { checkOutage, noOutage, type Outage } from './outage';

export class MemorySigningSecrets implements SigningSecrets {
  /** Versions of each secret, oldest first. */
  private readonly secrets = new Map<string, Array<{ version: string; value: string }>>();

  constructor(
    private readonly options: {
      otherwise?: string;
      /** Operations: current. */
      outage?: Outage;
    } = {},
  ) {}

  /** Stores a new version of a secret (the current one from now on). */
  put(secretArn: string, version: string, value: string): void {
    this.secrets.set(secretArn, [...(this.secrets.get(secretArn) ?? []), { version, value }]);
  }

  async current(connection: Connection): Promise<string> {
    checkOutage(this.options.outage ?? noOutage, 'current', 'Secrets Manager');
    const versions = this.secrets.get(connection.secretArn);
    const found = connection.secretVersion
      ? versions?.find((v) => v.version === connection.secretVersion)
      : versions?.at(-1);
    if (found) return found.value;
    if (this.options.otherwise !== undefined) return this.options.otherwise;
    throw Object.assign(new Error(`secret ${connection.secretArn} not found`), {
      name: 'ResourceNotFoundException',
    });
  }
}
