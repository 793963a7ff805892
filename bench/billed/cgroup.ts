/**
 * Lambda's CPU share for a function's memory (memoryMb ÷ 1,769 of a vCPU, docs/performance.md
 * §11), held on a child process by a cgroup CPU quota of that share of every 100 ms period, in
 * cgroup v1 (`<root>/cpu/<name>/cpu.cfs_quota_us`) or v2 (`<root>/<name>/cpu.max`). When the cap
 * cannot be set, {@link createCpuCap} throws a {@link CpuCapError} saying why in one line (no
 * figure is printed then). The root is injectable so the tests run on a plain directory.
 */

import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../../lambdas/core/errors';
import { MB_PER_VCPU } from '../cost-model';

/** The CFS period the quota is a share of, µs. */
export const CPU_PERIOD_US = 100_000;
export const CGROUP_ROOT = '/sys/fs/cgroup';

/** CPU µs per {@link CPU_PERIOD_US} that Lambda gives a function of `memoryMb` (at most one vCPU here). */
export function cpuQuotaUs(memoryMb: number, periodUs = CPU_PERIOD_US): number {
  if (!(memoryMb > 0)) throw new RangeError(`memoryMb must be positive, got ${memoryMb}`);
  return Math.round((periodUs * Math.min(memoryMb, MB_PER_VCPU)) / MB_PER_VCPU);
}

/** The cap could not be set or checked (this machine's set-up): no capped figure may be printed. */
export class CpuCapError extends ConfigurationError {
  override readonly name = 'CpuCapError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('cpu_cap_unavailable', message, options);
  }
}

export interface ThrottleStats {
  /** Periods in which the group ran, and in which it was held back by the quota. */
  periods: number;
  throttledPeriods: number;
  throttledMs: number;
}

export interface CpuCap {
  readonly version: 1 | 2;
  readonly path: string;
  readonly quotaUs: number;
  readonly periodUs: number;
  /** Moves a process (all its threads) into the group. */
  add(pid: number): void;
  /** What the kernel counted for the group so far (cpu.stat). */
  stats(): ThrottleStats;
  /** Removes the group; its processes must have exited. */
  dispose(): void;
}

function write(file: string, value: string, what: string): void {
  try {
    writeFileSync(file, value);
  } catch (error) {
    throw new CpuCapError(`cannot ${what} (${file}: ${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

/** Parses cpu.stat of either version into one shape. */
export function parseCpuStat(text: string): ThrottleStats {
  const field = (name: string) => Number(text.match(new RegExp(`^${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  return {
    periods: field('nr_periods'),
    throttledPeriods: field('nr_throttled'),
    // v1 counts nanoseconds (throttled_time), v2 microseconds (throttled_usec).
    throttledMs: text.includes('throttled_usec')
      ? field('throttled_usec') / 1000
      : field('throttled_time') / 1_000_000,
  };
}

/**
 * Creates the group `name` with the quota for `memoryMb`, and reads it back. Throws
 * {@link CpuCapError} (one line: why) when neither cgroup version can hold the cap.
 */
export function createCpuCap(name: string, memoryMb: number, root = CGROUP_ROOT): CpuCap {
  const quotaUs = cpuQuotaUs(memoryMb);
  const v1 = join(root, 'cpu');
  const version = existsSync(join(v1, 'cpu.cfs_quota_us'))
    ? 1
    : existsSync(join(root, 'cgroup.controllers'))
      ? 2
      : undefined;
  if (version === undefined)
    throw new CpuCapError(
      `no cgroup CPU controller under ${root} (neither v1 cpu/ nor v2 cgroup.controllers)`,
    );
  if (version === 2 && !readFileSync(join(root, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu'))
    throw new CpuCapError(`the cgroup v2 hierarchy at ${root} has no cpu controller`);
  const path = join(version === 1 ? v1 : root, name);
  try {
    mkdirSync(path, { recursive: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw new CpuCapError(`cannot create the cgroup ${path} (${code ?? error})`);
  }
  const cap: CpuCap = {
    version,
    path,
    quotaUs,
    periodUs: CPU_PERIOD_US,
    add: (pid) => write(join(path, 'cgroup.procs'), String(pid), `move process ${pid} into the cgroup`),
    stats: () => parseCpuStat(readFileSync(join(path, 'cpu.stat'), 'utf8')),
    dispose: () => {
      try {
        rmdirSync(path);
      } catch {
        // Already gone, or a process still in it: the kernel keeps it until the last one exits.
      }
    },
  };
  try {
    if (version === 1) {
      write(join(path, 'cpu.cfs_period_us'), String(CPU_PERIOD_US), 'set the CPU period');
      write(join(path, 'cpu.cfs_quota_us'), String(quotaUs), 'set the CPU quota');
      const read = Number(readFileSync(join(path, 'cpu.cfs_quota_us'), 'utf8').trim());
      if (read !== quotaUs) throw new CpuCapError(`the CPU quota reads ${read}, not ${quotaUs}`);
    } else {
      write(join(root, 'cgroup.subtree_control'), '+cpu', 'enable the cpu controller for child groups');
      write(join(path, 'cpu.max'), `${quotaUs} ${CPU_PERIOD_US}`, 'set cpu.max');
      const read = readFileSync(join(path, 'cpu.max'), 'utf8').trim();
      if (read !== `${quotaUs} ${CPU_PERIOD_US}`) throw new CpuCapError(`cpu.max reads "${read}"`);
    }
  } catch (error) {
    cap.dispose();
    throw error;
  }
  return cap;
}
