import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { acknowledgeNagFindings } from '../../bin/nag-acknowledgements';
import { ENV } from '../../lambdas/config';
import { STACK_OUTPUTS } from '../../lambdas/stack-outputs';
import { WebhookDeliveryPropsError } from '../../lib/webhook-delivery';
import { WebhookStack } from '../../lib/webhook-stack';
import { logicalId, testApp } from './fixtures';

/** Every Allow statement attached to a role, as written (actions, resources, conditions). */
function statementsOf(template: Template, roleId: string): Array<Record<string, unknown>> {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) =>
      (p.Properties.Roles ?? []).some((r: unknown) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })),
    )
    .flatMap((p) => p.Properties.PolicyDocument.Statement)
    .filter((s: { Effect: string }) => s.Effect === 'Allow');
}

const actionsOf = (statements: Array<Record<string, unknown>>) =>
  statements.flatMap((s) => [s.Action as string | string[]].flat()).sort();

const CONTEXT_CONDITION = {
  'ForAllValues:StringEquals': {
    'kms:EncryptionContextKeys': ['webhooks:connectionId', 'webhooks:applicationId'],
  },
  Null: {
    'kms:EncryptionContext:webhooks:connectionId': 'false',
    'kms:EncryptionContext:webhooks:applicationId': 'false',
  },
};

describe("secretStore: 'kms'", () => {
  let stack: WebhookStack;
  let template: Template;
  let keyId: string;
  let operator: iam.Role;

  beforeAll(() => {
    stack = new WebhookStack(testApp(), 'KmsWebhooks', { secretStore: 'kms' });
    operator = new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() });
    stack.delivery.grantOperate(operator);
    template = Template.fromStack(stack);
    keyId = logicalId(stack, stack.delivery.secretKey as never);
  });

  it('creates one customer managed key with rotation, kept when the stack goes unless told otherwise', () => {
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.hasResource('AWS::KMS::Key', {
      Properties: { EnableKeyRotation: true },
      DeletionPolicy: 'Retain',
    });
  });

  it('lets the dispatcher only Decrypt, on that key, with a connection encryption context; no Secrets Manager', () => {
    const statements = statementsOf(template, logicalId(stack, stack.delivery.dispatcherRole));
    const onKey = statements.filter(
      (s) => JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::GetAtt': [keyId, 'Arn'] }),
    );
    expect(onKey).toEqual([expect.objectContaining({ Action: 'kms:Decrypt', Condition: CONTEXT_CONDITION })]);
    expect(actionsOf(statements).filter((a) => a.startsWith('kms:'))).toEqual(['kms:Decrypt']);
    expect(actionsOf(statements).filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
  });

  it('lets the management API and operators Encrypt and Decrypt with that context, and no connection secret in Secrets Manager', () => {
    for (const role of [stack.delivery.managementApi!.role, operator]) {
      const statements = statementsOf(template, logicalId(stack, role));
      const onKey = statements.filter(
        (s) => JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::GetAtt': [keyId, 'Arn'] }),
      );
      expect(onKey).toEqual([
        expect.objectContaining({ Action: ['kms:Decrypt', 'kms:Encrypt'], Condition: CONTEXT_CONDITION }),
      ]);
      const secretStatements = statements.filter((s) =>
        actionsOf([s]).some((a) => a.startsWith('secretsmanager:')),
      );
      // Only the console session key of the management API remains.
      expect(JSON.stringify(secretStatements)).not.toContain(':secret:webhooks/');
      expect(actionsOf(secretStatements).filter((a) => a !== 'secretsmanager:GetSecretValue')).toEqual([]);
    }
  });

  it('tells the dispatcher and the management API the store and the key', () => {
    const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };
    for (const fn of [stack.delivery.dispatcher, stack.delivery.managementApi!.handler]) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: { [ENV.secretStore]: 'kms', [ENV.secretKeyArn]: keyArn } },
        Role: { 'Fn::GetAtt': [logicalId(stack, fn.role as never), 'Arn'] },
      });
    }
    template.hasOutput(STACK_OUTPUTS.secretStore, { Value: 'kms' });
    template.hasOutput(STACK_OUTPUTS.secretKeyArn, { Value: keyArn });
  });

  it('passes the AwsSolutions checks of cdk-nag with no new acknowledgement', () => {
    acknowledgeNagFindings(stack.delivery);
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    expect(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
    ).toEqual([]);
  });

  it('creates no key and keeps Secrets Manager by default', () => {
    const plain = Template.fromStack(new WebhookStack(testApp(), 'Plain'));
    plain.resourceCountIs('AWS::KMS::Key', 0);
    plain.hasOutput(STACK_OUTPUTS.secretStore, { Value: 'secrets-manager' });
  });

  it('names the prop when the store is unknown', () => {
    expect(() => new WebhookStack(testApp(), 'Bad', { secretStore: 'vault' as never })).toThrow(
      WebhookDeliveryPropsError,
    );
    expect(() => new WebhookStack(testApp(), 'Bad2', { secretStore: 'vault' as never })).toThrow(
      /secretStore.*secrets-manager, kms/,
    );
  });
});
