import { DecryptCommand, EncryptCommand, InvalidCiphertextException, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import {
  encryptionContext,
  KmsSecretSealer,
  KmsSigningSecrets,
  type SealedConnection,
  SealedSecretError,
} from '../../../lambdas/adapters/secrets/kms-sealed';

const kms = mockClient(KMSClient);
const keyArn = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMw==';

const connection = (over: Partial<SealedConnection> = {}) =>
  ({
    connectionId: 'con_a',
    applicationId: 'app_1',
    secretArn: keyArn,
    secretVersion: 'v1',
    secretCiphertext: Buffer.from('sealed-a').toString('base64'),
    ...over,
  }) as SealedConnection;

beforeEach(() => {
  kms.reset();
  kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('sealed-a'), KeyId: keyArn });
  kms
    .on(DecryptCommand, {
      EncryptionContext: encryptionContext({ connectionId: 'con_a', applicationId: 'app_1' }),
    })
    .resolves({ Plaintext: Buffer.from(SECRET), KeyId: keyArn });
  kms
    .on(DecryptCommand, {
      EncryptionContext: encryptionContext({ connectionId: 'con_b', applicationId: 'app_1' }),
    })
    .rejects(new InvalidCiphertextException({ message: 'invalid', $metadata: {} }));
});

describe('KmsSecretSealer', () => {
  it('seals with the stack key and an encryption context naming the connection and its application', async () => {
    const sealer = new KmsSecretSealer(new KMSClient({}), keyArn);
    const fields = await sealer.seal({ connectionId: 'con_a', applicationId: 'app_1' }, SECRET);
    const input = kms.commandCalls(EncryptCommand)[0]!.args[0].input;
    expect(input.KeyId).toBe(keyArn);
    expect(Buffer.from(input.Plaintext!).toString()).toBe(SECRET);
    expect(input.EncryptionContext).toEqual({
      'webhooks:connectionId': 'con_a',
      'webhooks:applicationId': 'app_1',
    });
    expect(fields).toEqual({
      secretArn: keyArn,
      secretVersion: expect.stringMatching(/^[0-9a-f-]{36}$/),
      secretCiphertext: Buffer.from('sealed-a').toString('base64'),
    });
    expect(JSON.stringify(fields)).not.toContain(SECRET);
  });

  it('gives each seal a new version, so a rotation is a new cache entry', async () => {
    const sealer = new KmsSecretSealer(new KMSClient({}), keyArn);
    const a = await sealer.seal({ connectionId: 'con_a', applicationId: 'app_1' }, SECRET);
    const b = await sealer.seal({ connectionId: 'con_a', applicationId: 'app_1' }, SECRET);
    expect(a.secretVersion).not.toBe(b.secretVersion);
  });

  it('decrypts naming the stack key, so a ciphertext of another key is refused by KMS', async () => {
    const sealer = new KmsSecretSealer(new KMSClient({}), keyArn);
    expect(await sealer.open(connection())).toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input.KeyId).toBe(keyArn);
  });
});

describe('KmsSigningSecrets', () => {
  it('decrypts a version once, then signs from memory: a delivery makes no KMS call', async () => {
    const secrets = new KmsSigningSecrets({ keyId: keyArn, client: new KMSClient({}) });
    for (let i = 0; i < 50; i++) expect(await secrets.current(connection())).toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
  });

  it('decrypts again when the connection names a new version (rotation)', async () => {
    const secrets = new KmsSigningSecrets({ keyId: keyArn, client: new KMSClient({}) });
    await secrets.current(connection());
    await secrets.current(connection({ secretVersion: 'v2' }));
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(2);
  });

  it('refuses a ciphertext copied into another connection with a named error that carries no secret', async () => {
    const secrets = new KmsSigningSecrets({ keyId: keyArn, client: new KMSClient({}) });
    await secrets.current(connection()); // cached for con_a: the copy must not hit that entry
    const error = await secrets.current(connection({ connectionId: 'con_b' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SealedSecretError);
    expect(error).toMatchObject({
      name: 'SealedSecretError',
      connectionId: 'con_b',
      problem: 'wrong_binding',
    });
    expect((error as Error).message).toMatch(/con_b.*copied from another item/);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('refuses an item without a sealed secret without calling KMS', async () => {
    const secrets = new KmsSigningSecrets({ keyId: keyArn, client: new KMSClient({}) });
    await expect(secrets.current(connection({ secretCiphertext: undefined }))).rejects.toMatchObject({
      name: 'SealedSecretError',
      problem: 'not_sealed',
    });
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);
  });

  it('passes other KMS failures through unchanged (throttling is retried, not refused)', async () => {
    kms
      .on(DecryptCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const secrets = new KmsSigningSecrets({ keyId: keyArn, client: new KMSClient({}) });
    await expect(secrets.current(connection())).rejects.toMatchObject({ name: 'ThrottlingException' });
  });
});
