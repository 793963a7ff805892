import { API_ENV, secretRotationOverlap } from '../../lambdas/api-config';
import { ConfigError, ENV, loadConfig } from '../../lambdas/config';
import { DEFAULT_RECOVERY_PROBES_MS } from '../../lambdas/core/probes';
import { MINIMAL_DISPATCHER_ENV } from '../support/fixtures';

const minimal = MINIMAL_DISPATCHER_ENV;

function keyOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.key;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('reads health thresholds: failing after 5, disabled after 10, the topic when given', () => {
    const config = loadConfig({
      ...minimal,
      [ENV.failingAfter]: '5',
      [ENV.disableAfter]: '10',
      [ENV.eventsTopicArn]: 'arn:aws:sns:us-east-1:1:events',
    });
    expect(config.health).toEqual({ failingAfter: 5, disableAfter: 10 });
    expect(config.eventsTopicArn).toBe('arn:aws:sns:us-east-1:1:events');
  });

  it('applies the spec defaults: 30 s attempts, X-Service prefix, port 443, 30-day TTL', () => {
    expect(loadConfig(minimal)).toEqual({
      retryQueueUrl: minimal[ENV.retryQueueUrl],
      dlqUrl: minimal[ENV.dlqUrl],
      connectionsTable: 'connections',
      attemptsTable: 'attempts',
      parkedTable: 'parked',
      rateLimitCeiling: 1_000,
      rateWindowsTable: 'rate-windows',
      recoveryProbes: DEFAULT_RECOVERY_PROBES_MS,
      health: { failingAfter: 3 },
      secretPrefix: 'webhooks/prod/',
      secretStore: { kind: 'secrets-manager' },
      headerPrefix: 'X-Service',
      attemptTimeoutMs: 30_000,
      attemptTtlDays: 30,
      deliveredTtlDays: 30,
      keepBodies: 'all',
      deliverySearch: true,
      batchConcurrency: 10,
      connectionCacheTtlMs: 30_000,
      allowedPorts: [443],
      allowLoopback: false,
      stackName: 'webhooks',
      tracing: false,
      dedupeEvents: true,
    });
    expect(loadConfig({ ...minimal, WEBHOOKS_STACK_NAME: ' Prod-Webhooks ' }).stackName).toBe(
      'Prod-Webhooks',
    );
  });

  it('reads the kms secret store with its key, and refuses kms without a key or an unknown store', () => {
    const keyArn = 'arn:aws:kms:us-east-1:1:key/k';
    expect(
      loadConfig({ ...minimal, [ENV.secretStore]: 'kms', [ENV.secretKeyArn]: keyArn }).secretStore,
    ).toEqual({
      kind: 'kms',
      keyArn,
    });
    expect(() => loadConfig({ ...minimal, [ENV.secretStore]: 'kms' })).toThrow(ENV.secretKeyArn);
    expect(() => loadConfig({ ...minimal, [ENV.secretStore]: 'vault' })).toThrow(
      /secrets-manager, kms.*"vault"/,
    );
  });

  it('keeps a delivery that arrived at once for deliveredTtlDays, never longer than attemptTtlDays', () => {
    expect(loadConfig({ ...minimal, [ENV.deliveredTtlDays]: '3' }).deliveredTtlDays).toBe(3);
    expect(loadConfig({ ...minimal, [ENV.attemptTtlDays]: '7' }).deliveredTtlDays).toBe(7);
    expect(() => loadConfig({ ...minimal, [ENV.attemptTtlDays]: '7', [ENV.deliveredTtlDays]: '8' })).toThrow(
      ENV.deliveredTtlDays,
    );
  });

  it("reads the stack's default rate limit, absent when unset", () => {
    expect(loadConfig({ ...minimal, [ENV.defaultRateLimit]: '50' }).defaultRateLimit).toBe(50);
    expect(loadConfig({ ...minimal, [ENV.defaultRateLimit]: '' }).defaultRateLimit).toBeUndefined();
    // The ceiling: 1,000 unless set, and a default above it is refused, naming the default.
    expect(loadConfig(minimal).rateLimitCeiling).toBe(1_000);
    expect(loadConfig({ ...minimal, [ENV.rateLimitCeiling]: '20' }).rateLimitCeiling).toBe(20);
    expect(keyOf({ ...minimal, [ENV.rateLimitCeiling]: '20', [ENV.defaultRateLimit]: '50' })).toBe(
      ENV.defaultRateLimit,
    );
  });

  it("keeps every delivery's body unless told failures, and refuses any other word", () => {
    expect(loadConfig({ ...minimal, [ENV.keepBodies]: 'failures' }).keepBodies).toBe('failures');
    expect(() => loadConfig({ ...minimal, [ENV.keepBodies]: 'none' })).toThrow(/all, failures.*"none"/);
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig(minimal))).toBe(true);
  });

  it.each([
    ENV.retryQueueUrl,
    ENV.dlqUrl,
    ENV.connectionsTable,
    ENV.attemptsTable,
    ENV.parkedTable,
    ENV.rateWindowsTable,
    ENV.secretPrefix,
  ])('names the missing key %s', (key) => {
    const env: Record<string, string> = { ...minimal };
    delete env[key];
    expect(keyOf(env)).toBe(key);
  });

  it.each([
    [ENV.attemptTimeoutMs, '31000'],
    [ENV.attemptTimeoutMs, '30s'],
    [ENV.batchConcurrency, '0'],
    [ENV.allowedPorts, '443,http'],
    [ENV.allowedPorts, '70000'],
    [ENV.headerPrefix, 'X Service'],
    [ENV.allowLoopback, 'yes'],
    [ENV.failingAfter, '0'],
    [ENV.failingAfter, 'three'],
    [ENV.disableAfter, '2'],
    [ENV.defaultRateLimit, '0'],
    [ENV.defaultRateLimit, '10001'],
    [ENV.defaultRateLimit, '2.5'],
    [ENV.rateLimitCeiling, '0'],
    [ENV.rateLimitCeiling, '10001'],
  ])('names the malformed key %s=%s', (key, value) => {
    expect(keyOf({ ...minimal, [key]: value })).toBe(key);
  });

  it('reads a shortened attempt timeout, a custom prefix and extra ports', () => {
    const config = loadConfig({
      ...minimal,
      [ENV.attemptTimeoutMs]: '500',
      [ENV.headerPrefix]: 'X-Acme',
      [ENV.allowedPorts]: '443, 8443',
    });
    expect(config).toMatchObject({
      attemptTimeoutMs: 500,
      headerPrefix: 'X-Acme',
      allowedPorts: [443, 8443],
    });
  });

  it('refuses the local loopback allowance inside AWS Lambda', () => {
    expect(keyOf({ ...minimal, [ENV.allowLoopback]: 'true', AWS_LAMBDA_FUNCTION_NAME: 'dispatcher' })).toBe(
      ENV.allowLoopback,
    );
    expect(loadConfig({ ...minimal, [ENV.allowLoopback]: 'true' }).allowLoopback).toBe(true);
  });

  it('reads tracing as a flag, off by default, and refuses anything but true or false by name', () => {
    expect(loadConfig({ ...minimal, [ENV.tracing]: 'true' }).tracing).toBe(true);
    expect(loadConfig({ ...minimal, [ENV.tracing]: 'false' }).tracing).toBe(false);
    expect(keyOf({ ...minimal, [ENV.tracing]: 'yes' })).toBe(ENV.tracing);
  });

  it('reads delivery search as a flag, on by default, and refuses anything but true or false by name', () => {
    expect(loadConfig(minimal).deliverySearch).toBe(true);
    expect(loadConfig({ ...minimal, [ENV.deliverySearch]: 'false' }).deliverySearch).toBe(false);
    expect(keyOf({ ...minimal, [ENV.deliverySearch]: 'off' })).toBe(ENV.deliverySearch);
  });

  it('de-duplicates republished events unless told not to, and refuses anything but true or false by name', () => {
    expect(loadConfig({ ...minimal, [ENV.dedupeEvents]: '' }).dedupeEvents).toBe(true);
    expect(loadConfig({ ...minimal, [ENV.dedupeEvents]: 'true' }).dedupeEvents).toBe(true);
    expect(loadConfig({ ...minimal, [ENV.dedupeEvents]: 'false' }).dedupeEvents).toBe(false);
    expect(keyOf({ ...minimal, [ENV.dedupeEvents]: 'off' })).toBe(ENV.dedupeEvents);
  });
});

