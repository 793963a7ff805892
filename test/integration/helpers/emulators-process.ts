/**
 * Runs local/emulators-process.ts as a child of the Jest main process (fauxqs is ESM-only
 * and cannot load inside Jest's sandbox) and reads its ready line.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { EmulatorsReady } from '../../../local/emulators-process';

/** Environment variables global-setup adds for tests, beside the `env` of the ready line. */
export const TEST_ENV = {
  /** The throwaway CA that signed {@link TEST_ENV.certFile}: pass it as `ca` to trust local receivers. */
  caFile: 'WEBHOOKS_TEST_CA_PEM_FILE',
  /** Server certificate (127.0.0.1, localhost, ::1) and key for HTTPS receivers in tests. */
  certFile: 'WEBHOOKS_TEST_TLS_CERT_FILE',
  keyFile: 'WEBHOOKS_TEST_TLS_KEY_FILE',
} as const;

const STDERR_KEPT = 16_384;

export interface EmulatorsProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: EmulatorsReady;
}

/** Spawns the emulators and resolves with the parsed ready line; rejects (and kills the child) after `timeoutMs`. */
export function startEmulatorsProcess(rootDir: string, timeoutMs: number): Promise<EmulatorsProcess> {
  // process.execPath: Jest runs on the project's Node 24, which fauxqs needs (node:sqlite).
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/emulators-process.ts'], {
    cwd: rootDir,
    stdio: 'pipe',
    env: process.env,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const describe = (problem: string) =>
    new Error(
      `Local emulators (node --import tsx local/emulators-process.ts in ${rootDir}) ${problem}.\n` +
        `--- child stderr ---\n${stderr.trim() || '(empty)'}`,
    );

  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(describe(`were not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(describe(`exited before they were ready (code ${code}, signal ${signal})`));
    };
    child.once('exit', onExit);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(Object.assign(describe(`could not be spawned: ${error.message}`), { cause: error }));
    });
    child.stdout.setEncoding('utf8');
    const onData = (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      const line = stdout.slice(0, newline);
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout.off('data', onData);
      child.stdout.resume(); // keep draining, so the child never blocks on a full pipe
      try {
        const ready = JSON.parse(line) as EmulatorsReady;
        if (ready.ready !== true) throw new Error('no "ready": true');
        resolve({ child, ready });
      } catch (error) {
        child.kill('SIGKILL');
        reject(
          describe(`printed an unexpected first line (${(error as Error).message}): ${line.slice(0, 500)}`),
        );
      }
    };
    child.stdout.on('data', onData);
  });
}

/** Asks the child to stop (SIGTERM), escalating to SIGKILL after `graceMs`; resolves once it has exited. */
export function stopEmulatorsProcess(child: ChildProcessWithoutNullStreams, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
    child.stdin.end();
  });
}
