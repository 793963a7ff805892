/**
 * Connection secrets sealed with one KMS key (`secretStore: 'kms'`, docs/design.md §5 "The KMS
 * secret store"). The secret lives in its connection item as a KMS ciphertext (`secretCiphertext`),
 * encrypted under an encryption context that names the connection and its application: KMS refuses
 * to decrypt a ciphertext copied into another connection's item. The dispatcher only decrypts; the
 * management library seals on create and rotate and decrypts for Show Secret.
 */

import { randomUUID } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { TtlCache } from '../../core/cache';
import { ConfigurationError } from '../../core/errors';
import type { Clock, SigningSecrets } from '../../core/ports';
import type { Connection } from '../../core/types';
import { encryptionContext } from './kms-context';

export { encryptionContext, KMS_CONTEXT_KEYS } from './kms-context';

/** A connection item of a `kms` store: its secret, sealed, beside the usual fields. */
export interface SealedSecretFields {
  /** The ARN of the key that sealed the secret (where a Secrets Manager store keeps the secret's ARN). */
  secretArn: string;
  /** A new id on each seal: the cache key of the decrypted secret. */
  secretVersion: string;
  /** Base64 of the KMS ciphertext blob. */
  secretCiphertext: string;
}

export type SealedConnection = Connection & Partial<Pick<SealedSecretFields, 'secretCiphertext'>>;

/** Why a sealed secret cannot be opened, whatever the number of tries: never the secret itself. */
export type SealedSecretProblem = 'not_sealed' | 'wrong_binding' | 'wrong_key';

/**
 * A connection's sealed secret does not open: it is missing (the connection predates the kms
 * store), or it was sealed for another connection or application, or under another key.
 */
export class SealedSecretError extends ConfigurationError {
  constructor(
    readonly connectionId: string,
    readonly problem: SealedSecretProblem,
    options?: { cause?: unknown },
  ) {
    super(
      'sealed_secret_unusable',
      `the secret of connection ${connectionId} cannot be opened: ${PROBLEMS[problem]}`,
      options,
    );
    this.name = 'SealedSecretError';
  }
}

const PROBLEMS: Record<SealedSecretProblem, string> = {
  not_sealed: 'its item holds no KMS-sealed secret (was it created with the secrets-manager store?)',
  wrong_binding:
    'KMS refused the ciphertext for this connection and application (was it copied from another item?)',
  wrong_key: "it was sealed under another KMS key than the stack's",
};

/** Seals and opens connection secrets with one key. */
export class KmsSecretSealer {
  constructor(
    private readonly client: KMSClient,
    /** Key id, ARN or alias of the stack's key. */
    private readonly keyId: string,
  ) {}

  /** Encrypts a new secret for this connection; the fields to store in its item. */
  async seal(
    ids: { connectionId: string; applicationId: string },
    secret: string,
  ): Promise<SealedSecretFields> {
    const out = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(secret, 'utf8'),
        EncryptionContext: encryptionContext(ids),
      }),
    );
    if (!out.CiphertextBlob || !out.KeyId) throw new Error('KMS Encrypt returned no ciphertext');
    return {
      secretArn: out.KeyId,
      secretVersion: randomUUID(),
      secretCiphertext: Buffer.from(out.CiphertextBlob).toString('base64'),
    };
  }

  /**
   * Decrypts the secret of this connection item.
   * @throws SealedSecretError when it can never open (missing, bound elsewhere, other key).
   */
  async open(connection: SealedConnection): Promise<string> {
    const { connectionId, secretCiphertext } = connection;
    if (!secretCiphertext) throw new SealedSecretError(connectionId, 'not_sealed');
    let plaintext: Uint8Array | undefined;
    try {
      const out = await this.client.send(
        new DecryptCommand({
          // Naming the key makes KMS refuse a ciphertext of any other key.
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(secretCiphertext, 'base64'),
          EncryptionContext: encryptionContext(connection),
        }),
      );
      plaintext = out.Plaintext;
    } catch (error) {
      const name = (error as { name?: string })?.name;
      // KMS answers a wrong context or a tampered blob alike: InvalidCiphertextException.
      if (name === 'InvalidCiphertextException')
        throw new SealedSecretError(connectionId, 'wrong_binding', { cause: error });
      if (name === 'IncorrectKeyException')
        throw new SealedSecretError(connectionId, 'wrong_key', { cause: error });
      throw error;
    }
    if (!plaintext) throw new Error(`KMS Decrypt returned no plaintext for connection ${connectionId}`);
    return Buffer.from(plaintext).toString('utf8');
  }
}

const MAX_ENTRIES = 10_000;
const CACHE_TTL_MS = 24 * 60 * 60 * 1000;

export interface KmsSigningSecretsOptions {
  /** Key id, ARN or alias of the stack's key. */
  keyId: string;
  client?: KMSClient;
  clock?: Clock;
}

/**
 * SigningSecrets of a `kms` store. Decrypted secrets are cached by (connection, version), as
 * the Secrets Manager adapter caches by (secret, version): steady traffic makes no KMS call,
 * and a rotation (a new version in the item) is picked up when the cached connection refreshes.
 */
export class KmsSigningSecrets implements SigningSecrets {
  private readonly sealer: KmsSecretSealer;
  private readonly cache: TtlCache<string>;

  constructor(options: KmsSigningSecretsOptions) {
    this.sealer = new KmsSecretSealer(options.client ?? new KMSClient({}), options.keyId);
    this.cache = new TtlCache(CACHE_TTL_MS, MAX_ENTRIES, options.clock ?? { now: () => Date.now() });
  }

  current(connection: Connection): Promise<string> {
    const sealed = connection as SealedConnection;
    // The application is part of the key: the context binds both, so must the cache.
    const key = `${sealed.connectionId}#${sealed.applicationId}#${sealed.secretVersion ?? ''}#${sealed.secretCiphertext ?? ''}`;
    return this.cache.getOrLoad(key, () => this.sealer.open(sealed));
  }
}
