import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { SecretsManagerSigningSecrets } from '../../../lambdas/adapters/secrets/signing-secrets';
import type { Connection } from '../../../lambdas/core/types';

const sm = mockClient(SecretsManagerClient);
const arn = 'arn:aws:secretsmanager:us-east-1:1:secret:webhooks/con_a-AbCdEf';
const connection = (secretVersion?: string) =>
  ({ connectionId: 'con_a', secretArn: arn, secretVersion }) as Connection;

beforeEach(() => {
  sm.reset();
  sm.on(GetSecretValueCommand, { SecretId: arn, VersionId: 'v1' }).resolves({ SecretString: 'whsec_one' });
  sm.on(GetSecretValueCommand, { SecretId: arn, VersionId: 'v2' }).resolves({ SecretString: 'whsec_two' });
  sm.on(GetSecretValueCommand, { SecretId: arn, VersionId: undefined }).resolves({
    SecretString: 'whsec_current',
  });
});

describe('SecretsManagerSigningSecrets', () => {
  it('reads the version the connection names once, then serves it from memory', async () => {
    const secrets = new SecretsManagerSigningSecrets({ client: new SecretsManagerClient({}) });
    for (let i = 0; i < 50; i++) expect(await secrets.current(connection('v1'))).toBe('whsec_one');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('uses a rotated secret as soon as the connection names the new version', async () => {
    const secrets = new SecretsManagerSigningSecrets({ client: new SecretsManagerClient({}) });
    await secrets.current(connection('v1'));
    expect(await secrets.current(connection('v2'))).toBe('whsec_two');
    expect(sm.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input.VersionId)).toEqual([
      'v1',
      'v2',
    ]);
  });

  it('re-reads AWSCURRENT for a connection without a version after its TTL', async () => {
    const clock = { t: 0, now: () => clock.t };
    const secrets = new SecretsManagerSigningSecrets({
      client: new SecretsManagerClient({}),
      clock,
      currentTtlMs: 30_000,
    });
    await secrets.current(connection());
    clock.t = 29_000;
    await secrets.current(connection());
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    clock.t = 30_000;
    await secrets.current(connection());
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('keeps serving a cached secret while Secrets Manager is down', async () => {
    const secrets = new SecretsManagerSigningSecrets({ client: new SecretsManagerClient({}) });
    await secrets.current(connection('v1'));
    sm.reset();
    sm.on(GetSecretValueCommand).rejects(new Error('ServiceUnavailable'));
    expect(await secrets.current(connection('v1'))).toBe('whsec_one');
    await expect(secrets.current(connection('v2'))).rejects.toThrow('ServiceUnavailable');
  });
});