describe('secretRotationOverlap as the management API and local mode read it', () => {
  it('defaults to 24 hours, takes 0 (a rotated secret signs at once), and refuses past 30 days by name', () => {
    expect(secretRotationOverlap({})).toBe(86_400);
    expect(secretRotationOverlap({ [API_ENV.secretRotationOverlap]: '0' })).toBe(0);
    expect(secretRotationOverlap({ [API_ENV.secretRotationOverlap]: '3600' })).toBe(3_600);
    expect(() => secretRotationOverlap({ [API_ENV.secretRotationOverlap]: '2592001' })).toThrow(
      /WEBHOOKS_SECRET_ROTATION_OVERLAP_SECONDS: must be between 0 and 2592000 seconds/,
    );
    expect(() => secretRotationOverlap({ [API_ENV.secretRotationOverlap]: '1h' })).toThrow(ConfigError);
  });
});

describe('WEBHOOKS_RECOVERY_PROBES', () => {
  const env = (value: string) => loadConfig({ ...MINIMAL_DISPATCHER_ENV, WEBHOOKS_RECOVERY_PROBES: value });
  it("sets the recovery checks' waits, or turns them off", () => {
    expect(env('3s,3s,3s').recoveryProbes).toEqual([3_000, 3_000, 3_000]);
    expect(env('off').recoveryProbes).toBe(false);
  });
  it('refuses a malformed schedule by its variable', () => {
    expect(() => env('3 seconds')).toThrow(/WEBHOOKS_RECOVERY_PROBES: "3 seconds" is not a duration/);
  });
});
