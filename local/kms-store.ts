/**
 * The rules behind the local KMS endpoint: one symmetric key (AES-256-GCM, its material kept in
 * local state) and exactly the calls the product makes: Encrypt and Decrypt with an encryption
 * context. The context is authenticated data, so a ciphertext only decrypts under the context
 * it was sealed with, as in AWS KMS. Anything else is refused by name, so a new call in the
 * product fails loudly in local mode. Transport-free: kms.ts maps actions and errors.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { InputError } from '../lambdas/core/errors';
import { LOCAL_ACCOUNT_ID } from './constants';

/** Local mode's one key: a fixed id, so local state names it before the endpoint starts. */
export const LOCAL_KMS_KEY_ID = '00000000-0000-4000-8000-00000000cafe';
export const LOCAL_KMS_ALIAS = 'alias/webhooks-local';

/** AWS KMS limits the product can run into. */
const MAX_PLAINTEXT_BYTES = 4_096;
const MAX_CIPHERTEXT_BYTES = 6_144;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** First byte of a local ciphertext blob: its format, so a foreign blob is refused by name. */
const FORMAT = 1;

/** An error AWS would return; `type` is the `__type` the SDK maps to its named exception. */
export class KmsError extends InputError {
  override readonly name = 'KmsError';
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(type, message);
  }
}

/** What local state keeps: the key material, base64. */
export interface KmsSnapshot {
  keyMaterial: string;
}

const invalidCiphertext = () =>
  new KmsError(
    'InvalidCiphertextException',
    'The ciphertext is invalid or its encryption context does not match.',
  );

export class KmsStore {
  readonly keyArn: string;
  private readonly material: Buffer;

  constructor(region: string, save?: (snapshot: KmsSnapshot) => void, snapshot?: KmsSnapshot) {
    this.keyArn = localKeyArn(region);
    if (snapshot) {
      this.material = Buffer.from(snapshot.keyMaterial, 'base64');
      if (this.material.length !== 32) throw new Error('The local KMS key material is not 32 bytes');
    } else {
      this.material = randomBytes(32);
      save?.({ keyMaterial: this.material.toString('base64') });
    }
  }

  handle(action: string, input: Record<string, unknown>): Record<string, unknown> {
    switch (action) {
      case 'Encrypt':
        return this.encrypt(input);
      case 'Decrypt':
        return this.decrypt(input);
      default:
        throw new KmsError('UnsupportedOperationException', `The local KMS does not serve ${action}.`);
    }
  }

  private encrypt(input: Record<string, unknown>): Record<string, unknown> {
    this.checkKey(input.KeyId, true);
    const plaintext = blob(input.Plaintext, 'Plaintext', MAX_PLAINTEXT_BYTES);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.material, iv);
    cipher.setAAD(contextBytes(input.EncryptionContext));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const ciphertext = Buffer.concat([Buffer.from([FORMAT]), iv, cipher.getAuthTag(), body]);
    return {
      CiphertextBlob: ciphertext.toString('base64'),
      KeyId: this.keyArn,
      EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
    };
  }

  private decrypt(input: Record<string, unknown>): Record<string, unknown> {
    if (input.KeyId !== undefined) this.checkKey(input.KeyId, false);
    const ciphertext = blob(input.CiphertextBlob, 'CiphertextBlob', MAX_CIPHERTEXT_BYTES);
    if (ciphertext.length < 1 + IV_BYTES + TAG_BYTES || ciphertext[0] !== FORMAT) throw invalidCiphertext();
    const iv = ciphertext.subarray(1, 1 + IV_BYTES);
    const tag = ciphertext.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.material, iv);
    decipher.setAAD(contextBytes(input.EncryptionContext));
    decipher.setAuthTag(tag);
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([
        decipher.update(ciphertext.subarray(1 + IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw invalidCiphertext();
    }
    return {
      Plaintext: plaintext.toString('base64'),
      KeyId: this.keyArn,
      EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
    };
  }

  /** The one key answers to its id, ARN and alias (and the alias ARN); any other is not found. */
  private checkKey(keyId: unknown, required: boolean): void {
    if (keyId === undefined && !required) return;
    if (typeof keyId !== 'string' || keyId === '')
      throw new KmsError('ValidationException', 'KeyId is required.');
    const names = [LOCAL_KMS_KEY_ID, this.keyArn, LOCAL_KMS_ALIAS, aliasArn(this.keyArn)];
    if (!names.includes(keyId)) {
      // AWS answers a Decrypt naming another key than the ciphertext's with IncorrectKeyException.
      throw required
        ? new KmsError('NotFoundException', `Key '${keyId}' does not exist.`)
        : new KmsError(
            'IncorrectKeyException',
            'The key ID in the request does not identify the key of the ciphertext.',
          );
    }
  }
}

export function localKeyArn(region: string): string {
  return `arn:aws:kms:${region}:${LOCAL_ACCOUNT_ID}:key/${LOCAL_KMS_KEY_ID}`;
}

function aliasArn(keyArn: string): string {
  return keyArn.replace(/:key\/.*$/, `:${LOCAL_KMS_ALIAS}`);
}

function blob(value: unknown, field: string, max: number): Buffer {
  if (typeof value !== 'string' || value === '')
    throw new KmsError('ValidationException', `${field} is required.`);
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0 || bytes.length > max)
    throw new KmsError('ValidationException', `${field} must be 1 to ${max} bytes.`);
  return bytes;
}

/** The context as authenticated data: key order does not matter, as in AWS KMS. */
function contextBytes(context: unknown): Buffer {
  if (context === undefined || context === null) return Buffer.alloc(0);
  if (typeof context !== 'object' || Array.isArray(context))
    throw new KmsError('ValidationException', 'EncryptionContext must be a map of strings.');
  const entries = Object.entries(context as Record<string, unknown>);
  for (const [, v] of entries) {
    if (typeof v !== 'string')
      throw new KmsError('ValidationException', 'EncryptionContext must be a map of strings.');
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify(entries), 'utf8');
}
