import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Duration, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { WebhookStack, type WebhookStackProps } from '../../lib/webhook-stack';

/** The feature flags of cdk.json, so tests see the template `cdk synth` deploys. */
function cdkJsonContext(): Record<string, unknown> {
  const file = path.join(__dirname, '..', '..', 'cdk.json');
  return JSON.parse(readFileSync(file, 'utf8')).context ?? {};
}

/**
 * An app with the project's feature flags. Bundling is skipped unless asked for: template
 * assertions do not depend on the bundle, and bundling.test.ts bundles once for real.
 */
export function testApp(options: { bundle?: boolean; outdir?: string } = {}): App {
  const context: Record<string, unknown> = cdkJsonContext();
  if (!options.bundle) context['aws:cdk:bundling-stacks'] = [];
  return new App({ context, ...(options.outdir ? { outdir: options.outdir } : {}) });
}

/** The stack with every default. */
export function defaultStack(app: App = testApp()): WebhookStack {
  return new WebhookStack(app, 'Webhooks');
}

/** Settings of {@link customStack}, for tests that compare the template with them. */
export const CUSTOM_PROPS = {
  headerPrefix: 'X-Acme',
  secretPrefix: 'tenants/acme/webhooks/',
  attemptTimeout: Duration.seconds(20),
  attemptTtl: Duration.days(7),
  batchConcurrency: 4,
  defaultRateLimit: 50,
  connectionCacheTtl: Duration.seconds(5),
  maxConcurrency: 50,
  allowedPorts: [443, 8443],
  functionTimeout: Duration.seconds(120),
  memorySize: 512,
  maxReceiveCount: 3,
  dlqRetention: Duration.days(7),
  logRetention: RetentionDays.ONE_WEEK,
  logLevel: 'DEBUG',
  removalPolicy: RemovalPolicy.DESTROY,
  oldestMessageAgeAlarmThreshold: Duration.minutes(10),
  alarmTopicArn: 'arn:aws:sns:eu-west-1:111122223333:ops-alarms',
} satisfies WebhookStackProps;

/**
 * A stack with every prop set, plus a publisher function bound with `bindPublisher` and an
 * operator role given `grantOperate`.
 */
export function customStack(app: App = testApp()) {
  const stack = new WebhookStack(app, 'CustomWebhooks', CUSTOM_PROPS);
  const publisher = new lambda.Function(stack, 'Publisher', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => {};'),
  });
  stack.delivery.bindPublisher(publisher);
  const operator = new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() });
  stack.delivery.grantOperate(operator);
  return { stack, publisher, operator };
}

/** Logical id of a construct's CloudFormation resource. */
export function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);
}

/** One allowed action on one resource (resolved to its CloudFormation form). */
export interface Permission {
  readonly action: string;
  readonly resource: unknown;
}

/** Every Allow of the inline policies attached to a role, one entry per action and resource. */
export function permissionsOf(template: Template, roleLogicalId: string): Permission[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const result: Permission[] = [];
  for (const policy of Object.values(policies)) {
    const roles: unknown[] = policy.Properties.Roles ?? [];
    if (!roles.some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId }))) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement) {
      if (statement.Effect !== 'Allow') continue;
      for (const action of [statement.Action].flat()) {
        for (const resource of [statement.Resource].flat()) result.push({ action, resource });
      }
    }
  }
  return result;
}

/** Actions a role may perform on one resource, sorted. */
export function actionsOn(permissions: Permission[], resource: unknown): string[] {
  const key = JSON.stringify(resource);
  return permissions
    .filter((p) => JSON.stringify(p.resource) === key)
    .map((p) => p.action)
    .sort();
}
