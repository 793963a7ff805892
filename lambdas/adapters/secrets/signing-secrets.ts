/**
 * SigningSecrets on Secrets Manager. Secrets are cached by (secret, version): the
 * connection record names the version to sign with, so steady traffic makes no Secrets
 * Manager call; during a rotation the core asks for the current and the next version
 * (core/secret-switch.ts), each its own entry. A connection without a version reads AWSCURRENT,
 * cached for at most `currentTtlMs`.
 */

import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { TtlCache } from '../../core/cache';
import type { Clock, SigningSecrets } from '../../core/ports';
import type { Connection } from '../../core/types';

const MAX_ENTRIES = 10_000;
const VERSIONED_TTL_MS = 24 * 60 * 60 * 1000;

export interface SecretsManagerSigningSecretsOptions {
  client?: SecretsManagerClient;
  clock?: Clock;
  /** Cache time of a secret read without a version (AWSCURRENT). @default 30 000 */
  currentTtlMs?: number;
}

export class SecretsManagerSigningSecrets implements SigningSecrets {
  private readonly client: SecretsManagerClient;
  private readonly versioned: TtlCache<string>;
  private readonly unversioned: TtlCache<string>;

  constructor(options: SecretsManagerSigningSecretsOptions = {}) {
    this.client = options.client ?? new SecretsManagerClient({});
    const clock = options.clock ?? { now: () => Date.now() };
    this.versioned = new TtlCache(VERSIONED_TTL_MS, MAX_ENTRIES, clock);
    this.unversioned = new TtlCache(options.currentTtlMs ?? 30_000, MAX_ENTRIES, clock);
  }

  async current(connection: Connection): Promise<string> {
    const { secretArn, secretVersion } = connection;
    if (!secretVersion) return this.unversioned.getOrLoad(secretArn, () => this.read(secretArn));
    return this.versioned.getOrLoad(`${secretArn}#${secretVersion}`, () =>
      this.read(secretArn, secretVersion),
    );
  }

  private async read(secretId: string, versionId?: string): Promise<string> {
    const out = await this.client.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionId: versionId }),
    );
    if (!out.SecretString) throw new Error(`secret ${secretId} has no string value`);
    return out.SecretString;
  }
}
