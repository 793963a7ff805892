import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertStateFileFree, type LocalState, removeState, writeState } from '../../../local/state';
import { localStateFixture } from '../../support/fixtures';

function state(pid: number): LocalState {
  return localStateFixture({ pid });
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wh-state-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('two local modes on one state file', () => {
  // The test runner's parent process is alive for the whole test: it stands for the other instance.
  const other = process.ppid;

  it('refuses to start a second one while the first runs, saying what to do', () => {
    const path = join(dir, 'state.json');
    writeState(state(other), path);
    expect(() => assertStateFileFree(path)).toThrow(
      new RegExp(`local mode is already running \\(pid ${other}, .*WEBHOOKS_STATE_FILE=`),
    );
    expect(() => writeState(state(process.pid), path)).toThrow(/already running/);
  });

  it("never removes another instance's state file on exit", () => {
    const path = join(dir, 'state.json');
    writeState(state(other), path);
    removeState(path, process.pid);
    expect(existsSync(path)).toBe(true);
  });

  it('takes over a state file left by an instance that is gone, and removes its own', () => {
    const path = join(dir, 'state.json');
    writeState(state(2 ** 22 + 12_345), path); // no such process
    expect(() => assertStateFileFree(path)).not.toThrow();
    writeState(state(process.pid), path);
    removeState(path, process.pid);
    expect(existsSync(path)).toBe(false);
  });
});
