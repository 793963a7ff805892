/**
 * The management API Lambda's configuration: the resources of {@link ENV} it shares with the
 * dispatcher (read by config.ts's readers) and its own keys. Like config.ts, the one place its
 * entry point reads `process.env` through.
 */

import {
  CONFIG_DEFAULTS,
  deliverySearch,
  ENV,
  limited,
  rateLimits,
  type SecretStore,
  secretStore,
} from './config';
import { type Env, integer, ports, probeSchedule, required } from './config-values';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS } from './core/constants';

/** Environment of the management API Lambda, beyond the resource names of {@link ENV}. */
export const API_ENV = {
  /** ARN or name of the secret holding the console session signing key. */
  consoleKeySecret: 'WEBHOOKS_CONSOLE_KEY_SECRET',
  /** Directory of the console's built files, or `off` to answer 404 at /console/. */
  consoleDir: 'WEBHOOKS_CONSOLE_DIR',
  /**
   * Seconds a rotated-out secret keeps signing when a rotation names no switch time (the
   * construct's `secretRotationOverlap`); absent: 86 400 (24 hours); 0: the new one signs at once.
   */
  secretRotationOverlap: 'WEBHOOKS_SECRET_ROTATION_OVERLAP_SECONDS',
} as const;

export interface ApiConfig {
  readonly queueUrl: string;
  readonly retryQueueUrl: string;
  readonly dlqUrl: string;
  readonly connectionsTable: string;
  readonly attemptsTable: string;
  readonly parkedTable: string;
  /** Read for a connection's live rate-limit state; absent on a stack that predates it. */
  readonly rateWindowsTable?: string;
  readonly defaultRateLimit?: number;
  readonly rateLimitCeiling: number;
  readonly eventsTopicArn?: string;
  readonly secretPrefix: string;
  readonly secretStore: SecretStore;
  readonly headerPrefix: string;
  readonly consoleKeySecret: string;
  /** `false` when the console is turned off. */
  readonly consoleDir: string | false;
  readonly allowedPorts: readonly number[];
  readonly attemptTimeoutMs: number;
  readonly attemptTtlDays: number;
  /** How long a rotated-out secret keeps signing by default, seconds (0: not at all). */
  readonly secretRotationOverlapSeconds: number;
  /** Deliveries are findable by user and event id. @default true */
  readonly deliverySearch: boolean;
  /** The dispatcher checks a down endpoint by itself (`recoveryProbes`). @default true */
  readonly recoveryChecks: boolean;
}

/**
 * Reads and validates the management API's configuration.
 * @throws ConfigError naming the first missing or malformed key.
 */
export function loadApiConfig(env: Env = process.env): ApiConfig {
  const consoleDir = required(env, API_ENV.consoleDir);
  return Object.freeze({
    queueUrl: required(env, ENV.queueUrl),
    retryQueueUrl: required(env, ENV.retryQueueUrl),
    dlqUrl: required(env, ENV.dlqUrl),
    connectionsTable: required(env, ENV.connectionsTable),
    attemptsTable: required(env, ENV.attemptsTable),
    parkedTable: required(env, ENV.parkedTable),
    ...(env[ENV.rateWindowsTable]?.trim() ? { rateWindowsTable: env[ENV.rateWindowsTable]!.trim() } : {}),
    ...rateLimits(env),
    ...(env[ENV.eventsTopicArn]?.trim() ? { eventsTopicArn: env[ENV.eventsTopicArn]!.trim() } : {}),
    secretPrefix: required(env, ENV.secretPrefix),
    secretStore: secretStore(env),
    headerPrefix: env[ENV.headerPrefix]?.trim() || CONFIG_DEFAULTS.headerPrefix,
    consoleKeySecret: required(env, API_ENV.consoleKeySecret),
    consoleDir: consoleDir === 'off' ? false : consoleDir,
    allowedPorts: Object.freeze(ports(env, ENV.allowedPorts, CONFIG_DEFAULTS.allowedPorts)),
    attemptTimeoutMs: limited(env, ENV.attemptTimeoutMs, 'attemptTimeoutMs'),
    attemptTtlDays: limited(env, ENV.attemptTtlDays, 'attemptTtlDays'),
    secretRotationOverlapSeconds: secretRotationOverlap(env),
    deliverySearch: deliverySearch(env),
    recoveryChecks: probeSchedule(env, ENV.recoveryProbes) !== false,
  });
}

/** `secretRotationOverlap` as local mode and the management API read it, seconds. */
export function secretRotationOverlap(env: Env): number {
  const unit = ' seconds (0: a rotated secret signs at once; 2592000: 30 days)';
  return integer(
    env,
    API_ENV.secretRotationOverlap,
    DEFAULT_SECRET_OVERLAP_SECONDS,
    0,
    MAX_SECRET_OVERLAP_SECONDS,
    unit,
  );
}
