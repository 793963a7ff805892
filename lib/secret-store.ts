import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { KMS_CONTEXT_KEYS } from '../lambdas/adapters/secrets/kms-context';
import { ENV } from '../lambdas/config';

/**
 * Where connection secrets are kept (docs/design.md §5 "The KMS secret store"): the construct prop
 * `secretStore`.
 */
export type SecretStoreName = 'secrets-manager' | 'kms';

/** Create a connection's secret, show it, rotate it (new version), delete it with the connection. */
const SECRET_OPERATE_ACTIONS = [
  'secretsmanager:CreateSecret',
  'secretsmanager:PutSecretValue',
  'secretsmanager:GetSecretValue',
  'secretsmanager:DeleteSecret',
  'secretsmanager:TagResource',
];

/**
 * The connection secrets of one construct and who may use them. With `secrets-manager`, one
 * secret per connection under the prefix; with `kms`, a customer managed key (rotation on)
 * that seals each secret in its connection item, usable only with an encryption context that
 * names a connection and an application (both keys, no others).
 */
export class ConnectionSecretStore {
  /** The key that seals connection secrets; only with `kms`. */
  readonly key?: kms.Key;
  /** ARN pattern matching every connection secret under the prefix (`…:secret:<prefix>*`). */
  readonly secretArnPattern: string;

  constructor(
    scope: Construct,
    readonly kind: SecretStoreName,
    prefix: string,
    removalPolicy: RemovalPolicy,
  ) {
    // Secret ARNs end with a random 6-character suffix, so a name prefix needs the wildcard.
    this.secretArnPattern = Stack.of(scope).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${prefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    if (kind === 'kms') {
      this.key = new kms.Key(scope, 'SecretKey', {
        description: 'Seals the webhook connection secrets kept in the connections table',
        enableKeyRotation: true,
        // Deleting the key makes every connection secret unreadable: it stays unless told otherwise.
        removalPolicy,
      });
    }
  }

  /** The dispatcher's settings that name the store (lambdas/config.ts). */
  settings(): { secretStore: SecretStoreName; secretKeyArn: string } {
    return { secretStore: this.kind, secretKeyArn: this.key?.keyArn ?? '' };
  }

  /** The same as environment variables, for the management Lambda. */
  environment(): Record<string, string> {
    return this.key
      ? { [ENV.secretStore]: this.kind, [ENV.secretKeyArn]: this.key.keyArn }
      : { [ENV.secretStore]: this.kind };
  }

  /** Read the secrets to sign with: `kms:Decrypt` only, or `GetSecretValue` under the prefix. */
  grantRead(grantee: iam.IGrantable): iam.Grant {
    if (this.key) return this.grantKey(grantee, ['kms:Decrypt']);
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['secretsmanager:GetSecretValue'],
      resourceArns: [this.secretArnPattern],
    });
  }

  /** Create, show, rotate and delete secrets: Encrypt and Decrypt, or the Secrets Manager calls. */
  grantOperate(grantee: iam.IGrantable): iam.Grant {
    if (this.key) return this.grantKey(grantee, ['kms:Encrypt', 'kms:Decrypt']);
    return iam.Grant.addToPrincipal({
      grantee,
      actions: SECRET_OPERATE_ACTIONS,
      resourceArns: [this.secretArnPattern],
    });
  }

  /** On the key only, and only with a connection's encryption context (both keys, nothing else). */
  private grantKey(grantee: iam.IGrantable, actions: string[]): iam.Grant {
    const keys = Object.values(KMS_CONTEXT_KEYS);
    return iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns: [this.key!.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': keys },
        Null: Object.fromEntries(keys.map((k) => [`kms:EncryptionContext:${k}`, 'false'])),
      },
    });
  }
}
