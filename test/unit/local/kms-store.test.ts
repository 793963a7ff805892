import { KmsError, KmsStore, LOCAL_KMS_ALIAS, localKeyArn } from '../../../local/kms-store';

const context = { 'webhooks:connectionId': 'con_a', 'webhooks:applicationId': 'app_1' };
const b64 = (text: string) => Buffer.from(text).toString('base64');

function typeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof KmsError ? error.type : `not a KmsError: ${String(error)}`;
  }
  return undefined;
}

describe('the local KMS key store', () => {
  it('round-trips with the same context, in any key order, and never returns the plaintext in the ciphertext', () => {
    const store = new KmsStore('us-east-1');
    const sealed = store.handle('Encrypt', {
      KeyId: LOCAL_KMS_ALIAS,
      Plaintext: b64('whsec_x'),
      EncryptionContext: context,
    });
    expect(sealed.KeyId).toBe(localKeyArn('us-east-1'));
    expect(Buffer.from(sealed.CiphertextBlob as string, 'base64').toString('latin1')).not.toContain(
      'whsec_x',
    );
    const reversed = { 'webhooks:applicationId': 'app_1', 'webhooks:connectionId': 'con_a' };
    const opened = store.handle('Decrypt', {
      CiphertextBlob: sealed.CiphertextBlob,
      EncryptionContext: reversed,
    });
    expect(Buffer.from(opened.Plaintext as string, 'base64').toString()).toBe('whsec_x');
  });

  it('refuses another context, a tampered blob and another key by the names AWS KMS uses', () => {
    const store = new KmsStore('us-east-1');
    const { CiphertextBlob } = store.handle('Encrypt', {
      KeyId: localKeyArn('us-east-1'),
      Plaintext: b64('whsec_x'),
      EncryptionContext: context,
    });
    const other = { ...context, 'webhooks:connectionId': 'con_b' };
    expect(typeOf(() => store.handle('Decrypt', { CiphertextBlob, EncryptionContext: other }))).toBe(
      'InvalidCiphertextException',
    );
    const tampered = Buffer.from(CiphertextBlob as string, 'base64');
    tampered[tampered.length - 1]! ^= 1;
    expect(
      typeOf(() =>
        store.handle('Decrypt', { CiphertextBlob: tampered.toString('base64'), EncryptionContext: context }),
      ),
    ).toBe('InvalidCiphertextException');
    expect(
      typeOf(() =>
        store.handle('Decrypt', { KeyId: 'alias/other', CiphertextBlob, EncryptionContext: context }),
      ),
    ).toBe('IncorrectKeyException');
    expect(typeOf(() => store.handle('Encrypt', { KeyId: 'alias/other', Plaintext: b64('x') }))).toBe(
      'NotFoundException',
    );
    expect(typeOf(() => store.handle('CreateKey', {}))).toBe('UnsupportedOperationException');
  });

  it('keeps its key in local state: a ciphertext still opens after a restart', () => {
    let saved: { keyMaterial: string } | undefined;
    const first = new KmsStore('us-east-1', (s) => {
      saved = s;
    });
    const { CiphertextBlob } = first.handle('Encrypt', {
      KeyId: LOCAL_KMS_ALIAS,
      Plaintext: b64('whsec_x'),
      EncryptionContext: context,
    });
    const again = new KmsStore('us-east-1', undefined, saved);
    const opened = again.handle('Decrypt', { CiphertextBlob, EncryptionContext: context });
    expect(Buffer.from(opened.Plaintext as string, 'base64').toString()).toBe('whsec_x');
    expect(
      typeOf(() =>
        new KmsStore('us-east-1').handle('Decrypt', { CiphertextBlob, EncryptionContext: context }),
      ),
    ).toBe('InvalidCiphertextException');
  });
});
