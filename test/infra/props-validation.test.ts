import { Duration, Stack } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { ConfigError, ENV } from '../../lambdas/config';
import {
  type DispatcherLogLevel,
  WebhookDelivery,
  type WebhookDeliveryProps,
  WebhookDeliveryPropsError,
} from '../../lib/webhook-delivery';
import { WebhookStack } from '../../lib/webhook-stack';
import { testApp } from './fixtures';

function build(props: WebhookDeliveryProps): WebhookDelivery {
  return new WebhookDelivery(new Stack(testApp(), 'Webhooks'), 'Delivery', props);
}

function rejection(props: WebhookDeliveryProps): WebhookDeliveryPropsError {
  try {
    build(props);
  } catch (error) {
    if (error instanceof WebhookDeliveryPropsError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(props)} to be rejected`);
}

describe('WebhookDelivery props', () => {
  it.each<[string, WebhookDeliveryProps, keyof WebhookDeliveryProps, RegExp]>([
    [
      'an attempt timeout above the 30 s of the spec',
      { attemptTimeout: Duration.seconds(31) },
      'attemptTimeout',
      /must be at least 100 ms and at most 30 seconds, got 31 seconds/,
    ],
    [
      'a function timeout without 10 s beyond the attempt timeout',
      { functionTimeout: Duration.seconds(40) },
      'functionTimeout',
      /must be more than attemptTimeout \(30 seconds\) plus a 10 seconds margin, got 40 seconds/,
    ],
    [
      'a function timeout above the Lambda maximum',
      { functionTimeout: Duration.minutes(16) },
      'functionTimeout',
      /must be more than 40 seconds and at most 15 minutes, got 16 minutes/,
    ],
    [
      'a visibility timeout under six times the function timeout',
      { queueVisibilityTimeout: Duration.minutes(5) },
      'queueVisibilityTimeout',
      /at least 6 times functionTimeout \(9 minutes\), got 5 minutes/,
    ],
    [
      'a secret prefix without a trailing slash',
      { secretPrefix: 'webhooks/prod' },
      'secretPrefix',
      /must end with "\/"/,
    ],
    [
      'a secret prefix with characters Secrets Manager refuses',
      { secretPrefix: 'webhooks/*/' },
      'secretPrefix',
      /A-Z a-z 0-9/,
    ],
    ['a maximum concurrency of 1', { maxConcurrency: 1 }, 'maxConcurrency', /from 2 to 1000, got 1/],
    ['a maximum concurrency above 1000', { maxConcurrency: 1001 }, 'maxConcurrency', /from 2 to 1000/],
    ['a batch concurrency of 0', { batchConcurrency: 0 }, 'batchConcurrency', /from 1 to 100/],
    ['no allowed port', { allowedPorts: [] }, 'allowedPorts', /at least one port/],
    ['a port out of range', { allowedPorts: [443, 70_000] }, 'allowedPorts', /from 1 to 65535, got 70000/],
    ['a port listed twice', { allowedPorts: [443, 443] }, 'allowedPorts', /twice/],
    ['a default rate limit of 0', { defaultRateLimit: 0 }, 'defaultRateLimit', /from 1 to 1000, got 0/],
    [
      'a default rate limit above 10,000',
      { defaultRateLimit: 10_001, rateLimitCeiling: 10_000 },
      'defaultRateLimit',
      /from 1 to 10000/,
    ],
    ['a fractional default rate limit', { defaultRateLimit: 2.5 }, 'defaultRateLimit', /whole number|from 1/],
    ['a rate-limit ceiling of 0', { rateLimitCeiling: 0 }, 'rateLimitCeiling', /from 1 to 10000, got 0/],
    [
      'a default rate limit above the default ceiling',
      { defaultRateLimit: 2_000 },
      'defaultRateLimit',
      /from 1 to 1000, got 2000/,
    ],
    [
      'a default rate limit above the ceiling set',
      { defaultRateLimit: 60, rateLimitCeiling: 50 },
      'defaultRateLimit',
      /from 1 to 50, got 60/,
    ],
    ['a memory size under 128 MB', { memorySize: 64 }, 'memorySize', /from 128 to 10240/],
    ['a maxReceiveCount of 0', { maxReceiveCount: 0 }, 'maxReceiveCount', /from 1 to 1000/],
    [
      'a DLQ that keeps messages no longer than the delivery queue',
      { dlqRetention: Duration.days(4) },
      'dlqRetention',
      /must be more than 4 days and at most 14 days, got 4 days/,
    ],
    ['an attempt TTL in hours', { attemptTtl: Duration.hours(36) }, 'attemptTtl', /whole days/],
    [
      'a connection cache above 30 s',
      { connectionCacheTtl: Duration.minutes(1) },
      'connectionCacheTtl',
      /at most 30 seconds, got 1 minute/,
    ],
    [
      'a secret rotation overlap over 30 days',
      { secretRotationOverlap: Duration.days(31) },
      'secretRotationOverlap',
      /at most 30 days, got 31 days/,
    ],
    [
      'a secret rotation overlap in milliseconds',
      { secretRotationOverlap: Duration.millis(1500) },
      'secretRotationOverlap',
      /whole seconds/,
    ],
    [
      'an oldest-message threshold under a minute',
      { oldestMessageAgeAlarmThreshold: Duration.seconds(30) },
      'oldestMessageAgeAlarmThreshold',
      /must be at least 1 minute and less than 4 days, got 30 seconds/,
    ],
    [
      'a log level the logger does not know',
      { logLevel: 'VERBOSE' as DispatcherLogLevel },
      'logLevel',
      /one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT/,
    ],
    [
      'a header prefix the dispatcher would refuse',
      { headerPrefix: 'X_Service' },
      'headerPrefix',
      /refused by the dispatcher: Configuration WEBHOOKS_HEADER_PREFIX/,
    ],
  ])('rejects %s', (_, props, prop, message) => {
    const error = rejection(props);
    expect(error.prop).toBe(prop);
    expect(error.message).toMatch(new RegExp(`^WebhookDelivery: ${prop} `));
    expect(error.message).toMatch(message);
  });

  it('keeps the dispatcher configuration error as the cause of a refused header prefix', () => {
    const error = rejection({ headerPrefix: 'X Service' });
    expect(error.cause).toBeInstanceOf(ConfigError);
    expect((error.cause as ConfigError).key).toBe(ENV.headerPrefix);
  });

  it('accepts a 31 s function timeout when attempts time out after 20 s', () => {
    const delivery = build({ attemptTimeout: Duration.seconds(20), functionTimeout: Duration.seconds(31) });
    expect(Stack.of(delivery).resolve(delivery.dispatcher.timeout?.toSeconds())).toBe(31);
  });

  it('accepts a visibility timeout longer than six times the function timeout', () => {
    expect(() => build({ queueVisibilityTimeout: Duration.minutes(15) })).not.toThrow();
  });

  it('defaults the secret prefix to the stack name', () => {
    expect(build({}).secretPrefix).toBe('webhooks/Webhooks/');
  });

  it('rejects both an alarm topic and an alarm topic ARN on the stack', () => {
    const app = testApp();
    const topic = new Topic(new Stack(app, 'Ops'), 'Alarms');
    expect(
      () =>
        new WebhookStack(app, 'Webhooks', { alarmTopic: topic, alarmTopicArn: 'arn:aws:sns:eu-west-1:1:x' }),
    ).toThrow('WebhookDelivery: alarmTopic cannot be given together with alarmTopicArn: pick one');
  });
});
