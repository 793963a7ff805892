/**
 * The internal retry queue (docs/design.md §3, docs/security.md): only the dispatcher and the
 * operator roles may send to it, by IAM (what each role is granted) and by the queue's own
 * policy (what the queue refuses whatever an account's identity policies say).
 */

import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { actionsOn, customStack, defaultStack, logicalId, type Permission, permissionsOf } from './fixtures';

const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

function sendPermissions(granted: Permission[]) {
  return granted.filter((p) => p.action === 'sqs:SendMessage' || p.action === 'sqs:*');
}

describe('retry queue policy', () => {
  const built = customStack();
  const { stack, publisher, operator } = built;
  const template = Template.fromStack(stack);
  const retryId = logicalId(stack, stack.delivery.retryQueue);
  const queueId = logicalId(stack, stack.delivery.queue);
  const dlqId = logicalId(stack, stack.delivery.deadLetterQueue);
  const dispatcherRoleId = logicalId(stack, stack.delivery.dispatcherRole);

  function denyStatement() {
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter(
      (p) => JSON.stringify(p.Properties.Queues) === JSON.stringify([{ Ref: retryId }]),
    );
    expect(policies).toHaveLength(1);
    const statements = policies[0]!.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    return statements.find((s) => s.Sid === 'OnlyDispatcherAndOperatorsSend');
  }

  it('denies SendMessage to every principal but the dispatcher role, the management API and the operator roles', () => {
    const deny = denyStatement();
    expect(deny).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:SendMessage',
      Resource: getAtt(retryId),
    });
    expect(deny!.Condition).toEqual({
      ArnNotEquals: {
        'aws:PrincipalArn': [
          getAtt(dispatcherRoleId),
          getAtt(logicalId(stack, stack.delivery.managementApi!.role)),
          getAtt(logicalId(stack, operator)),
        ],
      },
    });
  });

  it('does not name the publisher among the writers', () => {
    const writers = JSON.stringify(denyStatement()!.Condition);
    expect(writers).not.toContain(logicalId(stack, publisher.role!));
  });

  it('keeps TLS-only on the retry queue too', () => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: retryId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('gives the ingress queue no such restriction: publishers are meant to write there', () => {
    const ingressPolicies = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter(
      (p) => JSON.stringify(p.Properties.Queues) === JSON.stringify([{ Ref: queueId }]),
    );
    const sids = ingressPolicies.flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as Array<{ Sid?: string }>).map((s) => s.Sid),
    );
    expect(sids).not.toContain('OnlyDispatcherAndOperatorsSend');
  });

  describe('what each role may send, by IAM', () => {
    it('publisher: the ingress queue only', () => {
      const granted = permissionsOf(template, logicalId(stack, publisher.role!));
      expect(sendPermissions(granted)).toEqual([{ action: 'sqs:SendMessage', resource: getAtt(queueId) }]);
    });

    it('dispatcher: the retry queue and the DLQ, never the ingress queue', () => {
      const granted = permissionsOf(template, dispatcherRoleId);
      expect(sendPermissions(granted).map((p) => p.resource)).toEqual(
        expect.arrayContaining([getAtt(retryId), getAtt(dlqId)]),
      );
      expect(sendPermissions(granted)).toHaveLength(2);
      expect(actionsOn(granted, getAtt(queueId))).not.toContain('sqs:SendMessage');
    });

    it('operator: the ingress queue (publish, redrive events) and the retry queue (redrive deliveries)', () => {
      const granted = permissionsOf(template, logicalId(stack, operator));
      expect(sendPermissions(granted).map((p) => p.resource)).toEqual(
        expect.arrayContaining([getAtt(queueId), getAtt(retryId)]),
      );
      expect(sendPermissions(granted)).toHaveLength(2);
    });
  });

  it('adds every operator given grantOperate to the policy, including ones granted later', () => {
    const stack2 = defaultStack();
    const late = new iam.Role(stack2, 'LateOperator', { assumedBy: new iam.AccountRootPrincipal() });
    stack2.delivery.grantOperate(late);
    const t = Template.fromStack(stack2);
    const retry = logicalId(stack2, stack2.delivery.retryQueue);
    const policy = Object.values(t.findResources('AWS::SQS::QueuePolicy')).find(
      (p) => JSON.stringify(p.Properties.Queues) === JSON.stringify([{ Ref: retry }]),
    );
    expect(JSON.stringify(policy)).toContain(logicalId(stack2, late));
  });

  it('refuses grantOperate for a principal the policy cannot name (no role or user ARN)', () => {
    const stack2 = defaultStack();
    const fn = lambda.Function.fromFunctionArn(
      stack2,
      'Imported',
      'arn:aws:lambda:us-east-1:123456789012:function:someone',
    );
    expect(() => stack2.delivery.grantOperate(fn)).toThrow(/role or a user/);
  });
});
