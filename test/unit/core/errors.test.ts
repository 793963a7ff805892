/** One error base: every error the product throws carries a code, a stage and its cause. */

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ConfigError } from '../../../lambdas/config';
import {
  DeadlineError,
  DestinationRefusedError,
  InfrastructureError,
  infra,
  PoisonMessageError,
  ValidationError,
  WebhookError,
} from '../../../lambdas/core/errors';
import { HealthSettingsError } from '../../../lambdas/core/health';
import { HealthContentionError } from '../../../lambdas/core/health-tracker';
import { WebhookVerificationError } from '../../../lambdas/core/verify';
import { ConflictError, NotFoundError } from '../../../lambdas/management/errors';
import { PublishError } from '../../../lambdas/publisher/buffered';

const ROOT = path.resolve(__dirname, '../../..');
/**
 * The project's code: what runs in Lambda, the CLI, local mode, the construct, the console
 * (whose failed API calls are `ApiCallError`s on the same base) and the measurements.
 */
const PRODUCT = ['lambdas', 'cli', 'local', 'lib', 'bin', 'console', 'bench', 'scripts'];

describe('the error base', () => {
  it.each([
    [new ValidationError('url', 'must use https:'), 'input', 'invalid_input', 'ValidationError'],
    [new DestinationRefusedError('loopback address'), 'input', 'invalid_input', 'DestinationRefusedError'],
    [new PoisonMessageError('not JSON'), 'input', 'invalid_message', 'PoisonMessageError'],
    [new PoisonMessageError('bad user', 'invalid_payload'), 'input', 'invalid_payload', 'PoisonMessageError'],
    [new NotFoundError('connection', 'con_1'), 'input', 'not_found', 'NotFoundError'],
    [new ConflictError('taken'), 'input', 'conflict', 'ConflictError'],
    [
      new WebhookVerificationError('signature_mismatch', 'no'),
      'input',
      'signature_mismatch',
      'WebhookVerificationError',
    ],
    [new ConfigError('QUEUE_URL', 'is missing'), 'configuration', 'invalid_environment', 'ConfigError'],
    [
      new HealthSettingsError('failingAfter', 'must be 1 or more'),
      'configuration',
      'invalid_health_setting',
      'HealthSettingsError',
    ],
    [
      new InfrastructureError('attemptLog.append', { deliveryId: 'dlv_1' }),
      'infrastructure',
      'dependency_failed',
      'InfrastructureError',
    ],
    [new DeadlineError(1200), 'infrastructure', 'deadline_near', 'DeadlineError'],
    [new HealthContentionError('con_1'), 'infrastructure', 'health_contended', 'HealthContentionError'],
    [
      new PublishError('evt_1', 'Throttling', 'slow down', false, 3),
      'infrastructure',
      'Throttling',
      'PublishError',
    ],
  ] as const)('%s is a %s error with code %s', (error, stage, code, name) => {
    expect(error).toBeInstanceOf(WebhookError);
    expect(error).toBeInstanceOf(Error);
    expect({ stage: error.stage, code: error.code, name: error.name }).toEqual({ stage, code, name });
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('keeps the cause of a failed dependency call and names the operation and ids', async () => {
    const cause = new Error('ProvisionedThroughputExceededException');
    const failed = await infra('attemptLog.append', { deliveryId: 'dlv_1', attempt: 2 }, () =>
      Promise.reject(cause),
    ).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(InfrastructureError);
    expect((failed as InfrastructureError).cause).toBe(cause);
    expect((failed as InfrastructureError).message).toBe(
      'attemptLog.append failed (deliveryId=dlv_1, attempt=2)',
    );
  });

  it('is the base of every error class the product declares (none extends Error directly)', () => {
    const grep = spawnSync(
      'git',
      ['grep', '-nE', 'class \\w+ extends (Error|TypeError|RangeError)\\b', '--', ...PRODUCT],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    const hits = grep.stdout
      .split('\n')
      .filter((line) => line && !line.includes('abstract class WebhookError'));
    expect(hits).toEqual([]);
    // git grep exits 0 when something matches (the base itself does); anything else is a broken check.
    expect(grep.status).toBe(0);
  });
});
