import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lambdas/config';
import type { WebhookStack } from '../../lib/webhook-stack';
import { actionsOn, customStack, defaultStack, logicalId, type Permission, permissionsOf } from './fixtures';

const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const indexArn = (tableId: string, index: string) => ({
  'Fn::Join': ['', [getAtt(tableId), `/index/${index}`]],
});

describe('dispatcher permissions', () => {
  let stack: WebhookStack;
  let template: Template;
  let granted: Permission[];
  let ids: Record<
    'queue' | 'retry' | 'dlq' | 'connections' | 'attempts' | 'parked' | 'rateWindows' | 'logs' | 'role',
    string
  >;
  let topic: unknown;
  let secretArn: unknown;

  beforeAll(() => {
    stack = defaultStack();
    template = Template.fromStack(stack);
    const d = stack.delivery;
    ids = {
      queue: logicalId(stack, d.queue),
      retry: logicalId(stack, d.retryQueue),
      dlq: logicalId(stack, d.deadLetterQueue),
      connections: logicalId(stack, d.connectionsTable),
      attempts: logicalId(stack, d.attemptsTable),
      parked: logicalId(stack, d.parkedTable),
      rateWindows: logicalId(stack, d.rateWindowsTable),
      logs: logicalId(stack, d.logGroup),
      role: logicalId(stack, d.dispatcherRole),
    };
    granted = permissionsOf(template, ids.role);
    secretArn = stack.resolve(d.secretArnPattern);
    topic = stack.resolve(d.eventsTopic.topicArn);
  });

  it('reads a secret only under the stack secret prefix', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: 'secretsmanager:GetSecretValue',
            Resource: {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':secretsmanager:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':secret:webhooks/Webhooks/*',
                ],
              ],
            },
          },
        ]),
      },
    });
    const secretActions = granted.filter((p) => p.action.startsWith('secretsmanager:'));
    expect(secretActions).toEqual([{ action: 'secretsmanager:GetSecretValue', resource: secretArn }]);
  });

  it('uses no wildcard action anywhere in the stack', () => {
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/"dynamodb:\*"|"secretsmanager:\*"|"logs:\*"/);
    expect(granted.filter((p) => p.action.includes('*'))).toEqual([]);
  });

  it('reads connections and their byApplication index, and updates only the table (health)', () => {
    const read = ['dynamodb:GetItem', 'dynamodb:Query'];
    expect(actionsOn(granted, getAtt(ids.connections))).toEqual([...read, 'dynamodb:UpdateItem']);
    expect(actionsOn(granted, indexArn(ids.connections, 'byApplication'))).toEqual(read);
  });

  it('parks deliveries with PutItem, and claims and removes the oldest for recovery checks (base table only)', () => {
    expect(actionsOn(granted, getAtt(ids.parked))).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
  });

  it('counts rate-limit windows with UpdateItem only, and reads nothing of them', () => {
    expect(actionsOn(granted, getAtt(ids.rateWindows))).toEqual(['dynamodb:UpdateItem']);
  });

  it('publishes operational events to the events topic only', () => {
    expect(granted.filter((p) => p.action.startsWith('sns:'))).toEqual([
      { action: 'sns:Publish', resource: topic },
    ]);
  });

  it('writes the attempt log with PutItem only and reads nothing from it', () => {
    expect(actionsOn(granted, getAtt(ids.attempts))).toEqual(['dynamodb:PutItem']);
    expect(JSON.stringify(granted)).not.toContain('/index/finalFailures');
  });

  it('names every index it may read: no index/* resource', () => {
    expect(JSON.stringify(template.toJSON())).not.toContain('/index/*');
  });

  it('sends retries to the retry queue, and to the DLQ poison and what the parked table could not take', () => {
    expect(actionsOn(granted, getAtt(ids.dlq))).toEqual(['sqs:SendMessage']);
    expect(actionsOn(granted, getAtt(ids.retry))).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
  });

  const consume = [
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
    'sqs:ReceiveMessage',
  ];

  it("only consumes the ingress queue: it never sends to the publishers' door", () => {
    expect(actionsOn(granted, getAtt(ids.queue))).toEqual(consume);
  });

  it('has only the consume permissions the SQS event source needs beyond sending retries', () => {
    expect(actionsOn(granted, getAtt(ids.retry))).toEqual([...consume, 'sqs:SendMessage'].sort());
  });

  it('writes only to its own log group, without the AWSLambdaBasicExecutionRole managed policy', () => {
    expect(actionsOn(granted, getAtt(ids.logs))).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
      }),
      ManagedPolicyArns: Match.absent(),
    });
  });

  it('grants nothing beyond the resources of the construct', () => {
    const known = [
      ...Object.values(ids).map(getAtt),
      indexArn(ids.connections, 'byApplication'),
      secretArn,
      topic,
    ].map((r) => JSON.stringify(r));
    expect(granted.filter((p) => !known.includes(JSON.stringify(p.resource)))).toEqual([]);
  });
});

describe('grant and bind helpers', () => {
  let template: Template;
  let built: ReturnType<typeof customStack>;

  beforeAll(() => {
    built = customStack();
    template = Template.fromStack(built.stack);
  });

  it('bindPublisher sets WEBHOOKS_QUEUE_URL on the function', () => {
    const { stack, publisher } = built;
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { [ENV.queueUrl]: { Ref: logicalId(stack, stack.delivery.queue) } } },
      Role: { 'Fn::GetAtt': [logicalId(stack, publisher.role!), 'Arn'] },
    });
  });

  it('bindPublisher lets the function send to the ingress queue and nothing else', () => {
    const { stack, publisher } = built;
    const granted = permissionsOf(template, logicalId(stack, publisher.role!));
    expect(granted).toEqual([
      { action: 'sqs:SendMessage', resource: getAtt(logicalId(stack, stack.delivery.queue)) },
    ]);
  });

  it('grantOperate lets an operator manage connections, their secrets and the dead letters', () => {
    const { stack, operator } = built;
    const d = stack.delivery;
    const granted = permissionsOf(template, logicalId(stack, operator));
    const connections = logicalId(stack, d.connectionsTable);
    const attempts = logicalId(stack, d.attemptsTable);
    const operate = [
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
    ];
    expect(actionsOn(granted, getAtt(connections))).toEqual(operate);
    expect(actionsOn(granted, indexArn(connections, 'byApplication'))).toEqual(operate);
    const readAttempts = ['dynamodb:PutItem', 'dynamodb:Query'];
    // Resend's mark (UpdateItem) is on the table alone, never the index.
    expect(actionsOn(granted, getAtt(attempts))).toEqual([...readAttempts, 'dynamodb:UpdateItem']);
    expect(actionsOn(granted, indexArn(attempts, 'finalFailures'))).toEqual(readAttempts);
    // Rate-limit activity reads back what the limiter counted, nothing more.
    expect(actionsOn(granted, getAtt(logicalId(stack, d.rateWindowsTable)))).toEqual([
      'dynamodb:BatchGetItem',
    ]);
    expect(actionsOn(granted, stack.resolve(d.secretArnPattern))).toEqual([
      'secretsmanager:CreateSecret',
      'secretsmanager:DeleteSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:PutSecretValue',
      'secretsmanager:TagResource',
    ]);
    expect(actionsOn(granted, getAtt(logicalId(stack, d.deadLetterQueue)))).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
    ]);
    expect(actionsOn(granted, getAtt(logicalId(stack, d.queue)))).toEqual(['sqs:SendMessage']);
    // Redrive returns deliveries to the retry queue; test sends may queue their attempt record.
    expect(actionsOn(granted, getAtt(logicalId(stack, d.retryQueue)))).toEqual(['sqs:SendMessage']);
  });

  it('scopes operator secrets to the custom secret prefix', () => {
    expect(JSON.stringify(built.stack.resolve(built.stack.delivery.secretArnPattern))).toContain(
      ':secret:tenants/acme/webhooks/*',
    );
  });
});
