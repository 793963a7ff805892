#!/usr/bin/env node
/**
 * CDK app: one webhook delivery stack, checked with cdk-nag's AwsSolutions rules.
 *
 * Optional context (`cdk synth -c key=value` or `cdk.json`):
 * stackName (default Webhooks), headerPrefix, secretPrefix, logLevel, maxConcurrency,
 * memorySize, alarmTopicArn, pagingTopicArn, ticketTopicArn, dashboard (true | false), removalPolicy (retain | destroy),
 * secretStore (secrets-manager | kms), tracing (true | false), profile (defaults | lean: the
 * cost levers of lib/profiles.ts together; a key above given too wins over the profile's).
 */
import { App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { ProfileName } from '../lib/profiles';
import type { SecretStoreName } from '../lib/secret-store';
import type { DispatcherLogLevel } from '../lib/webhook-delivery';
import { WebhookStack } from '../lib/webhook-stack';
import { acknowledgeNagFindings } from './nag-acknowledgements';

const app = new App();

function text(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new Error(`Context ${key} must be a string, got ${JSON.stringify(value)}`);
  }
  return String(value);
}

function wholeNumber(key: string): number | undefined {
  const raw = text(key);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new Error(`Context ${key} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function flag(key: string): boolean | undefined {
  const raw = text(key)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`Context ${key} must be "true" or "false", got "${raw}"`);
}

function removalPolicy(): RemovalPolicy | undefined {
  const raw = text('removalPolicy')?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'retain') return RemovalPolicy.RETAIN;
  if (raw === 'destroy') return RemovalPolicy.DESTROY;
  throw new Error(`Context removalPolicy must be "retain" or "destroy", got "${raw}"`);
}

const stackName = text('stackName') ?? 'Webhooks';
const stack = new WebhookStack(app, stackName, {
  stackName,
  description: 'Outbound webhook delivery: SQS delivery queue and DLQ, dispatcher Lambda, DynamoDB tables',
  // The construct rejects a profile it does not know, naming the two.
  profile: text('profile') as ProfileName | undefined,
  headerPrefix: text('headerPrefix'),
  secretPrefix: text('secretPrefix'),
  // The construct rejects a store it does not know, naming the two.
  secretStore: text('secretStore') as SecretStoreName | undefined,
  // The construct rejects a level the logger does not know, naming the allowed ones.
  logLevel: text('logLevel')?.toUpperCase() as DispatcherLogLevel | undefined,
  maxConcurrency: wholeNumber('maxConcurrency'),
  memorySize: wholeNumber('memorySize'),
  alarmTopicArn: text('alarmTopicArn'),
  pagingTopicArn: text('pagingTopicArn'),
  ticketTopicArn: text('ticketTopicArn'),
  dashboard: flag('dashboard'),
  removalPolicy: removalPolicy(),
  tracing: flag('tracing'),
});
acknowledgeNagFindings(stack.delivery);

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
