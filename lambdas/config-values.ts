/**
 * Readers of one environment value each, for config.ts (the one place that reads `process.env`):
 * each returns the value checked, or throws a ConfigError naming the key and what is wrong.
 */

import { ConfigurationError, ValidationError } from './core/errors';
import { DEFAULT_RECOVERY_PROBES_MS, parseProbeSchedule } from './core/probes';

/** Thrown when the environment is missing a key or holds a malformed value. */
export class ConfigError extends ConfigurationError {
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super('invalid_environment', `Configuration ${key}: ${problem}`);
  }
}

export type Env = Record<string, string | undefined>;

export function required(env: Env, key: string): string {
  const value = env[key]?.trim();
  if (!value) throw new ConfigError(key, 'is required but not set');
  return value;
}

/** A whole-number setting as written; undefined when absent or empty. */
export function whole(env: Env, key: string): number | undefined {
  const raw = env[key]?.trim();
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `must be a whole number, got "${raw}"`);
  return Number(raw);
}

export function integer(
  env: Env,
  key: string,
  fallback: number,
  min: number,
  max: number,
  unit = '',
): number {
  const value = whole(env, key) ?? fallback;
  if (value < min || value > max)
    throw new ConfigError(key, `must be between ${min} and ${max}${unit}, got ${value}`);
  return value;
}

export function ports(env: Env, key: string, fallback: readonly number[]): number[] {
  const raw = env[key]?.trim();
  if (!raw) return [...fallback];
  return raw.split(',').map((part) => {
    const p = part.trim();
    const n = Number(p);
    if (!/^\d+$/.test(p) || n < 1 || n > 65_535) {
      throw new ConfigError(key, `must be a comma-separated list of ports (1-65535), got "${raw}"`);
    }
    return n;
  });
}

export function flag(env: Env, key: string): boolean {
  const raw = env[key]?.trim().toLowerCase();
  if (!raw || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(key, `must be true or false, got "${raw}"`);
}

/** A switch that is on unless set: `true` or `false` when given, else true. */
export function flagOn(env: Env, key: string): boolean {
  return env[key]?.trim() ? flag(env, key) : true;
}

/** A recovery-probe schedule (`1m,5m,15m,1h,3h` or `off`: false), by the construct prop's rules; absent: the default. */
export function probeSchedule(env: Env, key: string): readonly number[] | false {
  const raw = env[key]?.trim();
  if (!raw) return DEFAULT_RECOVERY_PROBES_MS;
  try {
    const waits = parseProbeSchedule(raw);
    return waits && Object.freeze(waits);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ConfigError(key, `${error.problem} (e.g. 1m,5m,15m,1h,3h or off)`);
  }
}
