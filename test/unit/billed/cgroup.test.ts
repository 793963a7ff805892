import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuCapError, cpuQuotaUs, createCpuCap, parseCpuStat } from '../../../bench/billed/cgroup';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'webhooks-cgroup-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the CPU quota for a function of a given memory', () => {
  it('is memory ÷ 1,769 MB of each 100 ms period, rounded', () => {
    expect(cpuQuotaUs(256)).toBe(14_471);
    expect(cpuQuotaUs(128)).toBe(7_236);
    expect(cpuQuotaUs(1_769)).toBe(100_000);
  });

  it('is at most one core here, and refuses a memory that is not positive', () => {
    expect(cpuQuotaUs(3_538)).toBe(100_000);
    expect(() => cpuQuotaUs(0)).toThrow(RangeError);
  });
});

describe('setting the cap (cgroup root injected)', () => {
  it('writes the v1 period and quota in a group of its own, adds a process, and removes the group', () => {
    mkdirSync(join(root, 'cpu'));
    writeFileSync(join(root, 'cpu', 'cpu.cfs_quota_us'), '-1');
    const cap = createCpuCap('bench-1', 256, root);
    expect(cap.version).toBe(1);
    expect(readFileSync(join(root, 'cpu', 'bench-1', 'cpu.cfs_period_us'), 'utf8')).toBe('100000');
    expect(readFileSync(join(root, 'cpu', 'bench-1', 'cpu.cfs_quota_us'), 'utf8')).toBe('14471');
    cap.add(4242);
    expect(readFileSync(join(root, 'cpu', 'bench-1', 'cgroup.procs'), 'utf8')).toBe('4242');
    writeFileSync(
      join(root, 'cpu', 'bench-1', 'cpu.stat'),
      'nr_periods 40\nnr_throttled 12\nthrottled_time 350000000\n',
    );
    expect(cap.stats()).toEqual({ periods: 40, throttledPeriods: 12, throttledMs: 350 });
    for (const f of ['cpu.cfs_period_us', 'cpu.cfs_quota_us', 'cgroup.procs', 'cpu.stat'])
      rmSync(join(root, 'cpu', 'bench-1', f));
    cap.dispose();
    expect(() => readFileSync(join(root, 'cpu', 'bench-1', 'cpu.stat'))).toThrow();
  });

  it('writes cpu.max under cgroup v2, with the cpu controller enabled for child groups', () => {
    writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    const cap = createCpuCap('bench-2', 128, root);
    expect(cap.version).toBe(2);
    expect(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu');
    expect(readFileSync(join(root, 'bench-2', 'cpu.max'), 'utf8')).toBe('7236 100000');
  });

  it('refuses, saying why in one line, when there is no cgroup CPU controller', () => {
    expect(() => createCpuCap('bench-3', 256, root)).toThrow(CpuCapError);
    expect(() => createCpuCap('bench-3', 256, root)).toThrow(/^no cgroup CPU controller under .+$/);
  });

  it('refuses a v2 hierarchy without the cpu controller', () => {
    writeFileSync(join(root, 'cgroup.controllers'), 'memory pids\n');
    expect(() => createCpuCap('bench-4', 256, root)).toThrow(/has no cpu controller/);
  });

  it('refuses when the group cannot be created or written (not root, read-only), and leaves nothing behind', () => {
    mkdirSync(join(root, 'cpu'));
    writeFileSync(join(root, 'cpu', 'cpu.cfs_quota_us'), '-1');
    // A directory where the quota file should be: the write fails as it would without permission.
    mkdirSync(join(root, 'cpu', 'bench-5', 'cpu.cfs_quota_us'), { recursive: true });
    expect(() => createCpuCap('bench-5', 256, root)).toThrow(/^cannot set the CPU quota \(.+EISDIR\)$/);
  });
});

describe('cpu.stat of either version', () => {
  it('reads v2 microseconds and v1 nanoseconds as ms', () => {
    expect(parseCpuStat('usage_usec 1\nnr_periods 9\nnr_throttled 3\nthrottled_usec 2500\n')).toEqual({
      periods: 9,
      throttledPeriods: 3,
      throttledMs: 2.5,
    });
    expect(parseCpuStat('nr_periods 9\nnr_throttled 3\nthrottled_time 2500000\n').throttledMs).toBe(2.5);
  });
});
