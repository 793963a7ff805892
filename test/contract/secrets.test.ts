/**
 * The signing secrets' contract (core/ports.ts SigningSecrets), run against
 * test/support/memory/secrets.ts and lambdas/adapters/secrets/signing-secrets.ts on the local
 * Secrets Manager: a connection is signed with the secret version it names, the newest when it
 * names none, and a secret nobody stored is refused, never replaced by another.
 */

import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SecretsManagerSigningSecrets } from '../../lambdas/adapters/secrets/signing-secrets';
import type { SigningSecrets } from '../../lambdas/core/ports';
import type { Connection } from '../../lambdas/core/types';
import { connection, id } from '../support/fixtures';
import { MemorySigningSecrets } from '../support/memory';
import { contract } from './contract';

interface SecretsUnderTest {
  secrets: SigningSecrets;
  /** Stores a new secret: its ARN and first version. */
  create(value: string): Promise<{ secretArn: string; secretVersion: string }>;
  /** Stores a new version of it (the current one from now on). */
  rotate(secretArn: string, value: string): Promise<string>;
}

const sm = new SecretsManagerClient({});
afterAll(() => sm.destroy());

function onSecretsManager(): SecretsUnderTest {
  return {
    secrets: new SecretsManagerSigningSecrets({ client: sm }),
    async create(value) {
      const out = await sm.send(
        new CreateSecretCommand({ Name: `webhooks-contract/${id('sec')}`, SecretString: value }),
      );
      return { secretArn: out.ARN!, secretVersion: out.VersionId! };
    },
    async rotate(secretArn, value) {
      return (await sm.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: value })))
        .VersionId!;
    },
  };
}

function inMemory(): SecretsUnderTest {
  const secrets = new MemorySigningSecrets();
  return {
    secrets,
    async create(value) {
      const stored = { secretArn: `arn:memory:secret:${id('sec')}`, secretVersion: id('ver') };
      secrets.put(stored.secretArn, stored.secretVersion, value);
      return stored;
    },
    async rotate(secretArn, value) {
      const version = id('ver');
      secrets.put(secretArn, version, value);
      return version;
    },
  };
}

const signedWith = (fields: Partial<Connection>) => connection(id('con'), fields);

contract('SigningSecrets', { memory: inMemory, emulators: onSecretsManager }, (make) => {
  it('signs with the version the connection names, old and new alike after a rotation', async () => {
    const { secrets, create, rotate } = make();
    const first = await create('whsec_first');
    const second = await rotate(first.secretArn, 'whsec_second');
    expect(await secrets.current(signedWith(first))).toBe('whsec_first');
    expect(await secrets.current(signedWith({ secretArn: first.secretArn, secretVersion: second }))).toBe(
      'whsec_second',
    );
  });

  it('signs with the newest version when the connection names none', async () => {
    const { secrets, create, rotate } = make();
    const { secretArn } = await create('whsec_first');
    await rotate(secretArn, 'whsec_newest');
    expect(await secrets.current(signedWith({ secretArn, secretVersion: undefined }))).toBe('whsec_newest');
  });

  it('refuses a secret or a version nobody stored', async () => {
    const { secrets, create } = make();
    const { secretArn } = await create('whsec_first');
    const missing = `${secretArn.slice(0, secretArn.lastIndexOf(':') + 1)}${id('nothing')}`;
    await expect(secrets.current(signedWith({ secretArn: missing }))).rejects.toThrow();
    await expect(secrets.current(signedWith({ secretArn, secretVersion: id('ver') }))).rejects.toThrow();
  });
});
