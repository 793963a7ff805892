/** Rotation meets a deleted connection: the keeper says "not found", never a raw SDK error (a 500). */

import {
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { SecretsManagerKeeper } from '../../../lambdas/adapters/secrets/keepers';
import type { Connection } from '../../../lambdas/core/types';
import { NotFoundError } from '../../../lambdas/management/errors';

const sm = mockClient(SecretsManagerClient);
const arn = 'arn:aws:secretsmanager:us-east-1:1:secret:webhooks/con_a-AbCdEf';
const connection = { connectionId: 'con_a', secretArn: arn, secretVersion: 'v1' } as Connection;

beforeEach(() => sm.reset());

describe('SecretsManagerKeeper.rotate', () => {
  it('writes a new version and names it', async () => {
    sm.on(PutSecretValueCommand, { SecretId: arn, SecretString: 'whsec_new' }).resolves({ VersionId: 'v2' });
    const keeper = new SecretsManagerKeeper(new SecretsManagerClient({}), 'webhooks/');
    expect(await keeper.rotate(connection, 'whsec_new')).toEqual({ secretArn: arn, secretVersion: 'v2' });
  });

  it('answers NotFoundError when the connection and its secret were deleted meanwhile', async () => {
    sm.on(PutSecretValueCommand).rejects(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: {},
      }),
    );
    const keeper = new SecretsManagerKeeper(new SecretsManagerClient({}), 'webhooks/');
    const failed = await keeper.rotate(connection, 'whsec_new').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(NotFoundError);
    expect((failed as NotFoundError).message).toBe('connection con_a does not exist');
  });
});
