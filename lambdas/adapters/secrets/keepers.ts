/**
 * Where the management library keeps connection secrets (docs/design.md §5 "The KMS secret store"):
 * one Secrets Manager secret per connection (the default), or sealed with the stack's KMS key in
 * the connection item. Both give the fields the connection item stores; a rotation gives new ones,
 * which the management library keeps as the pending secret until its switch time
 * (management/secret-rotation.ts). On Secrets Manager the AWSCURRENT label moves to the new
 * version at once, as PutSecretValue does: the item, not the label, names the version that signs.
 */

import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SecretFields } from '../../core/stores';
import type { Connection } from '../../core/types';
import { NotFoundError } from '../../management/errors';
import type { NewSecretOf, SecretKeeper } from '../../management/ports';
import type { KmsSecretSealer, SealedConnection } from './kms-sealed';

/** One Secrets Manager secret per connection, named `<prefix><connectionId>`, versions for rotation. */
export class SecretsManagerKeeper implements SecretKeeper {
  constructor(
    private readonly sm: SecretsManagerClient,
    private readonly prefix: string,
  ) {}

  async create(owner: NewSecretOf, secret: string): Promise<SecretFields> {
    const out = await this.sm.send(
      new CreateSecretCommand({
        Name: `${this.prefix}${owner.connectionId}`,
        SecretString: secret,
        Description: `Webhook signing secret of ${owner.connectionId} (${owner.name})`,
        Tags: [
          { Key: 'webhooks:connectionId', Value: owner.connectionId },
          { Key: 'webhooks:applicationId', Value: owner.applicationId },
        ],
      }),
    );
    return { secretArn: out.ARN!, secretVersion: out.VersionId! };
  }

  async discard(fields: SecretFields): Promise<void> {
    await this.sm
      .send(new DeleteSecretCommand({ SecretId: fields.secretArn, ForceDeleteWithoutRecovery: true }))
      .catch(() => undefined);
  }

  async reveal(connection: Connection): Promise<{ secret: string; secretVersion?: string }> {
    const out = await this.sm.send(
      new GetSecretValueCommand({ SecretId: connection.secretArn, VersionId: connection.secretVersion }),
    );
    if (!out.SecretString) throw new NotFoundError('secret', connection.connectionId);
    return { secret: out.SecretString, secretVersion: out.VersionId };
  }

  async rotate(connection: Connection, secret: string): Promise<SecretFields> {
    try {
      const out = await this.sm.send(
        new PutSecretValueCommand({ SecretId: connection.secretArn, SecretString: secret }),
      );
      return { secretArn: connection.secretArn, secretVersion: out.VersionId! };
    } catch (error) {
      // The connection was deleted meanwhile, and its secret with it.
      if (error instanceof ResourceNotFoundException)
        throw new NotFoundError('connection', connection.connectionId);
      throw error;
    }
  }

  async remove(connection: Connection): Promise<void> {
    try {
      await this.sm.send(
        new DeleteSecretCommand({ SecretId: connection.secretArn, ForceDeleteWithoutRecovery: true }),
      );
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}

/**
 * Secrets sealed with the stack's KMS key in the connection item, bound to the connection and
 * its application by the encryption context. Nothing to discard or remove: the ciphertext
 * goes with its item.
 */
export class KmsKeeper implements SecretKeeper {
  constructor(private readonly sealer: KmsSecretSealer) {}

  create(owner: NewSecretOf, secret: string): Promise<SecretFields> {
    return this.sealer.seal(owner, secret);
  }

  async discard(): Promise<void> {}

  async reveal(connection: Connection): Promise<{ secret: string; secretVersion?: string }> {
    const secret = await this.sealer.open(connection as SealedConnection);
    return { secret, secretVersion: connection.secretVersion };
  }

  rotate(connection: Connection, secret: string): Promise<SecretFields> {
    return this.sealer.seal(connection, secret);
  }

  async remove(): Promise<void> {}
}
